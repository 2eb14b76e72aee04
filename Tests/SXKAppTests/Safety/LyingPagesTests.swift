import Foundation
import SXKSandbox
import XCTest

/// Page walks against a server that lies about its pages (`SandboxFaultKind.page…`): each walk ends,
/// asks a bounded number of pages, and says when what it printed may be partial.
final class LyingPagesTests: XCTestCase {
    private var server: SandboxServer!
    private var url: URL!
    private let orders = "/api/yf-handset-app/photog/order/listv2"
    private let daily = "/api/yf-handset-app/photog/analyse/user/daily"

    override func setUpWithError() throws {
        (server, url) = try startSandbox(SandboxConfig(ordersPerRole: 95))
    }

    override func tearDown() { server?.stop() }

    private func loggedIn() -> Workspace {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.resetRequestLog()
        return ws
    }

    private func requests(_ path: String) -> [Int] {
        server.requestLog().filter { $0.path == path }.compactMap { Int($0.queryValue("page") ?? "") }
    }

    private func day(_ offset: Int) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "Asia/Shanghai")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date().addingTimeInterval(Double(offset) * 86_400))
    }

    /// A server that answers page 1 whatever page is asked (and says so): the walk counts from the
    /// page it asked for, so it ends at the total instead of never.
    func testAServerThatIgnoresThePageNumberCannotKeepAWalkGoing() throws {
        let ws = loggedIn()
        server.injectFault(SandboxFault(path: orders, kind: .pageIgnored, count: 1_000))
        let all = SXK.run(["orders", "--all", "--page-size", "10", "--ndjson"], in: ws, baseURL: url, timeout: 20)
        XCTAssertFalse(all.timedOut, all.summary)
        XCTAssertEqual(all.status, 0, all.summary)
        XCTAssertEqual(requests(orders).sorted(), Array(1...10))
        server.resetRequestLog()
        let paginated = SXK.run(["get", orders, "pageSize=10", "--paginate", "--ndjson"], in: ws, baseURL: url, timeout: 20)
        XCTAssertEqual(paginated.status, 0, paginated.summary)
        XCTAssertEqual(requests(orders).sorted(), Array(1...10))
        server.clearFaults()

        server.injectFault(SandboxFault(path: daily, kind: .pageIgnored, count: 1_000))
        let stats = SXK.run(["stats", "daily", "--all", "--from", day(-27), "--to", day(0), "--json"], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertFalse(stats.timedOut, stats.summary)
        XCTAssertLessThanOrEqual(requests(daily).count, 3, stats.summary)
    }

    /// Answers without `pageSize`: the size asked for is the pages' size, not the last page's length,
    /// so nothing past the end is asked for.
    func testPagesWithoutASizeAreTheSizeAskedFor() throws {
        let ws = loggedIn()
        server.injectFault(SandboxFault(path: orders, kind: .pageUnsized, count: 1_000))
        let paginated = SXK.run(["get", orders, "pageSize=10", "--paginate", "--ndjson"], in: ws, baseURL: url)
        XCTAssertEqual(paginated.status, 0, paginated.summary)
        XCTAssertEqual(paginated.stdout.split(separator: "\n").count, 95, paginated.summary)
        XCTAssertEqual(requests(orders).sorted(), Array(1...10))
        server.resetRequestLog()
        let all = SXK.run(["orders", "--all", "--page-size", "10", "--ndjson"], in: ws, baseURL: url)
        XCTAssertEqual(all.status, 0, all.summary)
        XCTAssertEqual(all.stdout.split(separator: "\n").count, 95, all.summary)
        XCTAssertEqual(requests(orders).sorted(), Array(1...10))
        server.clearFaults()
    }

    /// A later page that is no page is the server's fault (exit 1, naming the page), not a usage error;
    /// a page number that is not one is a usage error before anything is sent.
    func testAPageWithoutAListMidWalkIsTheServersFault() throws {
        let ws = loggedIn()
        server.injectFault(SandboxFault(path: orders, kind: .pageWithoutList, query: "page=3"))
        let r = SXK.run(["get", orders, "pageSize=10", "--paginate", "--ndjson"], in: ws, baseURL: url)
        server.clearFaults()
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines, ["error: --paginate: page 3 of \(orders) answered no page (a data object with a list)"], r.summary)
        server.resetRequestLog()
        for page in ["abc", "2.5", "0", "9223372036854775808"] {
            let bad = SXK.run(["get", orders, "pageSize=10", "page=\(page)", "--paginate"], in: ws, baseURL: url)
            XCTAssertEqual(bad.status, 2, bad.summary)
        }
        XCTAssertEqual(server.requestLog().count, 0)
    }

    /// A daily list that never ends (full pages, no total) stops at the pages the range's days fill,
    /// and says the rows may be partial (exit 1).
    func testAnEndlessDailyListStopsAtTheRangesDays() throws {
        let ws = loggedIn()
        server.injectFault(SandboxFault(path: daily, kind: .pagesEndless, count: 1_000))
        let r = SXK.run(["stats", "--all", "--from", day(-119), "--to", day(0), "--json"], in: ws, baseURL: url, timeout: 30)
        server.clearFaults()
        XCTAssertFalse(r.timedOut, r.summary)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertTrue(r.stderr.contains("warning: --all stopped after 3 daily pages, which hold the range's 120 days"), r.summary)
        XCTAssertLessThanOrEqual(requests(daily).count, 4, "\(requests(daily))")
    }

    /// `--raw` still prints each page's body as received.
    func testPaginateRawPrintsEveryPagesBody() throws {
        let ws = loggedIn()
        let r = SXK.run(["get", orders, "pageSize=40", "--paginate", "--raw"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout.components(separatedBy: "\"list\"").count - 1, 3, String(r.stdout.prefix(300)))
    }
}
