import Foundation
import SXKSandbox
import XCTest

/// A support engineer's input as it really comes: a device export written as a binary plist (the
/// permission lists as JSON Data, as the app stores them) whose token the server no longer accepts.
/// Every command that only inspects leaves the imported profile byte for byte as imported.
final class DeviceSnapshotTests: SandboxTestCase {
    override class var spellings: [SandboxSpelling] { SandboxSpelling.allCases }

    /// The app's keys for storeAdmin 3001 of 千岛湖 (scenic 1), a token the sandbox never issued, the
    /// role-permission list without an entry for the current role's scenic list, and a queue setting.
    private func writeExport(_ ws: Workspace, token: String = "stale-device-token-0123456789abcdef", dropping: [String] = [], store: Int = 301,
                             adding extra: [String: Any] = [:]) throws -> String {
        func json(_ value: Any) throws -> Data { try JSONSerialization.data(withJSONObject: value) }
        let permissions: [[String: Any]] = [["uri": "home/order", "name": "订单", "group": "home"], ["uri": "home/stats", "name": "数据", "group": "home"]]
        let roles: [[String: Any]] = [["roleCode": "storeAdmin", "roleName": "门店管理员", "scenicList": [["scenicId": 1, "scenicName": "西湖景区"]], "permissions": permissions]]
        let device: [String: Any] = [
            "key_in_token": token,
            "key_last_login_username": "13800000003",
            "key_privacy_agreement_accepted": true,
            "key_in_user_id": 3001,
            "key_in_user_name": "store3001",
            "key_in_real_name": "王店长",
            "key_in_phone": "13800000003",
            "key_in_account_type": "store",
            "key_in_account_display_name": "湖畔影棚 · 门店管理员",
            "key_in_role_code": "storeAdmin",
            "key_in_role_name": "门店管理员",
            "key_in_current_scenic_id": 1,
            "key_in_current_scenic_name": "西湖景区",
            "key_in_current_store_id": store,
            "3001_store_key_role_permission_list": try json(roles),
            "3001_store_key_in_permission": try json(permissions),
            "3001_store_key_current_role_scenic_list": try json([["scenicId": 1, "scenicName": "西湖景区"]]),
            "3001_store_key_location_reminder_minutes": 30,
            "3001_store_queue_call_voice_enabled": true,
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: device.filter { !dropping.contains($0.key) }.merging(extra) { $1 },
                                                      format: .binary, options: 0)
        XCTAssertEqual(Array(data.prefix(8)), Array("bplist00".utf8))
        let file = ws.root + "/device.plist"
        try data.write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The profile's files, by name, as bytes (nil when absent).
    private func files(_ ws: Workspace, profile: String) -> [String: Data?] {
        let dir = ws.stateDir + "/" + profile
        var out: [String: Data?] = [:]
        for name in ["defaults.json", "token", "accounts.json"] {
            out[name] = FileManager.default.contents(atPath: dir + "/" + name)
        }
        return out
    }

    /// A snapshot without a token shown with another backend named keeps the backend it was imported
    /// with (only switches and --apply write a snapshot); a profile named by mistake is not made.
    func testShowingASnapshotOrAProfileThatIsNotThereWithAnotherBackendWritesNothing() throws {
        let ws = Workspace()
        let file = try writeExport(ws, dropping: ["key_in_token"])
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url).status, 0)
        let backend = ws.stateDir + "/device/backend.json"
        let recorded = try XCTUnwrap(FileManager.default.contents(atPath: backend))
        let listed = try FileManager.default.contentsOfDirectory(atPath: ws.stateDir).sorted()
        let other = URL(string: "http://127.0.0.1:9")!
        for args in [["--profile", "device", "whoami"], ["--profile", "device", "keys"], ["--profile", "device", "-c", "boot; role; explain dialog"],
                     ["--profile", "typo", "whoami"], ["--profile", "typo", "-c", "keys; context"], ["boot"]] {
            let r = SXK.run(args, in: ws, baseURL: other)
            XCTAssertFalse(r.uncaughtSignal || r.timedOut, r.summary)
            XCTAssertEqual(FileManager.default.contents(atPath: backend), recorded, "\(args): \(r.summary)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: ws.stateDir).sorted(), listed, "\(args): \(r.summary)")
        }
        // Named alone, the snapshot goes back to the backend it was imported with.
        let who = SXK.run(["--profile", "device", "whoami", "--json"], in: ws, baseURL: nil)
        XCTAssertEqual((try who.json() as? [String: Any])?["baseURL"] as? String, url.absoluteString, who.summary)
    }

    func testInspectingAnImportWithARejectedTokenChangesNothing() throws {
        let ws = Workspace()
        let file = try writeExport(ws)
        let imported = SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url)
        XCTAssertEqual(imported.status, 0, imported.summary)
        XCTAssertTrue(imported.stdout.contains("3001_store_queue_call_voice_enabled") || imported.stderr.contains("3001_store_queue_call_voice_enabled"),
                      "the queue setting is kept and named: \(imported.summary)")
        let before = files(ws, profile: "device")
        XCTAssertNotNil(before["defaults.json"] ?? nil)
        XCTAssertNotNil(before["token"] ?? nil)
        let inspecting: [[String]] = [
            ["home"], ["home", "--offline"], ["boot"], ["explain", "dialog"], ["context", "diff"], ["whoami"], ["keys"],
            ["location"], ["role"], ["permissions"], ["menus"], ["orders"], ["stats"], ["profile"],
        ]
        var changed: [String] = []
        for args in inspecting {
            let r = SXK.run(["--profile", "device"] + args, in: ws, baseURL: url)
            XCTAssertFalse(r.uncaughtSignal || r.timedOut, r.summary)
            if files(ws, profile: "device") != before { changed.append(args.joined(separator: " ")) }
        }
        XCTAssertEqual(changed, [], "inspecting commands changed the import")

        // The same in one REPL-like process: -c runs them in turn on the same state.
        let script = inspecting.map { $0.joined(separator: " ") }.joined(separator: "; ")
        let one = SXK.run(["--profile", "device", "--keep-going", "-c", script], in: ws, baseURL: url)
        XCTAssertFalse(one.uncaughtSignal || one.timedOut, one.summary)
        XCTAssertEqual(files(ws, profile: "device"), before, "a session of inspecting commands changed the import:\n\(one.summary)")

        // Once the server rejected the snapshot's token, this process goes on logged out, as it says:
        // the token is not sent again (one validation), and the file keeps it.
        server.resetRequestLog()
        let again = SXK.run(["--profile", "device", "--keep-going", "-c", "orders; stats; profile; orders; whoami --jq .phase"], in: ws, baseURL: url)
        XCTAssertTrue(again.stderr.contains("this process goes on logged out"), again.summary)
        XCTAssertEqual(server.requestLog().filter { $0.path == "/api/yf-handset-app/userinfo" }.count, 1, "\(server.requestLog().map(\.path))")
        XCTAssertTrue(server.requestLog().allSatisfy { !$0.path.contains("analyse") && !$0.path.contains("order/list") && !$0.path.contains("real-name") }, "\(server.requestLog().map(\.path))")
        XCTAssertTrue(again.stdout.hasSuffix("loggedOut\n"), again.summary)
        XCTAssertEqual(files(ws, profile: "device"), before)

        // whoami shows the snapshot's account whatever its token, and says it is a snapshot.
        let who = SXK.run(["--profile", "device", "whoami", "--json"], in: ws, baseURL: url)
        let fields = try XCTUnwrap(try who.json() as? [String: Any], who.summary)
        XCTAssertEqual(fields["userId"] as? Int, 3001)
        XCTAssertEqual(fields["roleCode"] as? String, "storeAdmin")
        XCTAssertEqual(fields["storeId"] as? Int, 301)
        XCTAssertTrue((fields["deviceSnapshot"] as? String ?? "").contains("device.plist"), who.summary)

        // context diff as rows for a script: no server side to compare, so the header and no row, exit
        // 0 as the table view — not a usage error decided by what the server answered.
        for format in ["--csv", "--tsv"] {
            let rows = SXK.run(["--profile", "device", "context", "diff", format], in: ws, baseURL: url)
            XCTAssertEqual(rows.status, 0, rows.summary)
            XCTAssertEqual(rows.stdout, format == "--csv" ? "key,stored,server,same\n" : "key\tstored\tserver\tsame\n", rows.summary)
        }

