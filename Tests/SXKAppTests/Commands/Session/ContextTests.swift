import Foundation
import SXKSandbox
import XCTest

/// Account-context debugging through the real binary: replays that change nothing unless asked,
/// every step with its basis, explain, context diff, and accounts across processes.
final class ContextTests: SandboxTestCase {
    override class var spellings: [SandboxSpelling] { SandboxSpelling.allCases }

    /// A storeAdmin's device export as the app would hold it, with a live token, then made awkward: a
    /// saved store that matches nothing, a scenic outside the role's list, a stale permission list and
    /// no common menus yet.
    private func craftedExport(_ ws: Workspace) throws -> String {
        SXK.login("13800000003", in: ws, baseURL: url)
        var device = try ws.defaultsObject()
        device["key_in_token"] = try XCTUnwrap(ws.token())
        device["key_in_current_store_id"] = 999
        device["key_in_current_scenic_id"] = 77
        device["key_in_current_scenic_name"] = "外地景区"
        device["3001_store_key_in_permission"] = [["uri": "home/old", "name": "旧", "group": "x"]]
        device.removeValue(forKey: "3001_store_role_storeAdmin_common_uris")
        for key in device.keys where key.hasPrefix("sxk_") { device.removeValue(forKey: key) }
        let file = ws.root + "/device.json"
        try JSONSerialization.data(withJSONObject: device).write(to: URL(fileURLWithPath: file))
        let imported = SXK.run(["import-defaults", file], in: ws, baseURL: url)
        XCTAssertEqual(imported.status, 0, imported.summary)
        return file
    }

    private func imported(_ args: [String], _ ws: Workspace, stdin: String = "") -> RunResult {
        SXK.run(["--profile", "imported"] + args, in: ws, baseURL: url, stdin: stdin)
    }

    func testHomeReplayLeavesAnImportedStateAsImportedAndApplyWritesExactlyItsDiff() throws {
        let ws = Workspace()
        _ = try craftedExport(ws)
        let before = imported(["keys", "--json"], ws)
        XCTAssertEqual(before.status, 0, before.summary)
        server.resetRequestLog()

        let home = imported(["home"], ws)
        XCTAssertEqual(home.status, 0, home.summary)
        XCTAssertTrue(home.stdout.contains("[documented: seed 000 §4.2]"), home.summary)
        XCTAssertTrue(home.stdout.contains("[inferred: docs/app-behaviour.md#"), home.summary)
        XCTAssertTrue(home.stdout.contains("3001_store_key_in_permission: "), home.summary)
        XCTAssertTrue(home.stdout.contains("not saved"), home.summary)
        // No validation first: only the replay's own calls (sent together: in either order).
        XCTAssertEqual(paths(server.requestLog()).sorted(), ["/api/app/store/all", "/api/yf-handset-app/role-permission"])
        let after = imported(["keys", "--json"], ws)
        XCTAssertEqual(after.stdoutData, before.stdoutData, "home changed the stored state:\n\(after.summary)")

        let offline = imported(["home", "--offline", "--json"], ws)
        XCTAssertEqual(offline.status, 0, offline.summary)
        let offlineTrace = try XCTUnwrap(try offline.json() as? [String: Any])
        XCTAssertEqual(offlineTrace["offline"] as? Bool, true)
        XCTAssertTrue(((offlineTrace["calls"] as? [[String: Any]]) ?? []).allSatisfy { $0["made"] as? Bool == false })
        XCTAssertEqual(imported(["keys", "--json"], ws).stdoutData, before.stdoutData)

        let applied = imported(["home", "--apply", "--json"], ws)
        defer {
            // The text view's first line says what --apply does, not "nothing saved".
            let appliedText = imported(["home", "--apply"], ws)
            XCTAssertTrue(appliedText.stdout.contains("--apply writes what it would store"), appliedText.summary)
            XCTAssertFalse(appliedText.stdout.contains("nothing saved"), appliedText.summary)
        }
        XCTAssertEqual(applied.status, 0, applied.summary)
        let trace = try XCTUnwrap(try applied.json() as? [String: Any])
        XCTAssertEqual(trace["applied"] as? Bool, true)
        let steps = try XCTUnwrap(trace["steps"] as? [[String: Any]])
        XCTAssertFalse(steps.isEmpty)
        for step in steps {
            XCTAssertTrue(["documented", "inferred"].contains(step["basis"] as? String ?? ""), "step without basis: \(step)")
        }
        let calls = try XCTUnwrap(trace["calls"] as? [[String: Any]])
        XCTAssertEqual(calls.compactMap { $0["order"] as? Int }, Array(1...calls.count))
        let changes = try XCTUnwrap(trace["changes"] as? [[String: Any]])
        XCTAssertEqual(Set(changes.compactMap { $0["key"] as? String }), ["3001_store_key_in_permission", "3001_store_role_storeAdmin_common_uris"])
        let keys = try XCTUnwrap(try imported(["keys", "--json"], ws).json() as? [String: Any])
        for change in changes {
            let key = try XCTUnwrap(change["key"] as? String)
            XCTAssertEqual(keys[key].map { $0 as? NSObject }, (change["after"] as? NSObject).map { $0 }, key)
        }
        // The seeds' rules: a store is written only on a match, the scenic cleared only when not valid.
        XCTAssertEqual(keys["key_in_current_store_id"] as? Int, 999)
        XCTAssertEqual(keys["key_in_current_scenic_id"] as? Int, 77)
        // Applied once, nothing is left to write.
        let again = try XCTUnwrap(try imported(["home", "--json"], ws).json() as? [String: Any])
        XCTAssertEqual((again["changes"] as? [Any])?.count, 0)
    }

