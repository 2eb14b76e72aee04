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
}