        // home with the rejected token: the server's answer and what the app would do are steps.
        let home = SXK.run(["--profile", "device", "home", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(home.status, 0, home.summary)
        let trace = try XCTUnwrap(try home.json() as? [String: Any], home.summary)
        XCTAssertEqual(trace["sessionExpired"] as? Bool, true, home.summary)
        XCTAssertTrue(trace["dialog"] is NSNull, home.summary)
        let steps = try XCTUnwrap(trace["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.last?["source"] as? String, "seed 000 §1, §2", home.summary)

        // keys lists the app's keys only; sxk's bookkeeping with --all.
        let keys = try XCTUnwrap(try SXK.run(["--profile", "device", "keys", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertFalse(keys.keys.contains { $0.hasPrefix("sxk_") }, "\(keys.keys.sorted())")
        XCTAssertEqual(keys["3001_store_queue_call_voice_enabled"] as? Bool, true)
        let all = try XCTUnwrap(try SXK.run(["--profile", "device", "keys", "--all", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertTrue(all.keys.contains("sxk_imported_from"))

        // The unmodelled key is explained as the app's, in the account's scope.
        let explain = SXK.run(["--profile", "device", "explain", "key", "3001_store_queue_call_voice_enabled"], in: ws, baseURL: url)
        XCTAssertTrue(explain.stdout.contains("in account scope 3001_store but not modelled by sxk"), explain.summary)
        XCTAssertFalse(explain.stdout.contains("not a key of the app's AppStore [documented"), explain.summary)
        // No seed names it: neither its value's reading nor its being the app's is documented.
        XCTAssertFalse(explain.stdout.contains("[documented: seed"), explain.summary)

        // A switch the user types writes; and the next inspection starts from it.
        let scenic = SXK.run(["--profile", "device", "store", "301"], in: ws, baseURL: url)
        XCTAssertFalse(scenic.uncaughtSignal, scenic.summary)
        XCTAssertEqual(files(ws, profile: "device")["token"] ?? nil, before["token"] ?? nil, "a rejected token is never cleared from a snapshot")
    }

    /// Without a token the snapshot's account still shows: whoami, the prompt's scope, the replays.
    /// One process, every view, after the server rejected the snapshot's token: the token went out
    /// once, and every view says what the rejection means (the login page), none an offline answer.
    func testEveryViewAgreesOnceTheTokenWasRejected() throws {
        let ws = Workspace()
        let file = try writeExport(ws)
        XCTAssertEqual(SXK.run(["import-defaults", file], in: ws, baseURL: url).status, 0)
        server.resetRequestLog()
        let views = "home; context diff; home; home --offline; orders; boot; explain dialog; menus; location online; whoami --jq .phase"
        let r = SXK.run(["--profile", "imported", "--keep-going", "-c", views], in: ws, baseURL: url)
        let withToken = server.requestLog().filter { ($0.header("token") ?? $0.header("authorization") ?? "").contains("stale-device-token") }
        // The first home's calls go out together (the store list beside the permission load, cancelled
        // when the rejection comes first); nothing after them carries the token.
        let paths = withToken.map(\.path)
        XCTAssertEqual(paths.filter { $0 == "/api/yf-handset-app/role-permission" }.count, 1, "the rejected token was sent again\n\(r.summary)")
        XCTAssertEqual(Set(paths).subtracting(["/api/app/store/all"]), ["/api/yf-handset-app/role-permission"], r.summary)
        XCTAssertLessThanOrEqual(paths.count, 2, r.summary)
        XCTAssertFalse(r.stdout.contains("offline: no call made"), r.summary)
        XCTAssertFalse(r.stdout.contains("no dialog: permission"), r.summary)
        XCTAssertEqual(r.stdout.components(separatedBy: "shows the login page").count - 1, 6, r.summary)
        // orders and location online: one line each, the same one (menus shows the import's, as
        // permissions does: a snapshot's account is read for every view).
        XCTAssertEqual(r.stderr.components(separatedBy: "rejected this profile's token earlier (kept").count - 1, 2, r.summary)
        // context diff, asked again, says it made no call and shows the token's change masked.
        XCTAssertTrue(r.stdout.contains("no call made (the server rejected this token earlier in this process)"), r.summary)
        XCTAssertTrue(r.stdout.contains("key_in_token = *** → nil"), r.summary)
        XCTAssertEqual(r.status, 3, r.summary)
        XCTAssertTrue(r.stdout.hasSuffix("loggedOut\n"), r.summary)
    }

    /// With a token the server accepts, `store` (the list) and `profile` write nothing into the
    /// snapshot's folder, sxk's completion cache included, and `profile` says its write is held.
    func testShowingStoresAndProfileOfALiveSnapshotWritesNothing() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.login("13800000003", in: ws, baseURL: url).status, 0)
        let tokenFile = try XCTUnwrap(FileManager.default.enumerator(atPath: ws.stateDir)?.compactMap { $0 as? String }.first { $0.hasSuffix("/token") })
        let token = try String(contentsOfFile: ws.stateDir + "/" + tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws, token: token), "--profile", "device"], in: ws, baseURL: url).status, 0)
        let dir = ws.stateDir + "/device"
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        let contents = files(ws, profile: "device")
        let stores = SXK.run(["--profile", "device", "store"], in: ws, baseURL: url)
        XCTAssertEqual(stores.status, 0, stores.summary)
        XCTAssertTrue(stores.stdout.contains("101"), stores.summary)
        let profile = SXK.run(["--profile", "device", "profile"], in: ws, baseURL: url)
        XCTAssertEqual(profile.status, 0, profile.summary)
        XCTAssertTrue(profile.stderr.contains("not written: a device snapshot"), profile.summary)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), before)
        XCTAssertEqual(files(ws, profile: "device"), contents)

        // No role stored: the validation's permission load takes the first entry, and says so.
        let noRole = try writeExport(ws, token: token, dropping: ["key_in_role_code", "key_in_role_name"])
        XCTAssertEqual(SXK.run(["import-defaults", noRole, "--profile", "norole"], in: ws, baseURL: url).status, 0)
        let orders = SXK.run(["--profile", "norole", "profile"], in: ws, baseURL: url)
        XCTAssertEqual(orders.status, 0, orders.summary)
        XCTAssertTrue(orders.stderr.contains("no current role: the first entry storeAdmin became the role"), orders.summary)

        // No scenic chosen: the store list is every store the server sent, and says so.
        let noScenic = try writeExport(ws, token: token, dropping: ["key_in_current_scenic_id", "key_in_current_scenic_name", "key_in_current_store_id"])
        XCTAssertEqual(SXK.run(["import-defaults", noScenic, "--profile", "noscenic"], in: ws, baseURL: url).status, 0)
        let all = SXK.run(["--profile", "noscenic", "store"], in: ws, baseURL: url)
        XCTAssertEqual(all.status, 0, all.summary)
        XCTAssertTrue(all.stderr.contains("no valid current scenic: every store the server sent"), all.summary)
    }

    func testAnImportWithoutATokenStillShowsItsAccount() throws {
        let ws = Workspace()
        let file = try writeExport(ws)
        var plist = try XCTUnwrap(try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: file)), format: nil) as? [String: Any])
        plist.removeValue(forKey: "key_in_token")
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(SXK.run(["import-defaults", file], in: ws, baseURL: url).status, 0)
        let who = SXK.run(["--profile", "imported", "whoami", "--json"], in: ws, baseURL: url)
        let fields = try XCTUnwrap(try who.json() as? [String: Any], who.summary)
        XCTAssertEqual(fields["phase"] as? String, "loggedOut")
        XCTAssertEqual(fields["userId"] as? Int, 3001, who.summary)
        XCTAssertEqual(fields["accountType"] as? String, "store")
        XCTAssertEqual(fields["roleCode"] as? String, "storeAdmin")
        XCTAssertEqual(fields["scenicId"] as? Int, 1)
        XCTAssertEqual(fields["storeId"] as? Int, 301)
        XCTAssertEqual(fields["permissionCount"] as? Int, 2)
        let boot = try XCTUnwrap(try SXK.run(["--profile", "imported", "boot", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertTrue(boot["dialog"] is NSNull, "the login page has no home dialog")
    }

    /// `history --here` reads the scope as the prompt does: a stored store 0 is no store, and a scenic
    /// the app does not count as valid is `?` (not its stored name).
    func testHistoryHereReadsTheScopeAsThePromptDoes() throws {
        let ws = Workspace()
        let file = try writeExport(ws, store: 0, adding: ["key_in_current_scenic_id": -1])
        XCTAssertEqual(SXK.run(["import-defaults", file], in: ws, baseURL: url).status, 0)
        func line(_ command: String, _ context: String) -> String {
            (command + "\t#@sxk " + context).replacingOccurrences(of: " ", with: "\\040").replacingOccurrences(of: "\t", with: "\\011")
        }
        let here = #"{"profile":"imported","role":"storeAdmin","scenicName":"?"}"#
        let store0 = #"{"profile":"imported","role":"storeAdmin","scenicId":"-1","scenicName":"西湖景区","storeId":"0"}"#
        let history = ["_HiStOrY_V2_", line("orders", here), line("stats", store0)].joined(separator: "\n") + "\n"
        try FileManager.default.createDirectory(atPath: ws.stateDir + "/imported", withIntermediateDirectories: true)
        try history.write(toFile: ws.stateDir + "/imported/history", atomically: true, encoding: .utf8)
        let r = SXK.run(["--profile", "imported", "history", "--here", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let rows = try XCTUnwrap(try r.json() as? [[String: Any]], r.summary)
        XCTAssertEqual(rows.map { $0["line"] as? String }, ["orders"], r.summary)
    }

    /// An export without a user id: its scope is `guest`, so the import says its account's scoped keys
    /// are read by no view; `role`, which then asks the server for the list none stores, says its rows
    /// are the server's answer and not saved into the snapshot, while `permissions` shows the stored none.
    func testAnExportWithoutAUserIdSaysItsScopedKeysAreNotReadAndRoleSaysItsRowsAreTheServers() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.login("13800000003", in: ws, baseURL: url).status, 0)
        let token = try XCTUnwrap(ws.token())
        let file = try writeExport(ws, token: token, dropping: ["key_in_user_id"], store: 101)
        let imported = SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url)
        XCTAssertEqual(imported.status, 0, imported.summary)
        XCTAssertTrue(imported.stderr.contains("warning: the export has no key_in_user_id, so its account scope is guest")
                      && imported.stderr.contains("3001_store_key_role_permission_list"), imported.summary)
        let before = files(ws, profile: "device")
        let r = SXK.run(["--profile", "device", "-c", "role --jq length; permissions --jq length"], in: ws, baseURL: url)
        XCTAssertEqual(r.stdout, "1\n0\n", r.summary)
        XCTAssertTrue(r.stderr.contains("these roles are the server's answer now (GET role-permission), not saved into the device snapshot"), r.summary)
        XCTAssertEqual(files(ws, profile: "device"), before)
        // A complete export says neither.
        let whole = SXK.run(["import-defaults", try writeExport(ws, token: token, store: 101), "--profile", "whole"], in: ws, baseURL: url)
        XCTAssertFalse(whole.stderr.contains("account scope is guest"), whole.summary)
    }

    /// A stored empty role code is no role in `explain scope` too, said as such rather than printed as nothing.
    func testExplainScopeSaysAnEmptyRoleIsNone() throws {
        let ws = Workspace()
        let file = try writeExport(ws, adding: ["key_in_role_code": ""])
        XCTAssertEqual(SXK.run(["import-defaults", file], in: ws, baseURL: url).status, 0)
        let r = SXK.run(["--profile", "imported", "explain", "scope"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stdout.contains("role none (stored empty), scenic 1"), r.summary)
        XCTAssertTrue(r.stdout.contains(#"key_in_role_code = "" (empty: no role)"#), r.summary)
        let menu = SXK.run(["--profile", "imported", "explain", "menu", "home/order"], in: ws, baseURL: url)
        XCTAssertTrue(menu.stdout.contains("the permissions stored with no role") && !menu.stdout.contains("role 's"), menu.summary)
    }

    /// What a review found: context diff on a rejected token credits the expiry, sxk's per-account keys
    /// are not shown as the app's, a refused `menus common add` writes nothing, the one-shot hint names
    /// the profile, and the offline stand-in is marked inferred in every view.
    func testReviewFindingsOnASnapshot() throws {
        let ws = Workspace()
        let file = try writeExport(ws)
        let imported = SXK.run(["import-defaults", file], in: ws, baseURL: url)
        XCTAssertTrue(imported.stderr.contains("--profile imported whoami"), imported.summary)
        let diff = try XCTUnwrap(try SXK.run(["--profile", "imported", "context", "diff", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        let next = try XCTUnwrap(diff["nextStart"] as? [[String: Any]])
        let cleared = next.filter { ($0["value"] as? String ?? "").hasSuffix("→ nil") }
        XCTAssertFalse(cleared.isEmpty, "\(next)")
        // Which keys an expiry clears is sxk's reading, said as such (as `explain key` says it).
        XCTAssertTrue(cleared.allSatisfy { $0["basis"] as? String == "inferred" && $0["source"] as? String == "docs/app-behaviour.md#logout" }, "\(cleared)")
        let text = SXK.run(["--profile", "imported", "context", "diff"], in: ws, baseURL: url)
        XCTAssertFalse(text.stdout.contains("SERVER NOW"), "an empty table header: \(text.summary)")
        let offline = SXK.run(["--profile", "imported", "home", "--offline"], in: ws, baseURL: url)
        let permissionHead = offline.stdout.split(separator: "\n").first { $0.contains("loadPermissions(api:force: true)") } ?? ""
        XCTAssertTrue(permissionHead.contains("[inferred: docs/app-behaviour.md#replays]"), String(permissionHead))
        let explained = SXK.run(["--profile", "imported", "explain", "dialog", "permission"], in: ws, baseURL: url)
        let load = explained.stdout.split(separator: "\n").first { $0.contains("key_role_permission_list") } ?? ""
        XCTAssertTrue(load.contains("[inferred: docs/app-behaviour.md#replays]"), String(load))

        // A refused add writes nothing, not even the default record.
        let before = try Data(contentsOf: URL(fileURLWithPath: ws.stateDir + "/imported/defaults.json"))
        let add = SXK.run(["--profile", "imported", "menus", "common", "add", "home/order"], in: ws, baseURL: url)
        // A value that cannot be used: 2, as removing one that is not there is.
        XCTAssertEqual(add.status, 2, add.summary)
        XCTAssertTrue(add.stderr.contains("already among the common menus"), add.summary)
        let remove = SXK.run(["--profile", "imported", "menus", "common", "remove", "home/wallet"], in: ws, baseURL: url)
        XCTAssertEqual(remove.status, 2, remove.summary)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: ws.stateDir + "/imported/defaults.json")), before, "a refused add wrote")
    }

    /// The basis is true: `documented` only where the launch document says it.
    func testExplainKeyMarksSxksOwnChoicesInferred() throws {
        let ws = Workspace()
        let file = try writeExport(ws)
        XCTAssertEqual(SXK.run(["import-defaults", file], in: ws, baseURL: url).status, 0)
        let type = SXK.run(["--profile", "imported", "explain", "key", "key_in_account_type"], in: ws, baseURL: url)
        XCTAssertTrue(type.stdout.contains("no default when missing"), type.summary)
        let line = type.stdout.split(separator: "\n").first { $0.contains("no default when missing") } ?? ""
        XCTAssertTrue(line.contains("[inferred: docs/app-behaviour.md#storage]"), String(line))
        let role = SXK.run(["--profile", "imported", "explain", "key", "key_in_role_code"], in: ws, baseURL: url)
        let switchLine = role.stdout.split(separator: "\n").first { $0.contains("role switch") } ?? ""
        XCTAssertTrue(switchLine.contains("[inferred"), String(switchLine))
        let name = SXK.run(["--profile", "imported", "explain", "key", "key_in_role_name"], in: ws, baseURL: url)
        let matched = name.stdout.split(separator: "\n").first { $0.contains("current role's entry matched") } ?? ""
        XCTAssertTrue(matched.contains("[inferred"), String(matched))
    }
}

extension DeviceSnapshotTests {
    /// What a process learnt of a token stays learnt when it comes back to the profile: after `env
    /// use` away and back (new services), the live profile's rejected token is still not sent, and
    /// the files the replay left are still there.
    func testARejectedTokenStaysKnownAcrossEnvUse() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.login("13800000001", in: ws, baseURL: url).status, 0)
        let token = try XCTUnwrap(ws.token())
        server.expireTokens()
        server.resetRequestLog()
        let before = ws.read(ws.defaultsFile)
        let r = SXK.run(["--keep-going", "-c", "home; env use test; env use \(url.absoluteString); orders --page-size 1; menus; location online"], in: ws, baseURL: url)
        let sent = server.requestLog().filter { $0.header("token") == token }.map(\.path)
        XCTAssertEqual(sent, ["/api/yf-handset-app/role-permission"], r.summary)
        // orders, menus and location online say the same one line (a live profile's session is gone).
        XCTAssertEqual(r.stderr.components(separatedBy: "rejected this profile's token earlier (kept").count - 1, 3, r.summary)
        XCTAssertEqual(ws.token(), token, "the replay's profile lost its token: \(r.summary)")
        XCTAssertEqual(ws.read(ws.defaultsFile), before, "a refused switch wrote the profile")
    }
}

extension DeviceSnapshotTests {
    /// After a replay saw the token rejected, `accounts` lists the profile's kept account list, the
    /// one `switch-account` uses, not "no list".
    func testAccountsAfterARejectionListTheKeptList() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.login("13800000004", in: ws, baseURL: url, account: "3").status, 0)
        server.expireTokens()
        let r = SXK.run(["-c", "home --jq .sessionExpired; accounts --jq length; whoami --jq .tokenRejected"], in: ws, baseURL: url)
        // whoami says it too, as the prompt does.
        XCTAssertEqual(r.stdout, "true\n3\ntrue\n", r.summary)
    }
}