    func testBootApplyWritesTheHomeDiffAndNamesTheSeedsDisagreement() throws {
        let ws = Workspace()
        _ = try craftedExport(ws)
        server.resetRequestLog()
        let text = imported(["boot"], ws)
        XCTAssertEqual(text.status, 0, text.summary)
        XCTAssertTrue(text.stdout.contains("seed 001 启动流程"), text.summary)
        XCTAssertTrue(text.stdout.contains("3001_store_role_storeAdmin_common_uris: nil → "), text.summary)
        let boot = try XCTUnwrap(try imported(["boot", "--apply", "--json"], ws).json() as? [String: Any])
        XCTAssertEqual(boot["applied"] as? Bool, true)
        XCTAssertNotNil(boot["coldStart"] as? [String: Any])
        let steps = try XCTUnwrap((boot["firstScreen"] as? [String: Any])?["steps"] as? [[String: Any]])
        XCTAssertTrue(steps.allSatisfy { $0["basis"] is String }, "\(steps)")
        let keys = try XCTUnwrap(try imported(["keys", "--json"], ws).json() as? [String: Any])
        XCTAssertEqual(keys["3001_store_role_storeAdmin_common_uris"] as? [String], ["home/deposit-order", "home/order", "home/write-off", "home/statistics"])
        XCTAssertEqual(paths(server.requestLog()), [], "boot made requests")
    }

