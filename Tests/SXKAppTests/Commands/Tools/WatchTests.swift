import Foundation
import XCTest

/// `watch --count N COMMAND`: the command run N times; off a terminal runs follow each other on stdout,
/// each with a header line on stderr.
final class WatchTests: XCTestCase {
    func testWatchRunsTheCommandCountTimesWithAHeaderPerRun() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["watch", "-n", "0.1", "--count", "3", "whoami", "--jq", ".userId"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout, "1001\n1001\n1001\n", r.summary)
        let headers = r.stderrLines.filter { $0.hasPrefix("Every 0.1s: whoami --jq .userId") }
        XCTAssertEqual(headers.count, 3, r.summary)
        XCTAssertTrue(headers.last?.hasSuffix("run 3/3") == true, r.summary)
    }

    /// A run that streams its rows is refused by the command's own declaration, before any request;
    /// the same command on one page is repeated.
    func testAStreamingRunIsRefusedByItsCommand() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let all = SXK.run(["watch", "--count", "1", "orders", "--all"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(all.status, 2, all.summary)
        XCTAssertEqual(all.stdout, "", all.summary)
        XCTAssertEqual(all.stderrLines, ["error: watch repeats one page: `orders --all` walks every page as a stream (use --page-size or --limit)"], all.summary)
        let page = SXK.run(["watch", "--count", "1", "orders", "--page-size", "2", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(page.status, 0, page.summary)
    }
}