extension DeviceSnapshotTests {
    /// `--revalidate whoami` on a snapshot whose stored lists are empty while the server has the role's
    /// permissions: the validation says whether the token holds (exit 0, logged in), and the view
    /// shows the snapshot as imported, as `permissions`, `role` and `boot` in the same process do and
    /// as `whoami` does after a server command validated it.
    func testARevalidatedWhoamiShowsTheSnapshotAsEveryOtherView() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.login("13800000003", in: ws, baseURL: url).status, 0)
        let token = try XCTUnwrap(ws.token())
        let export = try writeExport(ws, token: token, store: 101, adding: [
            "3001_store_key_role_permission_list": Data("[]".utf8), "3001_store_key_in_permission": Data("[]".utf8),
        ])
        XCTAssertEqual(SXK.run(["import-defaults", export, "--profile", "device"], in: ws, baseURL: url).status, 0)
        let contents = files(ws, profile: "device")
        let counts = "whoami --jq '[.phase, .permissionCount, .roleCount]'; permissions --jq length; role --jq length"
        let revalidated = SXK.run(["--profile", "device", "--revalidate", "-c", counts], in: ws, baseURL: url)
        let afterOrders = SXK.run(["--profile", "device", "-c", "orders --page-size 1 --jq .total; " + counts], in: ws, baseURL: url)
        XCTAssertEqual(revalidated.status, 0, revalidated.summary)
        XCTAssertEqual(revalidated.stdout, "[\"loggedIn\",0,0]\n0\n0\n", revalidated.summary)
        XCTAssertEqual(afterOrders.stdout.split(separator: "\n").dropFirst().joined(separator: "\n"), "[\"loggedIn\",0,0]\n0\n0", afterOrders.summary)
        XCTAssertEqual(files(ws, profile: "device"), contents)
        // A validation answered with an error: the view says offline, as its warning and status (1) do.
        server.injectFault(path: "/api/yf-handset-app/userinfo", kind: .status500)
        let offline = SXK.run(["--profile", "device", "--revalidate", "whoami", "--jq", "[.phase, .offline]"], in: ws, baseURL: url)
        XCTAssertEqual(offline.status, 1, offline.summary)
        XCTAssertEqual(offline.stdout, "[\"loggedIn\",true]\n", offline.summary)
        XCTAssertEqual(files(ws, profile: "device"), contents)
    }
}

