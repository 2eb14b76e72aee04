import Foundation
import SXKAPI
import SXKCore
import SXKShell
import XCTest
@testable import SXKApp

/// The pieces of `compare` and `curl` that need no process: curl quoting, the request ring's masking,
/// the body diff, identity and request parsing.
final class PowerFeaturesUnitTests: XCTestCase {
    /// Where a Ctrl-C stopped `watch`: between runs, or during one not yet shown.
    func testWatchSaysWhereItWasStopped() {
        XCTAssertEqual(AppCommands.stopped(runs: 3, shown: 3), "after 3 runs")
        XCTAssertEqual(AppCommands.stopped(runs: 1, shown: 1), "after 1 run")
        XCTAssertEqual(AppCommands.stopped(runs: 2, shown: 1), "during run 2, after 1 run")
        XCTAssertEqual(AppCommands.stopped(runs: 1, shown: 0), "during run 1")
    }

    func request(_ method: String, _ url: String, body: String? = nil, token: String? = "sxk_0123456789abcdef") -> HTTPRequest {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("X-OS-TYPE", "iOS")])
        if let token { headers.append("token", token) }
        return HTTPRequest(method: method, url: URL(string: url)!, headers: headers, body: body.map { Array($0.utf8) } ?? [])
    }

    func testCurlQuotesEveryWordAndKeepsTheTokenAsAVariable() throws {
        let ring = RequestRing()
        ring.record(request("POST", "http://127.0.0.1:1/api/x?q=%E6%9E%97", body: #"{"note":"it's $HOME `x`","n":1.50}"#))
        let entry = try XCTUnwrap(ring.all.last)
        XCTAssertEqual(CurlCommand(request: entry, revealToken: false).render(), """
            curl 'http://127.0.0.1:1/api/x?q=%E6%9E%97' \\
              -H 'Content-Type: application/json' \\
              -H 'X-OS-TYPE: iOS' \\
              -H "token: $SXK_TOKEN" \\
              --data-raw '{"note":"it'\\''s $HOME `x`","n":1.50}'

            """)
        XCTAssertTrue(CurlCommand(request: entry, revealToken: true).render().contains("-H 'token: sxk_0123456789abcdef'"))
        ring.record(request("DELETE", "http://h/a", token: nil))
        let delete = CurlCommand(request: try XCTUnwrap(ring.all.last), revealToken: false).render()
        XCTAssertEqual(delete.split(separator: "\n").first, "curl -X 'DELETE' 'http://h/a' \\")
        XCTAssertFalse(delete.contains("token"))
        XCTAssertEqual(CurlCommand.quote("a'b"), "'a'\\''b'")
    }

    func testTheRingNeverKeepsAPasswordAndHoldsTheLastTwenty() throws {
        let ring = RequestRing()
        ring.record(request("POST", "http://h/api/app/v9/login", body: #"{"username":"13800000001","password":"hunter2-secret"}"#, token: nil))
        ring.record(request("GET", "http://h/api/x?password=hunter2-secret&token=abc&keep=1"))
        ring.record(request("POST", "http://h/api/y", body: "password=hunter2-secret"))
        let kept = ring.all
        XCTAssertEqual(kept[0].body, #"{"username":"13800000001","password":"***"}"#)
        XCTAssertEqual(kept[1].url, "http://h/api/x?password=***&token=***&keep=1")
        XCTAssertNil(kept[2].body)
        XCTAssertTrue(kept[2].bodyOmitted)
        XCTAssertFalse("\(kept)".contains("hunter2"), "a password reached the ring")

        for i in 0..<30 { ring.record(request("GET", "http://h/p\(i)")) }
        XCTAssertEqual(ring.all.count, RequestRing.capacity)
        XCTAssertEqual(ring.all.first?.number, 14)
        XCTAssertEqual(ring.all.last?.number, 33)
        ring.finish(33, status: 502, failure: nil, elapsedMs: 1.5)
        ring.finish(1, status: 200, failure: nil, elapsedMs: 1)  // long gone: ignored
        XCTAssertEqual(ring.all.last?.outcome, "502")
        XCTAssertEqual(ring.all.last?.pathAndQuery, "/p29")
    }

    func testBodyDiffSummaries() {
        let a: JSONValue = [["id": 1], ["id": 2], ["id": 3]]
        XCTAssertEqual(CompareDiff.between(a, a).summary, "same")
        XCTAssertEqual(CompareDiff.between(a, [["id": 3], ["id": 2], ["id": 1]]).summary, "same rows, other order")
        let changed = CompareDiff.between(a, [["id": 1], ["id": 4]])
        XCTAssertEqual(changed.summary, "+1 −2 rows")
        XCTAssertEqual(changed.added, 1)
        XCTAssertEqual(changed.removed, 2)
        let pageA: JSONValue = ["list": [["id": 1]], "total": 10, "page": 1]
        let pageB: JSONValue = ["list": [["id": 1]], "total": 12, "page": 1]
        XCTAssertEqual(CompareDiff.between(pageA, pageB).summary, "total differs")
        XCTAssertEqual(CompareDiff.between(["a": 1, "b": 2], ["a": 1, "b": 3, "c": 4]).summary, "b, c differ")
        // Named as every typed view names them, whatever the backend's spelling; up to 8 before `…`.
        XCTAssertEqual(CompareDiff.between(["user_id": 1, "role_code": "a", "x": 1, "y": 1], ["user_id": 2, "role_code": "b", "x": 2, "y": 2]).summary,
                       "userId, roleCode, x, y differ")
        XCTAssertEqual(CompareDiff.between(nil, a).summary, "baseline has no data")
        XCTAssertEqual(CompareDiff.between(a, nil).summary, "no data")
        XCTAssertFalse(CompareDiff.between(.string("x"), .string("y")).same)
    }

    func testIdentityListsAndRequests() throws {
        let list = try CompareIdentity.parseList(["role:photographer, role:storeAdmin", "scenic:2,role:photographer"])
        XCTAssertEqual(list.map(\.identity), [.role("photographer"), .role("storeAdmin"), .scenic("2")])
        XCTAssertEqual(try CompareIdentity.parseList(["store:301"]).map(\.label), ["current", "store:301"])
        XCTAssertThrowsError(try CompareIdentity.parseList([]))
        XCTAssertThrowsError(try CompareIdentity.parseList(["boss:1"]))
        XCTAssertThrowsError(try CompareIdentity.parseList(["account:"]))

        var query = [("page", "1"), ("scenic_id", "1"), ("x", "y"), ("scenicId", "9")]
        CompareRequest.set("scenicId", "2", in: &query)
        XCTAssertEqual(query.map { "\($0.0)=\($0.1)" }, ["page=1", "scenicId=2", "x=y"])

        let (orders, json) = try CompareRequest.parse(parser: CommandParser(specs: CommandCatalog.all), ["orders", "--status", "2", "--page-size", "5", "--json"])
        XCTAssertTrue(json)
        XCTAssertEqual(orders.title, "orders --page 1 --page-size 5 --status 2")
        XCTAssertThrowsError(try CompareRequest.parse(parser: CommandParser(specs: CommandCatalog.all), ["orders", "--limit", "2"]))
        XCTAssertThrowsError(try CompareRequest.parse(parser: CommandParser(specs: CommandCatalog.all), ["whoami"]))
        let (post, _) = try CompareRequest.parse(parser: CommandParser(specs: CommandCatalog.all), ["post", "api/x", "a:=1", "b=2"])
        let target = CompareTarget(label: "scenic:3", override: (.scenicId, 3))
        guard case .success(let made) = post.concrete(for: target) else { return XCTFail("no request") }
        XCTAssertEqual(made.path, "/api/x")
        XCTAssertEqual(made.body.map { JSONWriter.string($0) }, #"{"a":1,"b":"2","scenicId":3}"#)
    }
}
