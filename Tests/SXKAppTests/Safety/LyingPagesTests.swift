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

    /// A server that answers page 1 whatever page is asked, and says so: the walk stops at the first
    /// answer naming another page than the one asked, printing nothing twice and failing (exit 1).
    func testAServerThatIgnoresThePageNumberStopsAtTheFirstWrongPage() throws {
        let ws = loggedIn()
        server.injectFault(SandboxFault(path: orders, kind: .pageIgnored, count: 1_000))
        let all = SXK.run(["orders", "--all", "--page-size", "10", "--ndjson"], in: ws, baseURL: url, timeout: 20)
        XCTAssertEqual(all.status, 1, all.summary)
        XCTAssertEqual(all.stdout.split(separator: "\n").count, 10, all.summary)
        XCTAssertTrue(all.stderr.contains("the server answered page 1 when asked for page 2: it does not page this list as asked"), all.summary)
        XCTAssertLessThanOrEqual(requests(orders).count, 10)
        let paginated = SXK.run(["get", orders, "pageSize=10", "--paginate", "--ndjson"], in: ws, baseURL: url, timeout: 20)
        XCTAssertEqual(paginated.status, 1, paginated.summary)
        XCTAssertTrue(paginated.stderr.contains("the server answered page 1 when asked for page 2"), paginated.summary)
        server.clearFaults()

        // Once, in the middle of a walk: still stopped there, not passed through as rows that repeat.
        server.injectFault(SandboxFault(path: orders, kind: .pageIgnored, query: "page=3"))
        let once = SXK.run(["orders", "--all", "--page-size", "10", "--ndjson"], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(once.status, 1, once.summary)
        XCTAssertEqual(once.stdout.split(separator: "\n").count, 20, once.summary)
        XCTAssertEqual(Set(once.stdout.split(separator: "\n")).count, 20, once.summary)

        server.injectFault(SandboxFault(path: daily, kind: .pageIgnored, count: 1_000))
        let stats = SXK.run(["stats", "daily", "--all", "--from", day(-119), "--to", day(0), "--json"], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(stats.status, 1, stats.summary)
        XCTAssertTrue(stats.stderr.contains("the server answered page 1 when asked for page 2"), stats.summary)
    }

    /// A daily page after the first fails: the rows of the pages before it are printed (every format),
    /// a warning says the range's rows are partial, and the failure is the error line and exit status,
    /// as `orders --all` prints its rows before the error. A rejected token there still resets the session.
    func testADailyPageThatFailsKeepsTheRowsBeforeIt() throws {
        let ws = loggedIn()
        let range = ["--from", day(-119), "--to", day(0)]
        server.injectFault(SandboxFault(path: daily, kind: .status500, query: "page=3"))
        let json = SXK.run(["stats", "daily", "--all", "--json"] + range, in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(json.status, 1, json.summary)
        XCTAssertEqual((try json.json() as? [Any])?.count, 100, json.summary)
        XCTAssertTrue(json.stderr.contains("--all stopped at daily page 3, which failed (below): the rows of the 2 pages before it were read"), json.summary)
        XCTAssertEqual(json.errorLines.count, 1, json.summary)
        XCTAssertTrue(json.stderr.hasSuffix(json.errorLines[0] + "\n"), "the error comes last: \(json.summary)")

        server.injectFault(SandboxFault(path: daily, kind: .status500, query: "page=2"))
        let table = SXK.run(["stats", "--all"] + range, in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(table.status, 1, table.summary)
        XCTAssertTrue(table.stdout.contains("orders"), "the summary is shown: \(table.summary)")
        XCTAssertEqual(table.stdout.split(separator: "\n").filter { $0.range(of: #"^\d{4}-\d{2}-\d{2} "#, options: .regularExpression) != nil }.count, 50, table.summary)
        XCTAssertTrue(table.stderr.contains("the rows of the page before it were read"), table.summary)

        // The first page failing: nothing stands for the range, the error alone.
        server.injectFault(SandboxFault(path: daily, kind: .status500, query: "page=1"))
        let first = SXK.run(["stats", "daily", "--all", "--json"] + range, in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(first.status, 1, first.summary)
        XCTAssertEqual(first.stdout, "", first.summary)

        server.injectFault(SandboxFault(path: daily, kind: .status401, query: "page=2"))
        let expired = SXK.run(["stats", "daily", "--all", "--csv"] + range, in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(expired.status, 3, expired.summary)
        XCTAssertEqual(expired.stdout.split(separator: "\n").count, 51, "header and the first page's rows: \(expired.summary)")
        XCTAssertNil(ws.token(), "the rejected token was kept: \(expired.summary)")
    }

    /// A later page with no rows though the total names more (`"list": null` mid-list) ends every walk
    /// as partial, exit 1, not as a complete list.
    func testAnEmptyPageBeforeTheTotalEndsAWalkAsPartial() throws {
        let ws = loggedIn()
        server.injectFault(SandboxFault(path: orders, kind: .listNull, query: "page=2"))
        let all = SXK.run(["orders", "--all", "--page-size", "10", "--ndjson"], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(all.status, 1, all.summary)
        XCTAssertEqual(all.stdout.split(separator: "\n").count, 10, all.summary)
        XCTAssertTrue(all.stderr.contains("--all stopped at page 2: the server listed no orders there though its total is 95 orders; 10 orders printed"), all.summary)
        server.injectFault(SandboxFault(path: orders, kind: .listNull, query: "page=2"))
        let paginated = SXK.run(["get", orders, "pageSize=10", "--paginate", "--ndjson"], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(paginated.status, 1, paginated.summary)
        XCTAssertTrue(paginated.stderr.contains("--paginate stopped at page 2: the server listed no rows there though its total is 95"), paginated.summary)
        server.injectFault(SandboxFault(path: daily, kind: .listNull, query: "page=2"))
        let stats = SXK.run(["stats", "daily", "--all", "--from", day(-119), "--to", day(0), "--json"], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(stats.status, 1, stats.summary)
        XCTAssertEqual((try stats.json() as? [Any])?.count, 50, stats.summary)
        XCTAssertTrue(stats.stderr.contains("--all stopped at daily page 2: the server listed no rows there though its total is 120"), stats.summary)
    }

    /// What was read cannot be shown (a `--jq` error) and a later page failed: both are said, and the
    /// page's failure is the exit status (3 after a rejected token, which ended the session).
    func testARenderErrorDoesNotHideThePagesFailure() throws {
        let ws = loggedIn()
        server.injectFault(SandboxFault(path: daily, kind: .status401, query: "page=2"))
        let r = SXK.run(["stats", "daily", "--all", "--from", day(-119), "--to", day(0), "--jq", ".[0].date|tonumber"], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(r.status, 3, r.summary)
        XCTAssertEqual(r.errorLines.count, 2, r.summary)
        XCTAssertTrue(r.errorLines.first?.contains("--jq") ?? false, r.summary)
        XCTAssertNil(ws.token(), r.summary)
        // In a script both lines name the script's line, as every error there does.
        SXK.login("13800000001", in: ws, baseURL: url)
        server.injectFault(SandboxFault(path: daily, kind: .status401, query: "page=2"))
        let script = ws.root + "/daily.sxk"
        try "version\nstats daily --all --from \(day(-119)) --to \(day(0)) --jq '.[0].date|tonumber'\n".write(toFile: script, atomically: true, encoding: .utf8)
        let scripted = SXK.run([script], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(scripted.status, 3, scripted.summary)
        XCTAssertEqual(scripted.errorLines.count, 2, scripted.summary)
        XCTAssertTrue(scripted.errorLines.allSatisfy { $0.hasPrefix("error: \(script):2: ") }, scripted.summary)
    }

    /// Answers without `pageSize`: a short last page does not shrink the list's page size, so nothing
    /// past the end is asked for; a server that serves fewer rows than asked is walked to its total.
    func testPagesWithoutASizeAreWalkedToTheirTotal() throws {
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
        // A single page's footer counts pages of the size asked for, when its short list ends the total.
        server.injectFault(SandboxFault(path: orders, kind: .pageUnsized, count: 3))
        // A short page without a page size: how many pages there are is not known, and not guessed.
        let page = SXK.run(["orders", "--page", "10", "--page-size", "10"], in: ws, baseURL: url)
        XCTAssertTrue(page.stdout.contains("page 10 · 95 orders"), page.summary)
        XCTAssertFalse(page.stdout.contains("page 10/"), page.summary)
        // An empty page of a list with rows is past its end; a first page holding the total is all of it.
        let past = SXK.run(["orders", "--page", "11", "--page-size", "10"], in: ws, baseURL: url)
        XCTAssertTrue(past.stderr.contains("warning: page 11 is past the last page; 95 orders in all"), past.summary)
        let whole = SXK.run(["orders", "--page", "1", "--page-size", "100"], in: ws, baseURL: url)
        XCTAssertTrue(whole.stdout.contains("page 1/1 · 95 orders"), whole.summary)
        server.clearFaults()
        // Every daily page read: no note that --all would read more.
        server.injectFault(SandboxFault(path: daily, kind: .pageUnsized, count: 100))
        let stats = SXK.run(["stats", "--all", "--from", day(-109), "--to", day(0)], in: ws, baseURL: url)
        server.clearFaults()
        XCTAssertEqual(stats.status, 0, stats.summary)
        XCTAssertFalse(stats.stderr.contains("--all reads every page"), stats.summary)

        // Fewer rows than asked and no page size (at most 10 a page): every row still comes, in every walk.
        server.injectFault(SandboxFault(path: orders, kind: .pageCapped, count: 1_000))
        server.injectFault(SandboxFault(path: daily, kind: .pageCapped, count: 1_000))
        let cappedAll = SXK.run(["orders", "--all", "--page-size", "17", "--ndjson"], in: ws, baseURL: url)
        XCTAssertEqual(cappedAll.status, 0, cappedAll.summary)
        XCTAssertEqual(Set(cappedAll.stdout.split(separator: "\n")).count, 95, cappedAll.summary)
        let cappedStats = SXK.run(["stats", "daily", "--all", "--from", day(-59), "--to", day(0), "--json"], in: ws, baseURL: url)
        XCTAssertEqual(cappedStats.status, 0, cappedStats.summary)
        XCTAssertEqual((try cappedStats.json() as? [Any])?.count, 60, cappedStats.summary.prefix(400).description)
        server.clearFaults()

        let (capped, cappedURL) = try startSandbox(SandboxConfig(ordersPerRole: 250))
        defer { capped.stop() }
        let other = Workspace()
        SXK.login("13800000001", in: other, baseURL: cappedURL)
        capped.injectFault(SandboxFault(path: orders, kind: .pageUnsized, count: 1_000))
        // Asked for 500 a page, served at most 100: every row still comes.
        let big = SXK.run(["get", orders, "pageSize=500", "--paginate", "--ndjson"], in: other, baseURL: cappedURL)
        XCTAssertEqual(big.status, 0, big.summary)
        XCTAssertEqual(big.stdout.split(separator: "\n").count, 250, big.summary)
    }

    /// A walk that starts past page 1 meets the empty page after the total as the list's honest end:
    /// complete (exit 0, no warning), whichever page it started on.
    func testAWalkStartedPastPageOneEndsCompleteAtTheEmptyPageAfterTheTotal() throws {
        let ws = loggedIn()
        let shown = SXK.run(["get", orders, "pageSize=7", "--jq", ".total"], in: ws, baseURL: url).stdout
        let total = try XCTUnwrap(Int(shown.trimmingCharacters(in: .whitespacesAndNewlines)), shown)
        let lastPage = (total + 6) / 7
        for start in [lastPage, lastPage + 1] {
            let r = SXK.run(["get", orders, "pageSize=7", "page=\(start)", "--paginate", "--ndjson"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, "page=\(start): \(r.summary)")
            XCTAssertFalse(r.stderr.contains("partial"), r.summary)
            XCTAssertEqual(r.stdout.split(separator: "\n").count, start == lastPage ? total - (lastPage - 1) * 7 : 0, r.summary)
        }
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
        let badPages = ["abc", "2.5", "0", "9223372036854775808"]
        for page in badPages {
            let bad = SXK.run(["get", orders, "pageSize=10", "page=\(page)", "--paginate"], in: ws, baseURL: url)
            XCTAssertEqual(bad.status, 2, bad.summary)
        }
        // By the page asked: a page the walk above had in flight may still reach the server after the reset.
        XCTAssertEqual(server.requestLog().filter { $0.query.contains { $0.name == "page" && badPages.contains($0.value) } }.count, 0)
    }

    /// A list that never ends (the same full page, no total) stops at its first repeat; a range the
    /// first page fills is complete, without a warning.
    func testAnEndlessListStopsAtItsFirstRepeat() throws {
        let ws = loggedIn()
        server.injectFault(SandboxFault(path: daily, kind: .pagesEndless, count: 1_000))
        let r = SXK.run(["stats", "--all", "--from", day(-119), "--to", day(0), "--json"], in: ws, baseURL: url, timeout: 30)
        XCTAssertFalse(r.timedOut, r.summary)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertTrue(r.stderr.contains("warning: --all stopped at daily page 2: the server answered it with the same rows as page 1"), r.summary)
        let filled = SXK.run(["stats", "--all", "--from", day(-49), "--to", day(0), "--json"], in: ws, baseURL: url, timeout: 30)
        XCTAssertEqual(filled.status, 0, filled.summary)
        XCTAssertFalse(filled.stderr.contains("stopped"), filled.summary)
        server.clearFaults()
        server.injectFault(SandboxFault(path: orders, kind: .pagesEndless, count: 100_000))
        let all = SXK.run(["orders", "--all", "--page-size", "10", "--ndjson"], in: ws, baseURL: url, timeout: 30)
        server.clearFaults()
        XCTAssertFalse(all.timedOut, all.summary)
        XCTAssertEqual(all.status, 1, all.summary)
        XCTAssertEqual(all.stdout.split(separator: "\n").count, 10, all.summary)
    }

    /// `--raw` still prints each page's body as received.
    func testPaginateRawPrintsEveryPagesBody() throws {
        let ws = loggedIn()
        let r = SXK.run(["get", orders, "pageSize=40", "--paginate", "--raw"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout.components(separatedBy: "\"list\"").count - 1, 3, String(r.stdout.prefix(300)))
    }
}