extension DeviceSnapshotTests {
    /// A snapshot's token is validated once a process: each command starts from the state as imported,
    /// and later server commands run on what that validation loaded (here the role it derived, none
    /// being stored) without sending userinfo, role-permission and the store list again. A switch
    /// written into the snapshot and `--revalidate` validate again; nothing else is written.
    func testASnapshotIsValidatedOnceAProcess() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.login("13800000003", in: ws, baseURL: url).status, 0)
        let token = try XCTUnwrap(ws.token())
        let export = try writeExport(ws, token: token, dropping: ["key_in_role_code", "key_in_role_name"], store: 101)
        XCTAssertEqual(SXK.run(["import-defaults", export, "--profile", "device"], in: ws, baseURL: url).status, 0)
        let contents = files(ws, profile: "device")
        func validations() -> Int { server.requestLog().filter { $0.path == "/api/yf-handset-app/role-permission" }.count }

        server.resetRequestLog()
        let r = SXK.run(["--profile", "device", "-c", "orders --page-size 1; stats; whoami --jq .source; profile; orders --page-size 1"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(validations(), 1, r.summary)
        XCTAssertEqual(server.requestLog().filter { $0.path == "/api/app/store/all" }.count, 1, r.summary)
        // Every server command ran as the role the validation derived, and says so as the first did.
        XCTAssertEqual(server.requestLog().filter { $0.path == "/api/app/store/order/list" }.map { $0.queryValue("storeId") }, ["101", "101"], r.summary)
        XCTAssertEqual(r.stderr.components(separatedBy: "no current role: the first entry storeAdmin became the role").count - 1, 4, r.summary)
        XCTAssertTrue(r.stdout.contains("its token accepted by the server in this process"), r.summary)
        XCTAssertEqual(files(ws, profile: "device"), contents)
        // Asked in one command or after another validated: the same answer, no save claimed (nothing is saved).
        for script in ["whoami --json", "store; whoami --json"] {
            let who = SXK.run(["--profile", "device", "--revalidate", "-c", script], in: ws, baseURL: url)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((who.stdout.split(separator: "\n").last { $0.hasPrefix("{") } ?? "").utf8)) as? [String: Any], who.summary)
            XCTAssertTrue(object["snapshotAgeSeconds"] is NSNull, "\(script): \(object)")
            XCTAssertNotNil(object["validatedAgeSeconds"] as? Int, "\(script): \(object)")
            XCTAssertTrue((object["source"] as? String)?.hasSuffix("inspected on a copy; its token accepted by the server in this process") ?? false, "\(script): \(object)")
        }
        XCTAssertEqual(files(ws, profile: "device"), contents)

        server.resetRequestLog()
        let again = SXK.run(["--profile", "device", "--revalidate", "-c", "profile; profile"], in: ws, baseURL: url)
        XCTAssertEqual(again.status, 0, again.summary)
        XCTAssertEqual(validations(), 2, again.summary)
        XCTAssertEqual(files(ws, profile: "device"), contents)

        // A switch typed writes the snapshot: the next server command validates what it now holds.
        server.resetRequestLog()
        let switched = SXK.run(["--profile", "device", "-c", "profile; scenic 1; profile; profile"], in: ws, baseURL: url)
        XCTAssertEqual(switched.status, 0, switched.summary)
        XCTAssertEqual(validations(), 2, switched.summary)
    }

    /// A token the command's own request carried and the server refused is the snapshot's expiry, not
    /// "rejected earlier": the line says what happened in this run.
    func testARefusalOfTheCommandsOwnRequestIsSaidAsSuch() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.login("13800000003", in: ws, baseURL: url).status, 0)
        let token = try XCTUnwrap(ws.token())
        XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws, token: token, store: 101), "--profile", "device"], in: ws, baseURL: url).status, 0)
        // Validated first (the stamp of an import is none), then the command's own request is refused.
        XCTAssertEqual(SXK.run(["--profile", "device", "profile"], in: ws, baseURL: url).status, 0)
        server.injectFault(SandboxFault(path: "/api/app/store/order/list", kind: .status401))
        let r = SXK.run(["--profile", "device", "-c", "profile; orders --page-size 1"], in: ws, baseURL: url)
        server.clearFaults()
        XCTAssertEqual(r.status, 3, r.summary)
        XCTAssertFalse(r.stderr.contains("rejected this profile's token earlier"), r.summary)
        XCTAssertTrue(r.stderr.contains("session expired"), r.summary)
    }
}

