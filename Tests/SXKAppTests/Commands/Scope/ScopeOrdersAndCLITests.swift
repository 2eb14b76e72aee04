import Foundation
import SXKFeatures
import SXKModels
import SXKSandbox
import XCTest

/// Scope switching, orders output formats, raw calls, usage errors and scripts.
final class ScopeOrdersAndCLITests: SandboxTestCase {
    override class var spellings: [SandboxSpelling] { SandboxSpelling.allCases }

    func testScenicSwitchSendsScenicIdOnOrders() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        server.resetRequestLog()
        let r = SXK.run(["-c", "scenic 2; orders --limit 2 --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let order = try XCTUnwrap(server.requestLog().last { $0.path == "/api/app/scenic-admin/order/list" }, "no scenic-admin order call")
        XCTAssertEqual(order.queryValue("scenicId"), "2")
        // The scope survives a restart.
        server.resetRequestLog()
        let again = SXK.run(["orders", "--limit", "1", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(again.status, 0, again.summary)
        XCTAssertEqual(server.requestLog().last { $0.path == "/api/app/scenic-admin/order/list" }?.queryValue("scenicId"), "2")
    }

    /// At app level: `scenic 2` with a store selected must load the store list first; when that
    /// fails (HTTP 500) the switch changes nothing, in this run and on disk.
    func testFailedScenicSwitchLeavesTheOldScope() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        XCTAssertEqual(SXK.run(["store", "101"], in: ws, baseURL: url).status, 0)
        let before = try XCTUnwrap(ws.read(ws.defaultsFile))
        server.injectFault(path: "/api/app/store/all", kind: .status500)
        let r = SXK.run(["--keep-going", "-c", "scenic 2; whoami --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertTrue(r.errorLines.first?.contains("/api/app/store/all") ?? false, r.summary)
        let who = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.summary)
        XCTAssertEqual(who["scenicId"] as? Int, 1, r.summary)
        XCTAssertEqual(who["storeId"] as? Int, 101, r.summary)
        XCTAssertEqual(ws.read(ws.defaultsFile), before, "defaults.json changed by a failed switch")
        XCTAssertEqual(server.pendingFaults.count, 0)
    }

    func testRoleSwitchChangesOrdersEndpoint() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        server.resetRequestLog()
        let r = SXK.run(["-c", "role photographer; orders --limit 1 --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(paths(server.requestLog()).contains("/api/yf-handset-app/photog/order/listv2"), "\(paths(server.requestLog()))")
        XCTAssertFalse(paths(server.requestLog()).contains("/api/app/scenic-admin/order/list"))
        let who = SXK.run(["whoami", "--json"], in: ws, baseURL: url)
        XCTAssertEqual((try? who.json() as? [String: Any])?["roleCode"] as? String, "photographer", who.summary)
    }

    /// A role switch leaves a scenic that role has, the same one `compare --as role:` takes: a scenic
    /// the new role lacks gives way to its first, and the views agree on it (`scenic` marks it).
    func testARoleSwitchLeavesAScenicOfThatRoleAndEveryViewAgrees() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        let r = SXK.run(["-c", "scenic 2; role photographer"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("scenic 2 灵隐寺 is not one of role photographer's: now scenic 1 西湖景区"), r.summary)
        let who = try XCTUnwrap(SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(who["scenicId"] as? Int, 1)
        let list = SXK.run(["scenic", "--json"], in: ws, baseURL: url)
        let rows = try XCTUnwrap(list.json() as? [[String: Any]], list.summary)
        XCTAssertEqual(rows.filter { $0["current"] as? Bool == true }.count, 1, list.summary)
        // The one rule `compare --as role:` takes its probe's scenic from too.
        let lists = [ScenicRef(scenicId: 1, scenicName: "西湖景区")]
        XCTAssertEqual(AppModel.scenicAfterRoleSwitch(currentId: 2, currentName: "灵隐寺", roleScenics: lists).id, 1)
        XCTAssertEqual(AppModel.scenicAfterRoleSwitch(currentId: 1, currentName: "西湖景区", roleScenics: lists).id, 1)
        XCTAssertNil(AppModel.scenicAfterRoleSwitch(currentId: 2, currentName: "灵隐寺", roleScenics: []).id)
    }

    func testStoreListShowsStoresOfScenicAndOrdersSendStoreId() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let list = SXK.run(["store", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(list.status, 0, list.summary)
        let text = list.stdout
        for id in ["101", "102", "103"] { XCTAssertTrue(text.contains(id), "store \(id) missing: \(list.summary)") }
        XCTAssertFalse(text.contains("201"), "a store of scenic 2 listed: \(list.summary)")
        server.resetRequestLog()
        let r = SXK.run(["-c", "store 101; orders --limit 1 --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(server.requestLog().last { $0.path == "/api/app/store/order/list" }?.queryValue("storeId"), "101")
    }

    func testOrdersAllNdjsonCountEqualsTotal() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let r = SXK.run(["orders", "--all", "--ndjson"], in: ws, baseURL: url, timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, server.config.ordersPerRole)
        var ids = Set<Int>()
        for line in lines {
            let row = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            if let id = row.wireInt("orderId") { ids.insert(id) }
        }
        XCTAssertEqual(ids.count, server.config.ordersPerRole, "duplicate or missing order ids")
    }

    func testOrdersOutputFormatsParse() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let limited = SXK.run(["orders", "--limit", "7", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(limited.status, 0, limited.summary)
        // --limit cuts the page's list and keeps the page's shape (the same data `let` and `$_` see).
        let page = try XCTUnwrap(try limited.json() as? [String: Any], limited.summary)
        XCTAssertEqual((page["list"] as? [Any])?.count, 7, limited.summary)
        XCTAssertNotNil(page["total"], limited.summary)

        let json = SXK.run(["orders", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(json.status, 0, json.summary)
        XCTAssertNotNil(try json.json(), json.summary)

        let raw = SXK.run(["orders", "--raw"], in: ws, baseURL: url)
        XCTAssertEqual(raw.status, 0, raw.summary)
        let envelope = try XCTUnwrap(try raw.json() as? [String: Any], raw.summary)
        XCTAssertNotNil(envelope["code"], "raw output is not the envelope")
        XCTAssertNotNil(envelope["data"])

        let nd = SXK.run(["orders", "--ndjson", "--page-size", "5"], in: ws, baseURL: url)
        XCTAssertEqual(nd.status, 0, nd.summary)
        let lines = nd.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 5, nd.summary)
        for line in lines { XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) }
    }

    func testRawGetAndPost() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let get = SXK.run(["get", "/api/app/config", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(get.status, 0, get.summary)
        XCTAssertNotNil(try get.json(), get.summary)
        server.resetRequestLog()
        let post = SXK.run(["post", "/api/app/v9/set-user", "userId=3001", "accountType=store", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(post.status, 0, post.summary)
        let record = try XCTUnwrap(server.requestLog().last { $0.path == "/api/app/v9/set-user" })
        XCTAssertEqual(record.method, "POST")
        let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(record.body.utf8)) as? [String: Any], record.body)
        XCTAssertEqual(body["accountType"] as? String, "store")
        XCTAssertTrue(body["userId"] as? Int == 3001 || body["userId"] as? String == "3001", record.body)
    }

    func testUsageErrorsExitTwoWithOneLine() {
        let ws = Workspace()
        let cases: [([String], String?)] = [
            (["orders", "--limt", "3"], "--limit"),
            (["orders", "--limit"], "--limit"),
            (["frobnicate"], "frobnicate"),
            (["orders", "--limit", "abc"], nil),
            (["--timeout"], nil),
        ]
        for (args, mention) in cases {
            let r = SXK.run(args, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 2, "\(args): \(r.summary)")
            XCTAssertEqual(r.errorLines.count, 1, "\(args): \(r.summary)")
            XCTAssertEqual(r.stderrLines.count, 1, "\(args): more than one stderr line: \(r.summary)")
            if let mention { XCTAssertTrue(r.stderr.contains(mention), "\(args): \(r.summary)") }
        }
        XCTAssertEqual(server.requestLog().count, 0, "usage errors reached the server")
    }

    func testScriptStopsAtFirstFailureUnlessKeepGoing() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let script = ws.root + "/script.sxk"
        try """
        # a comment line
        whoami --json   # trailing comment
        frobnicate
        trace off
        keys --json
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let stop = SXK.run([script], in: ws, baseURL: url)
        XCTAssertEqual(stop.status, 2, stop.summary)
        XCTAssertEqual(stop.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }.count, 1, "ran past the failure: \(stop.summary)")
        let go = SXK.run(["--keep-going", script], in: ws, baseURL: url)
        XCTAssertNotEqual(go.status, 0, go.summary)
        XCTAssertEqual(go.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }.count, 2, "did not keep going: \(go.summary)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.historyFile), "a script run wrote history")
    }

    func testDashCExitCodeIsTheFailingCommands() {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let usage = SXK.run(["-c", "whoami; orders --bogus; whoami"], in: ws, baseURL: url)
        XCTAssertEqual(usage.status, 2, usage.summary)
        XCTAssertEqual(usage.stdout.components(separatedBy: "phase").count - 1, 1, "ran past the failure: \(usage.summary)")
        server.injectFault(path: "/api/yf-handset-app/photog/order/listv2", kind: .status500)
        let failed = SXK.run(["-c", "orders; whoami"], in: ws, baseURL: url)
        XCTAssertEqual(failed.status, 1, failed.summary)
        let ws2 = Workspace()
        let notLogged = SXK.run(["-c", "keys; orders"], in: ws2, baseURL: url)
        XCTAssertEqual(notLogged.status, 3, notLogged.summary)
    }

    func testPipedStdinRunsCommandsAndWritesNoHistory() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let r = SXK.run([], in: ws, baseURL: url, stdin: "whoami --json\n keys --json\n")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }.count, 2, r.summary)
        XCTAssertFalse(r.stderr.contains("›"), "a prompt was printed in pipe mode: \(r.summary)")
        let c = SXK.run(["-c", "whoami; keys"], in: ws, baseURL: url)
        XCTAssertEqual(c.status, 0, c.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.historyFile), "a non-interactive run wrote history")
        XCTAssertTrue(ws.allFiles().filter { $0.hasSuffix("history") || $0.contains("history") }.isEmpty,
                      "history files: \(ws.allFiles())")
    }

    /// A typed switch whose store list was in flight while another process logged in as another
    /// account writes nothing: the profile keeps the other login's token beside its own account,
    /// never beside this process's scope.
    func testASwitchInFlightDoesNotWriteOverAnotherAccountsLogin() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        // The user id spelled as text, as a hand-edited or foreign file may hold it: the same identity.
        try ws.setStored("key_in_user_id", "3001")
        let live = try LiveSXK([], in: ws, baseURL: url)
        live.send("whoami --jq .userId\n")
        XCTAssertTrue(live.waitForStdout { $0.contains("3001") })
        server.setLatency(milliseconds: 1500)
        live.send("store 102\n")
        Thread.sleep(forTimeInterval: 0.5)
        server.setLatency(milliseconds: 0)
        SXK.login("13800000002", in: ws, baseURL: url)
        XCTAssertNotEqual(live.finish(), 0, "the switch said it was done")
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(who["userId"] as? Int, 2001)
        XCTAssertEqual(who["roleCode"] as? String, "scenicAdmin")
        XCTAssertNil(who["storeId"] as? Int, "3001's store beside 2001's token")
    }

    /// A switch whose set-user was in flight while another process logged out writes nothing: the
    /// logout stands, and the profile is not logged in again behind the other process's back.
    func testASwitchInFlightDoesNotUndoAnotherProcesssLogout() throws {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: url, account: "1")
        let live = try LiveSXK([], in: ws, baseURL: url)
        live.send("whoami --jq .userId\n")
        XCTAssertTrue(live.waitForStdout { $0.contains("4001") })
        server.setLatency(milliseconds: 1500)
        live.send("switch-account 2\n")
        Thread.sleep(forTimeInterval: 0.5)
        server.setLatency(milliseconds: 0)
        let out = SXK.run(["logout"], in: ws, baseURL: url)
        XCTAssertEqual(out.status, 0, out.summary)
        XCTAssertNotEqual(live.finish(), 0, "the switch said it was done")
        let said = String(decoding: live.err.finish(timeout: 2), as: UTF8.self)
        XCTAssertTrue(said.contains("another sxk process logged in or out"), said)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.tokenFile), "the switch logged the profile in again")
        let who = SXK.run(["whoami", "--json"], in: ws, baseURL: url)
        XCTAssertNil((try? who.json() as? [String: Any])?["userId"] as? Int, who.summary)
    }
}
