import Foundation
import SXKSandbox
import XCTest

/// `get` / `post` as an API explorer expects them (HTTPie, `gh api`): typed items, headers,
/// headers shown on stderr on request, every page of a list.
final class RawRequestTests: SandboxTestCase {
    private func loggedIn(_ phone: String = "13800000004", account: String? = "3") -> Workspace {
        let ws = Workspace()
        SXK.login(phone, in: ws, baseURL: url, account: account)
        server.resetRequestLog()
        return ws
    }

    func testItemsAreStringsJSONValuesAndHeaders() throws {
        let ws = loggedIn()
        let r = SXK.run(["post", "/api/app/v9/set-user", "userId:=4003", "accountType=store", "note=12", "flags:=[1,true]", "X-Trace-Id:abc 1",
                         "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let sent = try XCTUnwrap(server.requestLog().last)
        XCTAssertEqual(sent.path, "/api/app/v9/set-user")
        let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(sent.body.utf8)) as? [String: Any])
        XCTAssertEqual(body["userId"] as? Int, 4003)
        XCTAssertEqual(body["note"] as? String, "12", "k=v sends a string, as HTTPie does")
        XCTAssertTrue(sent.body.contains(#""flags":[1,true]"#), sent.body)
        XCTAssertEqual(sent.header("X-Trace-Id"), "abc 1")

        server.resetRequestLog()
        let get = SXK.run(["get", "/api/app/store/order/list", "storeId:=301", "pageSize:=2", "keyword=a:b"], in: ws, baseURL: url)
        XCTAssertEqual(get.status, 0, get.summary)
        let query = try XCTUnwrap(server.requestLog().last)
        XCTAssertEqual(query.queryValue("storeId"), "301")
        XCTAssertEqual(query.queryValue("keyword"), "a:b", "the separator that comes first decides")
    }

    /// A query typed into the path goes on the wire as typed: its escapes kept, only the bytes a URL
    /// cannot hold (Chinese, a space, a `%` that starts no escape) escaped; and what `curl N` shows
    /// masks its secret-named pair as the trace does.
    func testAQueryTypedIntoThePathIsSentAsTyped() throws {
        let ws = loggedIn()
        let r = SXK.run(["--trace", "-c", "get '/api/app/store/order/list?storeId=301&a=[1]&Pass%77ord=verysecretvalue123&keyword=西湖 a%zz'; curl 1"],
                        in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let sent = try XCTUnwrap(server.requestLog().last)
        XCTAssertEqual(sent.rawQuery, "storeId=301&a=%5B1%5D&Pass%77ord=verysecretvalue123&keyword=%E8%A5%BF%E6%B9%96%20a%25zz")
        XCTAssertEqual(sent.queryValue("keyword"), "西湖 a%zz")
        XCTAssertFalse(r.stdout.contains("verysecretvalue123") || r.stderr.contains("verysecretvalue123"), r.summary)
        // The trace and `curl N` show the URL that went on the wire, masked alike.
        let shown = "storeId=301&a=%5B1%5D&Pass%77ord=***&keyword=%E8%A5%BF%E6%B9%96%20a%25zz"
        XCTAssertTrue(r.stdout.contains(shown), r.summary)
        XCTAssertTrue(r.stderr.contains("> GET " + url.absoluteString + "/api/app/store/order/list?" + shown), r.summary)
    }

    func testBadItemsAreOneUsageLine() {
        let ws = loggedIn()
        for (words, message) in [
            (["X-A:b\r\nX-Evil: 1"], "error: header X-A: a value must not hold CR, LF or NUL"),
            (["n:=nope"], "error: n:= takes a JSON value (1, true, null, \"text\", [..], {..}), got 'nope'"),
            (["ids:=[1,2]"], "error: ids: a query parameter takes a string or a scalar, not [1,2]"),
            (["bare"], "error: expected key=value, key:=JSON or Header:value, got 'bare'"),
            (["{\"a\":1}"], "error: get sends no body: give the query as items (k=v, k:=JSON)"),
            (["{\"a\":1}", "b=2"], "error: get sends no body: give the query as items (k=v, k:=JSON)"),
        ] {
            let r = SXK.run(["get", "/api/app/config"] + words, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertEqual(r.errorLines, [message], r.summary)
        }
        // A JSON body goes alone: beside items its `"a":` was read as a header name.
        for words in [["{\"a\":1}", "b=2"], ["b=2", "[1]"]] {
            let r = SXK.run(["post", "/api/app/config"] + words, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertEqual(r.errorLines, ["error: a JSON body is sent alone: put the other fields in it, or give every field as an item (k=v, k:=JSON)"], r.summary)
        }
        XCTAssertEqual(paths(server.requestLog()), [], "a refused item sent a request")
        // A broken JSON body beside items is said as a broken body, not sent as fields.
        let broken = SXK.run(["post", "/api/app/config", "{a=1}", "c=2"], in: ws, baseURL: url)
        XCTAssertEqual(broken.status, 2, broken.summary)
        XCTAssertTrue(broken.errorLines.first?.hasPrefix("error: body is not valid JSON: ") == true, broken.summary)
        XCTAssertEqual(paths(server.requestLog()), [], "a broken body was sent")
        // A key that starts with a bracket is an item, not a JSON body.
        let bracket = SXK.run(["get", "/api/app/config", "[x]=1"], in: ws, baseURL: url)
        XCTAssertEqual(bracket.status, 0, bracket.summary)
        XCTAssertEqual(server.requestLog().last?.queryValue("[x]"), "1")
    }

    /// `-v` / `--print`: headers on stderr, masked; stdout stays the data.
    func testVerboseShowsHeadersOnStderrAndKeepsStdoutData() throws {
        let ws = loggedIn()
        let r = SXK.run(["get", "/api/app/config", "X-Trace-Id:abc", "-v"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertNotNil(try? r.json() as? [String: Any], "stdout is not the data: \(r.summary)")
        XCTAssertTrue(r.stderrLines.contains("> GET /api/app/config"), r.summary)
        XCTAssertTrue(r.stderrLines.contains("> X-Trace-Id: abc"), r.summary)
        XCTAssertTrue(r.stderrLines.contains("> token: ***"), r.summary)
        XCTAssertTrue(r.stderrLines.contains("< HTTP 200"), r.summary)
        XCTAssertTrue(r.stderrLines.contains { $0.hasPrefix("< Content-Type: application/json") }, r.summary)
        let token = try XCTUnwrap(ws.token())
        XCTAssertFalse(r.stderr.contains(token) || r.stdout.contains(token), r.summary)

        let headersOnly = SXK.run(["get", "/api/app/config", "--print", "h"], in: ws, baseURL: url)
        XCTAssertEqual(headersOnly.status, 0, headersOnly.summary)
        XCTAssertEqual(headersOnly.stdout, "", headersOnly.summary)
        XCTAssertTrue(headersOnly.stderrLines.contains("< HTTP 200"), headersOnly.summary)
        XCTAssertEqual(SXK.run(["get", "/api/app/config", "--print", "x"], in: ws, baseURL: url).status, 2)
    }

    func testPaginateWalksEveryPageOfAListEndpoint() throws {
        let ws = loggedIn()
        let r = SXK.run(["get", "/api/app/store/order/list", "storeId:=301", "pageSize:=100", "--paginate", "--ndjson"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let rows = r.stdout.split(separator: "\n")
        XCTAssertEqual(rows.count, 2000, r.summary.prefix(500).description)
        XCTAssertEqual(Set(rows).count, 2000, "a page came twice")
        XCTAssertTrue(r.stderrLines.contains("20 pages · 2,000 rows"), r.summary.suffix(500).description)
        let pages = server.requestLog().map { $0.queryValue("page") }
        XCTAssertEqual(pages.count, 20, "\(pages)")
        XCTAssertEqual(Set(pages), Set((1...20).map { String($0) }))
        // Printed in page order, whatever order the answers came in.
        let first = SXK.run(["get", "/api/app/store/order/list", "storeId:=301", "pageSize:=100", "page:=1", "--ndjson"], in: ws, baseURL: url)
        let last = SXK.run(["get", "/api/app/store/order/list", "storeId:=301", "pageSize:=100", "page:=20", "--ndjson"], in: ws, baseURL: url)
        XCTAssertEqual(rows.prefix(100).joined(separator: "\n") + "\n", first.stdout)
        XCTAssertEqual(rows.suffix(100).joined(separator: "\n") + "\n", last.stdout)

        let json = SXK.run(["get", "/api/app/store/order/list", "storeId:=301", "page:=19", "pageSize:=100", "--paginate", "--json"], in: ws, baseURL: url)
        XCTAssertEqual((try json.json() as? [Any])?.count, 200, "from page 19 on")
        let notAList = SXK.run(["get", "/api/app/config", "--paginate"], in: ws, baseURL: url)
        XCTAssertEqual(notAList.status, 2, notAList.summary)
        XCTAssertEqual(notAList.errorLines, ["error: --paginate: /api/app/config answered no page (a data object with a list)"])
    }

    /// The pages the first answer makes known are asked together (a slow server shows them in flight
    /// at once), never before the first page's answer, and never past the last page.
    func testPaginateAsksTheKnownPagesTogether() throws {
        let ws = loggedIn()
        server.setLatency(milliseconds: 40)
        defer { server.setLatency(milliseconds: 0) }
        server.resetRequestLog()
        let r = SXK.run(["get", "/api/app/store/order/list", "storeId:=301", "pageSize:=100", "--paginate", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual((try r.json() as? [Any])?.count, 2000, r.summary.suffix(300).description)
        let log = server.requestLog().filter { $0.path == "/api/app/store/order/list" }
        XCTAssertEqual(log.compactMap { Int($0.queryValue("page") ?? "") }.sorted(), Array(1...20))
        let firstPage = try XCTUnwrap(log.first { $0.queryValue("page") == "1" })
        XCTAssertTrue(log.allSatisfy { $0.queryValue("page") == "1" || $0.arrived >= (firstPage.answered ?? .distantFuture) },
                      "a page was asked before the first answer said there was one")
        // Pages 2 to 1 + PageWalker.ahead go out together once the first answer names them.
        let window = log.filter { (2...(1 + 8)).contains(Int($0.queryValue("page") ?? "") ?? 0) }
        XCTAssertEqual(window.count, 8)
        for page in window {
            XCTAssertTrue(window.allSatisfy { $0.queryValue("page") == page.queryValue("page") || $0.overlaps(page) },
                          "page \(page.queryValue("page") ?? "?") was not in flight with the others of its window")
        }
    }
}