extension DeviceSnapshotTests {
    /// A token the session no longer holds is still a secret: once the server rejected it (or it is
    /// kept back as another backend's), a line quoting it back (`explain key TOKEN`, a variable of
    /// that answer, `vars`) shows it masked, as before the rejection.
    func testARejectedOrKeptBackTokenStaysMasked() throws {
        let ws = Workspace()
        let token = "stale-device-token-0123456789abcdef"
        XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws, token: token)], in: ws, baseURL: url).status, 0)
        let r = SXK.run(["--profile", "imported", "--keep-going", "-c", "orders; explain key \(token); let x = explain key \(token) .subject; vars --json"],
                        in: ws, baseURL: url)
        XCTAssertTrue(r.stderr.contains("rejects this device snapshot's token") || r.stderr.contains("rejected this profile's token"), r.summary)
        XCTAssertTrue(r.stdout.contains("key ***"), r.summary)
        XCTAssertFalse(r.stdout.contains(token) || r.stderr.contains(token), "a rejected token reached the output: \(r.summary)")

        let other = SandboxServer(config: SandboxConfig())
        let otherURL = try other.start()
        defer { other.stop() }
        let kept = SXK.run(["--profile", "imported", "-c", "explain key \(token)"], in: ws, baseURL: otherURL)
        XCTAssertTrue(kept.stderr.contains("holds a session of"), kept.summary)
        XCTAssertFalse(kept.stdout.contains(token) || kept.stderr.contains(token), "a kept-back token reached the output: \(kept.summary)")

        // A real token stays a secret on every profile this process moves to (here after `env use`).
        XCTAssertEqual(SXK.login("13800000003", in: ws, baseURL: url).status, 0)
        let live = try XCTUnwrap(ws.token())
        let moved = SXK.run(["-c", "whoami --jq .phase; env use \(otherURL.absoluteString); explain key \(live); let v = explain key \(live) .subject; vars"],
                            in: ws, baseURL: url)
        XCTAssertEqual(moved.status, 0, moved.summary)
        XCTAssertFalse(moved.stdout.contains(live) || moved.stderr.contains(live), "a token of the profile left reached the output: \(moved.summary)")
        // Nor in a trace: a token this process logged out of, quoted in a request's path.
        let traced = SXK.run(["-c", "whoami --jq .phase; logout; trace on; get /nope/\(live)"], in: ws, baseURL: url)
        XCTAssertFalse(traced.stderr.contains(live) || traced.stdout.contains(live), "a trace showed the token: \(traced.summary)")
        // A profile's token kept back as another backend's (live there) stays a secret after the shell
        // moves on, in the requests it kept (`curl --list`) as in what it prints next.
        let otherProfile = "127.0.0.1-\(otherURL.port!)"
        XCTAssertEqual(SXK.run(["--profile", otherProfile, "login", "13800000001", "--password-stdin", "--accept-privacy"],
                               in: ws, baseURL: url, stdin: "sandbox123\n").status, 0)
        let keptBack = try XCTUnwrap(try String(contentsOfFile: ws.stateDir + "/" + otherProfile + "/token", encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
        let leaving = SXK.run(["--keep-going", "-c", "get /nope/\(keptBack); env use \(url.absoluteString); curl --list; explain key \(keptBack)"],
                              in: ws, baseURL: otherURL)
        XCTAssertTrue(leaving.stderr.contains("holds a session of"), leaving.summary)
        XCTAssertFalse(leaving.stdout.contains(keptBack) || leaving.stderr.contains(keptBack), "a kept-back token reached the output: \(leaving.summary)")
        // A token file refused for its mode still holds a secret: quoted back, it is masked.
        XCTAssertEqual(SXK.run(["--profile", "lm", "login", "13800000002", "--password-stdin", "--accept-privacy"],
                               in: ws, baseURL: url, stdin: "sandbox123\n").status, 0)
        let looseToken = try String(contentsOfFile: ws.stateDir + "/lm/token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        chmod(ws.stateDir + "/lm/token", 0o644)
        let loose = SXK.run(["--profile", "lm", "-c", "explain key \(looseToken)"], in: ws, baseURL: url)
        XCTAssertTrue(loose.stderr.contains("refusing"), loose.summary)
        XCTAssertFalse(loose.stdout.contains(looseToken) || loose.stderr.contains(looseToken), "a loose token file's token reached the output: \(loose.summary)")
        // A token the server rejected is no secret on another profile, though its snapshot's file,
        // read again, still holds it.
        let stale = "stale-device-token-0123456789abcdef"
        let dead = SXK.run(["--keep-going", "-c", "import-defaults \(try writeExport(ws, token: stale)) --profile dev8; orders --page-size 1; env use \(otherURL.absoluteString); env; get /nope/\(stale)"],
                           in: ws, baseURL: url)
        XCTAssertTrue(dead.stderr.contains("rejects this device snapshot's token"), dead.summary)
        XCTAssertTrue(dead.stderr.contains("/nope/\(stale)"), dead.summary)
        // A short placeholder that no server answered for (the backend down) is no secret elsewhere.
        let down = URL(string: "http://127.0.0.1:9")!
        let offline = SXK.run(["--keep-going", "-c", "import-defaults \(try writeExport(ws, token: "latest")) --profile dev9; orders --page-size 1; env use \(url.absoluteString); get /api/app/config --jq 'keys'"],
                              in: ws, baseURL: down)
        XCTAssertTrue(offline.stdout.contains("\"latest"), offline.summary)
        // Another profile's token is not this one's secret: a placeholder token ("latest") imported
        // elsewhere does not mask this profile's output once the shell is back on it.
        let placeholder = try writeExport(ws, token: "latest")
        let back = SXK.run(["-c", "import-defaults \(placeholder) --profile dev; env use \(url.absoluteString); get /api/app/config --jq 'keys'"],
                           in: ws, baseURL: url)
        XCTAssertEqual(back.status, 0, back.summary)
        XCTAssertTrue(back.stdout.contains("\"latest"), back.summary)
    }

    /// The command whose validation finds the snapshot's token rejected shows the import's account,
    /// as the next command and the prompt do; a snapshot whose token was accepted is logged in for
    /// `whoami` as for the prompt, for the rest of the process.
    func testWhoamiAgreesWithThePromptAfterTheSnapshotsValidation() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws)], in: ws, baseURL: url).status, 0)
        // `--keep-going`: the first says the session expired in its status too (3), as `--revalidate` asks.
        let stale = SXK.run(["--profile", "imported", "--revalidate", "--keep-going", "-c", "whoami --jq '[.phase,.userId,.roleCode,.storeId]'; whoami --jq '[.phase,.userId,.roleCode,.storeId]'"],
                            in: ws, baseURL: url)
        XCTAssertEqual(stale.stdout, "[\"loggedOut\",3001,\"storeAdmin\",301]\n[\"loggedOut\",3001,\"storeAdmin\",301]\n", stale.summary)
        XCTAssertEqual(stale.status, 3, stale.summary)

        XCTAssertEqual(SXK.login("13800000003", in: ws, baseURL: url).status, 0)
        let token = try XCTUnwrap(ws.token())
        XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws, token: token, store: 101), "--profile", "device"], in: ws, baseURL: url).status, 0)
        let live = SXK.run(["--profile", "device", "-c", "whoami --jq .phase; orders --page-size 1 --jq .total; whoami --jq .phase"], in: ws, baseURL: url)
        XCTAssertEqual(live.status, 0, live.summary)
        let lines = live.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "restoring", live.summary)
        XCTAssertEqual(lines.last, "loggedIn", live.summary)
        XCTAssertEqual(SXK.run(["--profile", "device", "--revalidate", "whoami", "--jq", ".phase"], in: ws, baseURL: url).stdout, "loggedIn\n")
    }

    /// The import's hint names what reaches the profile from a new process (the state folder given),
    /// and a snapshot used with another backend says to import again, not to log in (which would end it).
    func testTheImportsHintWorksAndAnotherBackendIsToldToImportAgain() throws {
        let ws = Workspace()
        let r = SXK.run(["import-defaults", try writeExport(ws)], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("Try sxk --state-dir '\(ws.stateDir)' --profile imported whoami"), r.summary)
        let other = SandboxServer(config: SandboxConfig())
        let otherURL = try other.start()
        defer { other.stop() }
        let elsewhere = SXK.run(["--profile", "imported", "home"], in: ws, baseURL: otherURL)
        XCTAssertEqual(elsewhere.status, 3, elsewhere.summary)
        XCTAssertTrue(elsewhere.stderr.contains("import the device's export again with this one"), elsewhere.summary)
        XCTAssertFalse(elsewhere.stderr.contains("`login` here"), elsewhere.summary)
    }

    /// A device's state without a token is the login page for `home` whether or not it names a user;
    /// a key no seed names is not explained on the seed's word.
    func testTokenlessImportsAgreeAndAnUnknownKeyIsNotDocumented() throws {
        let ws = Workspace()
        for (profile, dropping) in [("a", ["key_in_token"]), ("b", ["key_in_token", "key_in_user_id"])] {
            XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws, dropping: dropping), "--profile", profile], in: ws, baseURL: url).status, 0)
            let home = SXK.run(["--profile", profile, "home"], in: ws, baseURL: url)
            XCTAssertEqual(home.status, 3, home.summary)
            XCTAssertTrue(home.stderr.contains("the app opens the login page"), "\(profile): \(home.summary)")
        }
        let explained = SXK.run(["--profile", "a", "explain", "key", "nonsense_key"], in: ws, baseURL: url)
        XCTAssertEqual(explained.status, 0, explained.summary)
        XCTAssertFalse(explained.stdout.contains("[documented: seed"), explained.summary)
        XCTAssertTrue(explained.stdout.contains("not a key sxk knows"), explained.summary)
    }

    /// A photographer's export as a device leaves it after its role changed: the flat permission list
    /// still another role's, the scenic list empty, reminder minutes stored as 0.
    private func writePhotographerExport(_ ws: Workspace, scenicId: Int, scenics: [[String: Any]], reminder: Int?) throws -> String {
        func json(_ value: Any) throws -> Data { try JSONSerialization.data(withJSONObject: value) }
        func items(_ uris: [String]) -> [[String: Any]] { uris.map { ["uri": $0, "name": $0, "group": "home"] } }
        let admin = items(["home/order", "home/statistics", "home/scenic-queue", "home/photographer-manage", "home/settings"])
        let photographer = items(["home/order", "home/statistics", "home/scenic-queue", "home/cloud-transfer", "home/settings"])
        let roles: [[String: Any]] = [
            ["roleCode": "scenicAdmin", "roleName": "景区管理员", "scenicList": scenics, "permissions": admin],
            ["roleCode": "photographer", "roleName": "摄影师", "scenicList": scenics, "permissions": photographer],
        ]
        var device: [String: Any] = [
            "key_in_token": "stale-device-token-0123456789abcdef", "key_privacy_agreement_accepted": true,
            "key_in_user_id": 2001, "key_in_account_type": "scenic", "key_in_role_code": "photographer",
            "key_in_current_scenic_id": scenicId, "key_in_current_scenic_name": "西湖景区",
            "2001_scenic_key_role_permission_list": try json(roles), "2001_scenic_key_in_permission": try json(admin),
            "2001_scenic_key_current_role_scenic_list": try json(scenics),
        ]
        if let reminder { device["2001_scenic_key_location_reminder_minutes"] = reminder }
        let file = ws.root + "/photographer-\(scenicId).plist"
        try PropertyListSerialization.data(fromPropertyList: device, format: .binary, options: 0).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Views that speak of the next home say what its engine says: the common-menu default from the
    /// permissions its load leaves, no dialog claimed beside a scenic it clears, a stored reminder of
    /// 0 read as unset and said to be sxk's reading.
    func testTheNextHomeIsSaidAsTheEngineSaysIt() throws {
        let ws = Workspace()
        let scenics: [[String: Any]] = [["scenicId": 1, "scenicName": "西湖景区"]]
        XCTAssertEqual(SXK.run(["import-defaults", try writePhotographerExport(ws, scenicId: 1, scenics: scenics, reminder: 0), "--profile", "p"], in: ws, baseURL: url).status, 0)
        let before = files(ws, profile: "p")
        let menus = SXK.run(["--profile", "p", "menus", "common", "--json"], in: ws, baseURL: url)
        let listed = try XCTUnwrap(try menus.json() as? [String: Any], menus.summary)["uris"] as? [String]
        let home = try XCTUnwrap(try SXK.run(["--profile", "p", "home", "--offline", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        let written = (home["changes"] as? [[String: Any]] ?? []).first { ($0["key"] as? String ?? "").hasSuffix("_common_uris") }
        XCTAssertEqual(listed, ["home/order", "home/statistics", "home/scenic-queue", "home/cloud-transfer"], menus.summary)
        XCTAssertTrue("\(written?["after"] ?? "")".contains("home/cloud-transfer"), "\(written ?? [:])")
        let dialog = SXK.run(["--profile", "p", "explain", "dialog"], in: ws, baseURL: url)
        XCTAssertTrue(dialog.stdout.contains("location reminder minutes stored as 0: read as not set  [inferred"), dialog.summary)
        XCTAssertTrue(SXK.run(["--profile", "p", "location"], in: ws, baseURL: url).stdout.contains("off (stored 0)"))
        XCTAssertEqual(files(ws, profile: "p"), before, "a view wrote")

        XCTAssertEqual(SXK.run(["import-defaults", try writePhotographerExport(ws, scenicId: 0, scenics: [], reminder: nil), "--profile", "z"], in: ws, baseURL: url).status, 0)
        let who = SXK.run(["--profile", "z", "whoami"], in: ws, baseURL: url)
        XCTAssertTrue(who.stderr.contains("clears the current scenic"), who.summary)
        XCTAssertFalse(who.stderr.contains("scenic dialog shows"), who.summary)
    }

    /// An export's values that hold secret members (an object, or JSON kept as a string) show them
    /// masked in `keys`' table and in `explain key`, as `keys --json` does; `import-defaults` prints
    /// its report as JSON.
    func testSecretMembersInsideImportedValuesAreMasked() throws {
        let ws = Workspace()
        let file = try writeExport(ws)
        var device = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: file)), format: nil) as? [String: Any])
        device["3001_store_settings"] = ["password": "NESTED-PASS-777777", "other": "x"]
        device["3001_store_prefs"] = Data(#"{"authToken":"JSON-STRING-TOKEN-5555"}"#.utf8)
        try PropertyListSerialization.data(fromPropertyList: device, format: .binary, options: 0).write(to: URL(fileURLWithPath: file))
        let imported = SXK.run(["import-defaults", file, "--jq", ".tokenImported"], in: ws, baseURL: url)
        XCTAssertEqual(imported.status, 0, imported.summary)
        XCTAssertEqual(imported.stdout, "true\n", imported.summary)
        for view in [["keys"], ["keys", "--wide"], ["keys", "--all"], ["keys", "--json"], ["keys", "--csv"],
                     ["explain", "key", "3001_store_settings"], ["explain", "key", "3001_store_settings", "--json"],
                     ["explain", "key", "3001_store_prefs", "--jq", "."]] {
            let r = SXK.run(["--profile", "imported"] + view, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            XCTAssertFalse(r.stdout.contains("NESTED-PASS") || r.stdout.contains("JSON-STRING-TOKEN"), "\(view): \(r.summary)")
        }
        let table = SXK.run(["--profile", "imported", "keys"], in: ws, baseURL: url)
        XCTAssertTrue(table.stdout.contains(#""password":"***""#), table.summary)
        XCTAssertTrue(table.stdout.contains(#""other":"x""#), table.summary)
    }

    /// An export still online whose last report is 3 hours old: the app's next home drops the status
    /// (seed 000 §6.3). The rejected token too.
    private func importExpiredOnline(_ ws: Workspace, dropping: [String] = []) throws {
        let file = try writeExport(ws, dropping: dropping, adding: [
            "3001_store_key_online_status": true,
            "3001_store_key_last_location_report_time": Date().addingTimeInterval(-3 * 3600),
        ])
        let imported = SXK.run(["import-defaults", file], in: ws, baseURL: url)
        XCTAssertEqual(imported.status, 0, imported.summary)
    }

    /// `location` shows the status the app shows, as `home` and `boot` replay it: past the 2-hour
    /// limit it is dropped, with the reason, not "online yes" with the limit "in 0s". Nothing is written.
    func testLocationPastTheTwoHourLimitSaysWhatHomeAndBootSay() throws {
        let ws = Workspace()
        try importExpiredOnline(ws)
        let before = files(ws, profile: "imported")
        let reason = "past the 2-hour limit: online status dropped"

        let json = SXK.run(["--profile", "imported", "location", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(json.status, 0, json.summary)
        let state = try XCTUnwrap(try json.json() as? [String: Any], json.summary)
        XCTAssertEqual(state["online"] as? Bool, false, json.summary)
        XCTAssertTrue(state["countdownSeconds"] is NSNull, json.summary)
        XCTAssertTrue(state["lastReportTime"] is NSNull, json.summary)
        let restore = try XCTUnwrap(state["restore"] as? [String: Any], json.summary)
        XCTAssertEqual(restore["outcome"] as? String, "clearedExpired")
        XCTAssertTrue((restore["note"] as? String ?? "").contains(reason), json.summary)
        XCTAssertEqual(restore["source"] as? String, "seed 000 §4.2, §6.3")
        XCTAssertEqual((state["stored"] as? [String: Any])?["online"] as? Bool, true, json.summary)

        let text = SXK.run(["--profile", "imported", "location"], in: ws, baseURL: url)
        let online = text.stdout.split(separator: "\n").first { $0.hasPrefix("online") } ?? ""
        XCTAssertTrue(online.contains("no") && online.contains(reason), text.summary)
        let limit = text.stdout.split(separator: "\n").first { $0.hasPrefix("2-hour limit in") } ?? ""
        XCTAssertTrue(limit.hasSuffix("–"), text.summary)

        for args in [["home", "--offline"], ["boot"]] {
            let r = SXK.run(["--profile", "imported"] + args, in: ws, baseURL: url)
            XCTAssertTrue(r.stdout.contains(reason), r.summary)
        }
        for args in [["whoami"], ["keys"]] {
            let r = SXK.run(["--profile", "imported"] + args, in: ws, baseURL: url)
            XCTAssertTrue(r.stderr.contains(reason) && r.stderr.contains("3001_store_key_online_status"), r.summary)
        }
        let explained = SXK.run(["--profile", "imported", "explain", "key", "3001_store_key_online_status"], in: ws, baseURL: url)
        XCTAssertTrue(explained.stdout.contains("restoreStateIfNeeded removes it at the next home") && explained.stdout.contains(reason), explained.summary)
        XCTAssertEqual(files(ws, profile: "imported"), before, "a show-only command wrote")
    }

    /// Without a token no home runs (the app opens the login page): the views that say what the 2-hour
    /// rule removes say it happens at the first home after a login, as `boot` and `menus` say the home
    /// is not shown; after the server rejected the token in this process, the same.
    func testTheLocationRestoreWaitsForALoginWhenNoHomeRuns() throws {
        let ws = Workspace()
        try importExpiredOnline(ws, dropping: ["key_in_token"])
        let after = "at the first home after a login (no token: the app opens the login page"
        for args in [["whoami"], ["keys"], ["location"]] {
            let r = SXK.run(["--profile", "imported"] + args, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            XCTAssertTrue(r.stderr.contains(after), "\(args): \(r.summary)")
        }
        let explained = SXK.run(["--profile", "imported", "explain", "key", "3001_store_key_online_status"], in: ws, baseURL: url)
        XCTAssertTrue(explained.stdout.contains("restoreStateIfNeeded removes it " + after), explained.summary)

        let rejected = Workspace()
        try importExpiredOnline(rejected)
        let r = SXK.run(["--profile", "imported", "-c", "home --jq .sessionExpired; whoami"], in: rejected, baseURL: url)
        XCTAssertTrue(r.stderr.contains("at the first home after a login (the server rejected the stored token in this process"), r.summary)
    }

    /// `context diff` on a rejected token: the location keys are the 2-hour rule's removals (step 1 of
    /// the home, documented), not the expiry's clearing (which keeps account-scoped keys); and it says
    /// the server rejected the token rather than that there was no answer.
    func testContextDiffCreditsEachKeyToTheStepThatWritesIt() throws {
        let ws = Workspace()
        try importExpiredOnline(ws)
        let before = files(ws, profile: "imported")
        let r = SXK.run(["--profile", "imported", "context", "diff", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let diff = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(diff["sessionExpired"] as? Bool, true, r.summary)
        XCTAssertFalse((diff["rejected"] as? String ?? "").isEmpty, r.summary)
        let next = try XCTUnwrap(diff["nextStart"] as? [[String: Any]])
        func entry(_ key: String) -> [String: Any]? { next.first { $0["key"] as? String == key } }
        for key in ["3001_store_key_online_status", "3001_store_key_last_location_report_time"] {
            let e = try XCTUnwrap(entry(key), "\(key) missing: \(next)")
            XCTAssertEqual(e["rule"] as? String, "written by locationStateStore.restoreStateIfNeeded()", "\(e)")
            XCTAssertEqual(e["basis"] as? String, "documented", "\(e)")
            XCTAssertEqual(e["source"] as? String, "seed 000 §4.2, §6.3", "\(e)")
        }
        // A time is said as home and boot say it: local time beside the stored number.
        let time = try XCTUnwrap(entry("3001_store_key_last_location_report_time")?["value"] as? String)
        XCTAssertTrue(time.contains("(") && time.hasSuffix("→ nil"), time)
        for key in ["key_in_token", "key_in_user_id", "key_in_role_code"] {
            let e = try XCTUnwrap(entry(key), "\(key) missing: \(next)")
            XCTAssertTrue((e["rule"] as? String ?? "").contains("sessionDidExpire"), "\(e)")
            XCTAssertEqual(e["source"] as? String, "docs/app-behaviour.md#logout", "\(e)")
        }
        let text = SXK.run(["--profile", "imported", "context", "diff"], in: ws, baseURL: url)
        XCTAssertTrue(text.stdout.hasPrefix("the server rejected the token ("), text.summary)
        XCTAssertFalse(text.stdout.contains("no server answer"), text.summary)
        XCTAssertEqual(files(ws, profile: "imported"), before, "context diff wrote")
    }

    /// A location check settled before its rule applies (the permission dialog first) says so under
    /// the basis that settled it, not under the timeout rule's text.
    func testALocationCheckSettledFirstIsNotExplainedByTheTimeoutRule() throws {
        let ws = Workspace()
        let file = try writeExport(ws, adding: ["key_in_role_code": "queueManager"])
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url).status, 0)
        let r = SXK.run(["--profile", "device", "explain", "dialog", "location", "--json"], in: ws, baseURL: url)
        let object = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(object["dialog"] as? String, "permission", r.summary)
        let steps = try XCTUnwrap(((object["explanations"] as? [[String: Any]])?.first?["steps"]) as? [[String: Any]], r.summary)
        let last = try XCTUnwrap(steps.last, r.summary)
        XCTAssertEqual(last["value"] as? String, "permission dialog first", r.summary)
        XCTAssertFalse((last["rule"] as? String ?? "").hasPrefix("timeout when"), r.summary)
        XCTAssertEqual(last["source"] as? String, "seed 000 §4.4", r.summary)
    }

    /// Without a token, or with one the server rejected in this process, the app opens the login page:
    /// `explain menu` and `menus` say so, as `boot` does, and still tell what a login would show.
    func testMenuViewsSayTheHomeIsNotShownWithoutAUsableToken() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws, token: ""), "--profile", "none"], in: ws, baseURL: url).status, 0)
        let boot = try XCTUnwrap(try SXK.run(["--profile", "none", "boot", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual((boot["firstScreen"] as? [String: Any])?["name"] as? String, "login page")
        let explained = SXK.run(["--profile", "none", "explain", "menu", "home/order"], in: ws, baseURL: url)
        XCTAssertTrue(explained.stdout.contains("menu home/order not shown: no token: the app opens the login page"), explained.summary)
        XCTAssertTrue(explained.stdout.contains("after a login, menu home/order shown"), explained.summary)
        let menus = SXK.run(["--profile", "none", "menus"], in: ws, baseURL: url)
        XCTAssertEqual(menus.status, 0, menus.summary)
        XCTAssertTrue(menus.stderr.contains("no token: the app opens the login page"), menus.summary)
        XCTAssertTrue(menus.stdout.contains("home/order"), menus.summary)
        // `context diff` and `home` say it in the same words.
        for line in [["context", "diff"], ["home"]] {
            let r = SXK.run(["--profile", "none"] + line, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 3, r.summary)
            XCTAssertTrue(r.stderr.hasPrefix("error: no token: the app opens the login page"), r.summary)
        }
        // A token the server rejects: after `home` saw it rejected, the same process says the same.
        XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws), "--profile", "stale"], in: ws, baseURL: url).status, 0)
        let after = SXK.run(["--profile", "stale", "-c", "home --json; explain menu home/order --json; menus common"], in: ws, baseURL: url)
        XCTAssertTrue(after.stdout.contains("not shown: the server rejected the stored token in this process"), after.summary)
        XCTAssertTrue(after.stderr.contains("the server rejected the stored token in this process"), after.summary)
        // Without a rejection seen, the menu is shown.
        let fresh = SXK.run(["--profile", "stale", "explain", "menu", "home/order"], in: ws, baseURL: url)
        XCTAssertTrue(fresh.stdout.contains("menu home/order shown"), fresh.summary)
    }

    /// A role listed twice: its permissions are the first entry's in every view, and `permissions
    /// --all` marks that entry and says so.
    func testARoleListedTwiceIsTheFirstEntryEverywhere() throws {
        let ws = Workspace()
        let roles: [[String: Any]] = [
            ["roleCode": "storeAdmin", "roleName": "门店管理员", "scenicList": [["scenicId": 1, "scenicName": "西湖景区"]], "permissions": []],
            ["roleCode": "storeAdmin", "roleName": "门店管理员", "scenicList": [["scenicId": 1, "scenicName": "西湖景区"]],
             "permissions": [["uri": "home/order", "name": "订单", "group": "home"]]],
        ]
        let list = try JSONSerialization.data(withJSONObject: roles)
        XCTAssertEqual(SXK.run(["import-defaults", try writeExport(ws, adding: ["3001_store_key_role_permission_list": list]), "--profile", "twice"],
                               in: ws, baseURL: url).status, 0)
        let all = SXK.run(["--profile", "twice", "permissions", "--all", "--json"], in: ws, baseURL: url)
        XCTAssertTrue(all.stderr.contains("role storeAdmin has 2 entries in the role-permission list: its permissions are the first entry's"), all.summary)
        // The first entry has none, so the rows under the code are the second's: said.
        XCTAssertTrue(all.stderr.contains("the first entry's (none: every row listed for it is of a later entry, not used)"), all.summary)
        let table = SXK.run(["--profile", "twice", "permissions", "--all", "--csv"], in: ws, baseURL: url)
        XCTAssertFalse(table.stdout.contains("true,storeAdmin,home/order"), "the second entry marked current: \(table.summary)")
        let listed = try XCTUnwrap(try SXK.run(["--profile", "twice", "role", "--json"], in: ws, baseURL: url).json() as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["current"] as? Bool }, [true, false], "\(listed)")
        let home = try XCTUnwrap(try SXK.run(["--profile", "twice", "home", "--offline", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(home["dialog"] as? String, "permission")
    }

    /// A current scenic the role's list lacks, and a current store the server's list lacks, are said
    /// by the lists that then mark no row.
    func testScopeListsSayWhenTheCurrentScopeIsNotAmongThem() throws {
        let ws = Workspace()
        let file = try writeExport(ws, adding: ["key_in_current_scenic_id": 7, "key_in_current_scenic_name": "千岛湖"])
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "away"], in: ws, baseURL: url).status, 0)
        let scenic = SXK.run(["--profile", "away", "scenic"], in: ws, baseURL: url)
        XCTAssertEqual(scenic.status, 0, scenic.summary)
        XCTAssertTrue(scenic.stderr.contains("the current scenic 7 千岛湖 is not among the role's scenic areas listed here"), scenic.summary)
        let listed = SXK.run(["--profile", "away", "scenic", "--json"], in: ws, baseURL: url)
        XCTAssertFalse(listed.stdout.contains("true"), listed.summary)
        // The store: a logged-in store admin whose stored store is not in the scenic's list.
        let store = Workspace()
        SXK.login("13800000003", in: store, baseURL: url)
        try store.setStored("key_in_current_store_id", 999)
        let stores = SXK.run(["store"], in: store, baseURL: url)
        XCTAssertEqual(stores.status, 0, stores.summary)
        XCTAssertTrue(stores.stderr.contains("the current store 999 is not among the stores listed here"), stores.summary)
    }

    /// After the server rejected the imported token in this process, `role` and `scenic` still list the
    /// stored state, as `permissions`, `menus` and `location` do: show-only views agree.
    func testListingsOfTheStoredStateAnswerAfterARejection() throws {
        let ws = Workspace()
        let file = try writeExport(ws)
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "stale"], in: ws, baseURL: url).status, 0)
        // A rejected token is an answer both replays follow to the login page: status 0, said in --json.
        for replay in [["home"], ["context", "diff"]] {
            let r = SXK.run(["--profile", "stale"] + replay + ["--json"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, "\(replay): \(r.summary)")
            XCTAssertEqual((try r.json() as? [String: Any])?["sessionExpired"] as? Bool, true, "\(replay): \(r.summary)")
        }
        for listing in ["role", "scenic", "permissions"] {
            let r = SXK.run(["--profile", "stale", "-c", "home > /dev/null; \(listing) --json"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, "\(listing): \(r.summary)")
            XCTAssertFalse(((try? r.json()) as? [Any])?.isEmpty ?? true, "\(listing): \(r.summary)")
        }
    }

    /// A stored role-permission list that lacks the current role (another account's, left behind by a
    /// switch on the device): `role` marks no row and says why, as `permissions` does.
    func testARoleListLackingTheCurrentRoleIsSaid() throws {
        let ws = Workspace()
        let roles: [[String: Any]] = [["roleCode": "photographer", "roleName": "摄影师", "scenicList": [["scenicId": 1, "scenicName": "西湖景区"]],
                                       "permissions": [["uri": "home/order", "name": "订单", "group": "home"]]]]
        let file = try writeExport(ws, adding: ["3001_store_key_role_permission_list": try JSONSerialization.data(withJSONObject: roles)])
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "other"], in: ws, baseURL: url).status, 0)
        let r = SXK.run(["--profile", "other", "role"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("(the current role storeAdmin is not among the roles listed here)"), r.summary)
        XCTAssertTrue(r.stderr.contains("role storeAdmin has no entry in the stored role-permission list (entries: photographer)"), r.summary)
        // The dialog verdicts judged without network say their condition, in every form.
        let condition = "judged without network: if the server accepts the stored token and answers as the stored role-permission list"
        for words in [["boot"], ["explain", "dialog"]] {
            let text = SXK.run(["--profile", "other"] + words, in: ws, baseURL: url)
            XCTAssertTrue(text.stdout.contains(condition), "\(words): \(text.summary)")
            let json = try XCTUnwrap(try SXK.run(["--profile", "other"] + words + ["--json"], in: ws, baseURL: url).json() as? [String: Any])
            XCTAssertTrue((json["assumes"] as? String)?.hasPrefix(condition) == true, "\(words): \(json.keys)")
        }
        // Also when the verdict is that no dialog shows (a live session whose lists agree).
        let live = Workspace()
        SXK.login("13800000002", in: live, baseURL: url)
        let none = try XCTUnwrap(try SXK.run(["explain", "dialog", "--json"], in: live, baseURL: url).json() as? [String: Any])
        XCTAssertTrue(none["dialog"] is NSNull, "\(none)")
        XCTAssertTrue((none["assumes"] as? String)?.hasPrefix(condition) == true, "\(none.keys)")
    }

    /// `role CODE` that moves the scenic to the role's list keeps a store of the new scenic (the store
    /// list says whose it is); a rejected token while it reads that list ends the session as any does.
    func testARoleSwitchKeepsAStoreOfItsNewScenic() throws {
        let live = Workspace()
        SXK.login("13800000003", in: live, baseURL: url)
        let token = try XCTUnwrap(live.token())
        let ws = Workspace()
        let roles: [[String: Any]] = [["roleCode": "storeAdmin", "roleName": "门店管理员", "scenicList": [["scenicId": 2, "scenicName": "灵隐寺"]],
                                       "permissions": [["uri": "home/order", "name": "订单", "group": "home"]]]]
        let file = try writeExport(ws, token: token, store: 201, adding: ["3001_store_key_role_permission_list": try JSONSerialization.data(withJSONObject: roles)])
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "moved"], in: ws, baseURL: url).status, 0)
        let r = SXK.run(["--profile", "moved", "role", "storeAdmin"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("now scenic 2"), r.summary)
        XCTAssertFalse(r.stderr.contains("store 201 cleared"), r.summary)
        let who = try XCTUnwrap(try SXK.run(["--profile", "moved", "whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(who["scenicId"] as? Int, 2)
        XCTAssertEqual(who["storeId"] as? Int, 201)
        // The same switch on a live session whose token the server now rejects: the reset stands, and
        // no view of this process shows the account again.
        let other = Workspace()
        SXK.login("13800000002", in: other, baseURL: url)
        XCTAssertEqual(SXK.run(["-c", "scenic 2; store 201"], in: other, baseURL: url).status, 0)
        server.expireTokens()
        let expired = SXK.run(["--keep-going", "-c", "role photographer; whoami --json"], in: other, baseURL: url)
        XCTAssertEqual(expired.status, 3, expired.summary)
        let line = try XCTUnwrap(expired.stdout.split(separator: "\n").last.map(String.init), expired.summary)
        let after = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], expired.summary)
        XCTAssertNil(after["userId"] as? Int, expired.summary)
        XCTAssertNil(after["scenicId"] as? Int, expired.summary)
    }

    /// A stored scenic list the next home's load replaces (the role's entry holds another) is said by
    /// `scenic` and `whoami`, as the permissions are; a stored empty role-permission list is the server's
    /// last answer for `role` too: listed as none, with no request, like every other view.
    func testStoredListsTheNextLoadReplacesAreSaidAndAnEmptyListIsNotAskedAgain() throws {
        let ws = Workspace()
        let wider = try JSONSerialization.data(withJSONObject: [["scenicId": 1, "scenicName": "西湖景区"], ["scenicId": 2, "scenicName": "灵隐寺"]])
        let roles: [[String: Any]] = [["roleCode": "storeAdmin", "roleName": "门店管理员", "scenicList": [["scenicId": 2, "scenicName": "灵隐寺"]],
                                       "permissions": [["uri": "home/order", "name": "订单", "group": "home"], ["uri": "home/stats", "name": "数据", "group": "home"]]]]
        let file = try writeExport(ws, adding: ["3001_store_key_current_role_scenic_list": wider,
                                                "3001_store_key_role_permission_list": try JSONSerialization.data(withJSONObject: roles)])
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "wider"], in: ws, baseURL: url).status, 0)
        let said = "the stored scenic list (2) is not role storeAdmin's entry in the stored role-permission list: if the server answers the same, the next home's loadPermissions replaces it with 2 灵隐寺"
        for words in [["scenic"], ["whoami"]] {
            let r = SXK.run(["--profile", "wider"] + words, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            XCTAssertTrue(r.stderr.contains(said), r.summary)
            XCTAssertTrue(r.stderr.contains("the current scenic 1 is not among them"), r.summary)
        }
        // `scenic` lists, `scenic ID` takes and Tab offers the areas that load leaves the role, one basis.
        let listed = SXK.run(["--profile", "wider", "scenic", "--json"], in: ws, baseURL: url)
        XCTAssertEqual((try listed.json() as? [[String: Any]])?.compactMap { $0["scenicId"] as? Int }, [2], listed.summary)
        XCTAssertTrue(listed.stderr.contains("listed, and taken by `scenic ID`: the scenic areas that load leaves the role"), listed.summary)
        let offered = SXK.run(["--profile", "wider", "__complete", "scenic", ""], in: ws, baseURL: url).stdout.split(separator: "\n").map(String.init)
        let values = offered.map { String($0.split(separator: "\t").first ?? "") }
        XCTAssertTrue(values.contains("2") && !values.contains("1"), "\(offered)")
        // The export's token is stale: a switch keeping its store needs the store list, which the server
        // refuses; what matters here is that 2 is taken and 1 refused before anything is asked.
        XCTAssertFalse(SXK.run(["--profile", "wider", "scenic", "2"], in: ws, baseURL: url).stderr.contains("no scenic '2'"))
        let notListed = SXK.run(["--profile", "wider", "scenic", "1"], in: ws, baseURL: url)
        XCTAssertEqual(notListed.status, 2, notListed.summary)
        XCTAssertTrue(notListed.stderr.contains("no scenic '1'"), notListed.summary)
        let storeless = try writeExport(ws, dropping: ["key_in_current_store_id"], adding: ["3001_store_key_current_role_scenic_list": wider,
                                                                                           "3001_store_key_role_permission_list": try JSONSerialization.data(withJSONObject: roles)])
        XCTAssertEqual(SXK.run(["import-defaults", storeless, "--profile", "storeless"], in: ws, baseURL: url).status, 0)
        let moved = SXK.run(["--profile", "storeless", "scenic", "2"], in: ws, baseURL: url)
        XCTAssertEqual(moved.status, 0, moved.summary)
        // `-` knows the scenic before the switch, and says why the role cannot go back to it.
        let back = SXK.run(["--profile", "storeless", "scenic", "-"], in: ws, baseURL: url)
        XCTAssertEqual(back.status, 2, back.summary)
        XCTAssertTrue(back.stderr.contains("no scenic '1'"), back.summary)
        let agreeing = try writeExport(ws)
        XCTAssertEqual(SXK.run(["import-defaults", agreeing, "--profile", "agreeing"], in: ws, baseURL: url).status, 0)
        XCTAssertFalse(SXK.run(["--profile", "agreeing", "scenic"], in: ws, baseURL: url).stderr.contains("stored scenic list"))

        let empty = try JSONSerialization.data(withJSONObject: [] as [Any])
        let none = try writeExport(ws, adding: ["3001_store_key_role_permission_list": empty, "3001_store_key_in_permission": empty,
                                                "3001_store_key_current_role_scenic_list": empty])
        XCTAssertEqual(SXK.run(["import-defaults", none, "--profile", "none"], in: ws, baseURL: url).status, 0)
        server.resetRequestLog()
        let role = SXK.run(["--profile", "none", "role", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(role.status, 0, role.summary)
        XCTAssertEqual((try role.json() as? [Any])?.count, 0, role.summary)
        XCTAssertTrue(role.stderr.contains("no roles: the stored role-permission list is empty"), role.summary)
        XCTAssertFalse(server.requestLog().contains { $0.path.hasSuffix("/role-permission") }, "role asked the server again: \(server.requestLog().map(\.path))")
        // Tab offers what `role CODE` takes: nothing, as it refuses every code of an empty list.
        XCTAssertEqual(SXK.run(["--profile", "none", "__complete", "role", ""], in: ws, baseURL: url).stdout, "")
        let refused = SXK.run(["--profile", "none", "role", "storeAdmin"], in: ws, baseURL: url)
        XCTAssertNotEqual(refused.status, 0, refused.summary)
    }
}