    func testExplainVisibleAndHiddenMenusAndEachDialog() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        server.resetRequestLog()
        let visible = SXK.run(["explain", "menu", "home/order", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(visible.status, 0, visible.summary)
        let shown = try XCTUnwrap(try visible.json() as? [String: Any])
        XCTAssertTrue((shown["verdict"] as? String ?? "").contains("shown"), visible.summary)
        let hidden = SXK.run(["explain", "menu", "home/wallet"], in: ws, baseURL: url)
        XCTAssertEqual(hidden.status, 0, hidden.summary)
        XCTAssertTrue(hidden.stdout.contains("hidden"), hidden.summary)
        XCTAssertTrue(hidden.stdout.contains("2001_scenic_key_in_permission"), hidden.summary)
        XCTAssertTrue(hidden.stdout.contains("[documented: seed 000 §4.2]"), hidden.summary)
        for dialog in ["permission", "scenic", "location"] {
            let r = SXK.run(["explain", "dialog", dialog, "--json"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            let object = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
            XCTAssertTrue(object.keys.contains("dialog"), "the one answer at the top level: \(r.summary)")
            let list = try XCTUnwrap(object["explanations"] as? [[String: Any]], r.summary)
            XCTAssertEqual(list.count, 1, r.summary)
            let steps = try XCTUnwrap(list[0]["steps"] as? [[String: Any]])
            XCTAssertTrue(!steps.isEmpty && steps.allSatisfy { ["documented", "inferred"].contains($0["basis"] as? String ?? "") }, r.summary)
        }
        let all = try XCTUnwrap(try SXK.run(["explain", "dialog", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual((all["explanations"] as? [Any])?.count, 3)
        let bad = SXK.run(["explain", "dialog", "popup"], in: ws, baseURL: url)
        XCTAssertEqual(bad.status, 2, bad.summary)
        XCTAssertEqual(paths(server.requestLog()), [], "explain made requests")
    }

    func testContextDiffShowsARoleListChangedOnTheServerAndSavesNothing() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        let before = try Data(contentsOf: URL(fileURLWithPath: ws.defaultsFile))
        server.setRoles([(roleCode: "scenicAdmin", scenicIds: [2])], userId: 2001)
        defer { server.setRoles(nil, userId: 2001) }
        let r = SXK.run(["context", "diff", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let diff = try XCTUnwrap(try r.json() as? [String: Any])
        let rows = try XCTUnwrap(diff["rows"] as? [[String: Any]])
        let roles = try XCTUnwrap(rows.first { $0["key"] as? String == "2001_scenic_key_role_permission_list" }, "\(rows)")
        XCTAssertEqual(roles["same"] as? Bool, false, "\(roles)")
        let scenics = try XCTUnwrap(rows.first { $0["key"] as? String == "2001_scenic_key_current_role_scenic_list" })
        XCTAssertEqual(scenics["server"] as? String, "2")
        let next = try XCTUnwrap(diff["nextStart"] as? [[String: Any]])
        XCTAssertFalse(next.isEmpty, "no prediction for the next start: \(diff)")
        XCTAssertTrue(next.allSatisfy { $0["basis"] is String })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: ws.defaultsFile)), before, "context diff saved")
        let text = SXK.run(["context", "diff"], in: ws, baseURL: url)
        XCTAssertTrue(text.stdout.contains("DIFFERS"), text.summary)
        // Bare `context` is still the session view.
        XCTAssertTrue(SXK.run(["context"], in: ws, baseURL: url).stdout.contains("phase"))
    }

    /// No store saved reads the same whether the key is absent or holds 0 (no store, as every view
    /// reads it): the store row is `same`, as the replay writes nothing for it.
    func testContextDiffReadsAStoredZeroStoreAsNoStore() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        func storeRow() throws -> [String: Any] {
            let r = SXK.run(["context", "diff", "--json"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            let rows = try XCTUnwrap((try r.json() as? [String: Any])?["rows"] as? [[String: Any]], r.summary)
            return try XCTUnwrap(rows.first { $0["key"] as? String == "key_in_current_store_id" }, "\(rows)")
        }
        try ws.setStored("key_in_current_store_id", 0)
        XCTAssertEqual(try storeRow()["same"] as? Bool, true)
        try ws.setStored("key_in_current_store_id", NSNull())
        XCTAssertEqual(try storeRow()["same"] as? Bool, true)
        try ws.setStored("key_in_current_store_id", 999)
        XCTAssertEqual(try storeRow()["same"] as? Bool, false)
    }

    /// Both sides of a difference are shown whole: the key the next start writes in `--json` and piped
    /// text alike, and the rows at a narrow width as records (a cut to the same prefix would hide it).
    func testContextDiffShowsBothSidesOfADifferenceWhole() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let key = "3001_store_key_in_permission"
        let stored = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(ws.read(ws.defaultsFile))) as? [String: Any])
        let list = try XCTUnwrap(stored[key] as? [Any])
        try ws.setStored(key, Array(list.dropLast()))
        let last = try XCTUnwrap((list.last as? [String: Any])?["uri"] as? String)
        let json = try XCTUnwrap(try SXK.run(["context", "diff", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        let next = try XCTUnwrap(json["nextStart"] as? [[String: Any]])
        let change = try XCTUnwrap(next.first { $0["key"] as? String == key }, "\(next)")
        XCTAssertTrue((change["value"] as? String)?.contains(last) ?? false, "\(change)")
        XCTAssertFalse((change["value"] as? String)?.contains("…") ?? true, "\(change)")
        let piped = SXK.run(["context", "diff"], in: ws, baseURL: url)
        XCTAssertTrue(piped.stdout.contains(last), piped.summary)
    }

    /// A store list that fails is said by `context diff` as `home` says it: the same dialog, exit 1,
    /// the rows of the calls that were answered, not the error alone.
    func testContextDiffGoesOnWhenTheStoreListFailsAsHomeDoes() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        server.injectFault(SandboxFault(path: "/api/app/store/all", kind: .status500))
        let home = SXK.run(["home", "--json"], in: ws, baseURL: url)
        server.clearFaults()
        server.injectFault(SandboxFault(path: "/api/app/store/all", kind: .status500))
        let diff = SXK.run(["context", "diff", "--json"], in: ws, baseURL: url)
        server.clearFaults()
        XCTAssertEqual(home.status, 1, home.summary)
        XCTAssertEqual(diff.status, 1, diff.summary)
        let homeDialog = (try home.json() as? [String: Any])?["dialog"]
        let shown = try XCTUnwrap(try diff.json() as? [String: Any], diff.summary)
        XCTAssertFalse((shown["rows"] as? [Any] ?? []).isEmpty, diff.summary)
        let next = try XCTUnwrap(shown["nextStart"] as? [[String: Any]], diff.summary)
        let dialog = try XCTUnwrap(next.compactMap { $0["value"] as? String }.first { $0.hasPrefix("dialog:") }, diff.summary)
        XCTAssertEqual(dialog, "dialog: \((homeDialog as? String) ?? "none")", diff.summary)
    }

    func testSwitchAccountAndCompareByAccountInNewProcesses() throws {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: url, account: "1")
        // A new process: the account list comes from the profile.
        let switched = SXK.run(["switch-account", "2"], in: ws, baseURL: url)
        XCTAssertEqual(switched.status, 0, switched.summary)
        XCTAssertTrue(switched.stderr.contains("user 4002"), switched.summary)
        // The app sends set-user with the login's temporary token; this process has none and says so.
        XCTAssertTrue(switched.stderr.contains("set-user was sent with the current formal token")
                      && switched.stderr.contains("[inferred: docs/app-behaviour.md#switch-account]"), switched.summary)
        let compare = SXK.run(["compare", "--as", "account:1,account:3", "--json", "--", "orders", "--page-size", "3"], in: ws, baseURL: url)
        XCTAssertEqual(compare.status, 0, compare.summary)
        XCTAssertTrue(compare.stdout.contains("4001") && compare.stdout.contains("4003"), compare.summary)
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(who["userId"] as? Int, 4002, "compare changed the session")

        // No token of the new process is accepted any more: the password is needed once.
        server.expireTokens()
        let noTerminal = SXK.run(["switch-account", "3"], in: ws, baseURL: url)
        XCTAssertEqual(noTerminal.status, 2, noTerminal.summary)
        XCTAssertTrue(noTerminal.stderr.contains("--password-stdin"), noTerminal.summary)
        let wrong = SXK.run(["switch-account", "3", "--password-stdin"], in: ws, baseURL: url, stdin: "wrong\n")
        XCTAssertNotEqual(wrong.status, 0, wrong.summary)
        XCTAssertFalse(wrong.stdout.contains("wrong") || wrong.stderr.contains("wrong\n"), wrong.summary)
        let again = SXK.run(["switch-account", "3", "--password-stdin"], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(again.status, 0, again.summary)
        XCTAssertTrue(again.stderr.contains("user 4003"), again.summary)
        // The phone the password belongs to is shown masked, as every other line shows it.
        XCTAssertTrue(again.stderr.contains("password of 138****0004 needed once"), again.summary)
        XCTAssertFalse(again.stderr.contains("13800000004"), again.summary)
        XCTAssertFalse(again.stderr.contains("formal token"), "a fresh login's temporary token was used: \(again.summary)")
        XCTAssertFalse(again.stdout.contains(SXK.password) || again.stderr.contains(SXK.password), again.summary)

        // compare --as account: in a new process logs in again once with the password from stdin,
        // probes both accounts and leaves the session on the account it was on.
        server.expireTokens()
        let compareNoPassword = SXK.run(["compare", "--as", "account:1,account:2", "--", "orders", "--page-size", "3"], in: ws, baseURL: url)
        XCTAssertEqual(compareNoPassword.status, 2, compareNoPassword.summary)
        let comparePassword = SXK.run(["compare", "--as", "account:1,account:2", "--password-stdin", "--json", "--", "orders", "--page-size", "3"],
                                      in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(comparePassword.status, 0, comparePassword.summary)
        XCTAssertTrue(comparePassword.stdout.contains("4001") && comparePassword.stdout.contains("4002"), comparePassword.summary)
        XCTAssertFalse(comparePassword.stdout.contains(SXK.password) || comparePassword.stderr.contains(SXK.password), comparePassword.summary)
        let after = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(after["userId"] as? Int, 4003, "compare changed the session")
    }

    func testKeysRightAfterLoginShowTheCommonMenuKey() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        let keys = try XCTUnwrap(try SXK.run(["keys", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual((keys["2001_scenic_role_scenicAdmin_common_uris"] as? [String])?.count, 4, "\(keys.keys.sorted())")
    }
}
