import Foundation
import SXKSandbox
import XCTest

/// `compare` sends its identities' calls side by side: the set-user calls together, then the requests
/// together, and prints the rows in the order of `--as`. Proved by what the sandbox saw.
final class CompareTests: XCTestCase {
    private func results(_ r: RunResult) throws -> [[String: Any]] {
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").last { $0.hasPrefix("{") }, r.summary)
        let matrix = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try XCTUnwrap(matrix["results"] as? [[String: Any]])
    }

    func testSetUserCallsGoTogetherThenTheRequestsTogetherInTheOrderAsked() throws {
        let (server, url) = try startSandbox(SandboxConfig(latencyMs: 300))
        defer { server.stop() }
        let ws = Workspace()
        let script = "login 13800000004 --password-stdin --accept-privacy --account 1; compare --as account:4003,account:4002,account:4001 orders --page-size 5 --json"
        server.resetRequestLog()
        let r = SXK.run(["-c", script], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(try results(r).map { $0["userId"] as? Int }, [4003, 4002, 4001])
        let log = server.requestLog()
        // The login's own set-user is the first; the compare's two follow.
        let setUsers = Array(log.filter { $0.path == "/api/app/v9/set-user" }.suffix(2))
        XCTAssertEqual(setUsers.count, 2)
        XCTAssertTrue(setUsers[0].overlaps(setUsers[1]), "the two set-user calls were not in flight together")
        let orderPaths = ["/api/yf-handset-app/photog/order/listv2", "/api/app/scenic-admin/order/list", "/api/app/store/order/list"]
        let requests = Array(log.filter { orderPaths.contains($0.path) }.suffix(3))
        XCTAssertEqual(requests.count, 3)
        for i in 0..<3 {
            for j in (i + 1)..<3 { XCTAssertTrue(requests[i].overlaps(requests[j]), "\(requests[i].path) and \(requests[j].path) not together") }
            // Every request waited for every token: none left before the last set-user answered.
            XCTAssertFalse(requests[i].overlaps(setUsers[0]) || requests[i].overlaps(setUsers[1]))
        }
    }

    func testCtrlCWithTheIdentitiesRequestsInFlightEndsTheCompareAtOnce() throws {
        let (server, url) = try startSandbox(SandboxConfig(latencyMs: 3_000))
        defer { server.stop() }
        let ws = Workspace()
        server.setLatency(milliseconds: 0)
        SXK.login("13800000002", in: ws, baseURL: url)
        server.setLatency(milliseconds: 3_000)
        server.resetRequestLog()
        let running = try LiveSXK(["compare", "--as", "role:photographer,role:scenicAdmin", "--", "orders"], in: ws, baseURL: url)
        let deadline = Date().addingTimeInterval(10)
        while server.requestLog().count < 2 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(server.requestLog().count, 2, "the two requests were not both in flight")
        let interrupted = Date()
        kill(running.pid, SIGINT)
        XCTAssertEqual(running.finish(timeout: 10), 130)
        XCTAssertLessThan(Date().timeIntervalSince(interrupted), 2.0, "Ctrl-C waited for the answers")
        XCTAssertEqual(String(decoding: running.out.finish(), as: UTF8.self), "", "a cancelled compare printed rows")
        server.setLatency(milliseconds: 0)
    }

    func testOneIdentityFailingKeepsTheOthersRowsInPlace() throws {
        let (server, url) = try startSandbox(SandboxConfig(latencyMs: 80))
        defer { server.stop() }
        let ws = Workspace()
        server.injectFault(path: "/api/app/scenic-admin/order/list", kind: .status500)
        let script = "login 13800000004 --password-stdin --accept-privacy --account 1; compare --as account:4001,account:4002,account:4003 orders --page-size 5 --json"
        let r = SXK.run(["-c", script], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        let rows = try results(r)
        XCTAssertEqual(rows.map { $0["userId"] as? Int }, [4001, 4002, 4003])
        XCTAssertEqual(rows.map { $0["status"] as? Int }, [200, 500, 200])
        XCTAssertEqual(rows.map { $0["rows"] as? Int }, [5, nil, 5])
        // Each request's time, the failed one's too (the sandbox answers after its 80 ms).
        XCTAssertTrue(rows.allSatisfy { ($0["elapsedMs"] as? Double ?? 0) >= 80 }, "\(rows.map { $0["elapsedMs"] ?? "none" })")
    }

    /// An identity's orders are scoped by the session's rule: a stored store 0 is no store, refused
    /// before anything is sent, as `orders` refuses it.
    func testAStoredStoreZeroIsNoStoreForAnIdentityToo() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        try ws.setStored("key_in_current_store_id", 0)
        XCTAssertTrue(SXK.run(["orders"], in: ws, baseURL: url).stderr.contains("no store selected"))
        server.resetRequestLog()
        let r = SXK.run(["compare", "--as", "current", "--", "orders", "--json"], in: ws, baseURL: url)
        let row = try XCTUnwrap(try results(r).first, r.summary)
        XCTAssertTrue((row["problem"] as? String ?? "").contains("no store selected"), "\(row)")
        XCTAssertFalse(server.requestLog().contains { $0.path == "/api/app/store/order/list" }, "\(paths(server.requestLog()))")
        // An id the identity names is sent as typed: the server says what it makes of store 0.
        XCTAssertEqual(SXK.run(["compare", "--as", "store:0", "--", "orders", "--json"], in: ws, baseURL: url).status, 0)
        XCTAssertTrue(server.requestLog().contains { $0.path == "/api/app/store/order/list" && $0.queryValue("storeId") == "0" }, "\(paths(server.requestLog()))")
    }
}
