import Foundation
import SXKSandbox
import SXKTestSupport
import XCTest

/// What an import writes, and what the views of an imported state say, when the export or the
/// command line is not the usual one: an import that cannot be written changes nothing, a bad
/// target profile or file leaves no profile behind, a state without a token is the login page in
/// every view, and keys that hold secrets stay hidden in every format.
final class ImportIntegrityTests: SandboxTestCase {
    private let staleToken = "stale-device-token-0123456789abcdef"

    /// storeAdmin 3001's keys, with `extra` added (a binary plist, as a device writes it).
    private func export(_ ws: Workspace, name: String, token: String?, extra: [String: Any] = [:]) throws -> String {
        var device: [String: Any] = [
            "key_last_login_username": "13800000003",
            "key_privacy_agreement_accepted": true,
            "key_in_user_id": 3001,
            "key_in_user_name": "store3001",
            "key_in_account_type": "store",
            "key_in_role_code": "storeAdmin",
            "key_in_role_name": "门店管理员",
            "key_in_current_scenic_id": 1,
            "key_in_current_scenic_name": "西湖景区",
            "key_in_current_store_id": 301,
            "3001_store_key_in_permission": try JSONSerialization.data(withJSONObject: [["uri": "home/order", "name": "订单"]]),
        ]
        if let token { device["key_in_token"] = token }
        for (key, value) in extra { device[key] = value }
        let file = ws.root + "/" + name
        try PropertyListSerialization.data(fromPropertyList: device, format: .binary, options: 0).write(to: URL(fileURLWithPath: file))
        return file
    }

    private func files(_ ws: Workspace, profile: String) -> [String: Data?] {
        var out: [String: Data?] = [:]
        for name in ["defaults.json", "token"] { out[name] = ws.read(ws.stateDir + "/" + profile + "/" + name) }
        return out
    }

    /// Two devices' exports of `keys` extra scoped keys each: user 3001 with device A's token, and 3002
    /// with device B's.
    private func twoDevices(_ ws: Workspace, keys: Int) throws -> (a: String, b: String) {
        var many: [String: Any] = [:]
        for n in 0..<keys { many["3001_store_custom_key_\(n)"] = String(repeating: "v", count: 40) }
        let a = try export(ws, name: "a.plist", token: "token-of-device-a-0123456789abcdef", extra: many)
        many["key_in_user_id"] = 3002
        return (a, try export(ws, name: "b.plist", token: "token-of-device-b-0123456789abcdef", extra: many))
    }

    /// SIGTERM while an import's keys are on disk and its token not yet: the process ends only once
    /// both are, so the profile never holds one device's keys beside another's token.
    func testASIGTERMDuringAnImportLeavesOneDevicesStateWhole() throws {
        let ws = Workspace()
        // Large enough that the keys' write (and its sync) is a window a signal can land in.
        let (a, b) = try twoDevices(ws, keys: 10_000)
        let defaults = ws.stateDir + "/dev/defaults.json", tokenFile = ws.stateDir + "/dev/token"
        for _ in 0..<2 {
            XCTAssertEqual(SXK.run(["import-defaults", a, "--profile", "dev"], in: ws, baseURL: url).status, 0)
            var st = stat()
            XCTAssertEqual(stat(defaults, &st), 0)
            let before = st.st_ino
            let process = Process()
            process.executableURL = URL(fileURLWithPath: SXKBinary.path)
            process.arguments = ["--base-url", url.absoluteString, "--state-dir", ws.stateDir, "import-defaults", b, "--profile", "dev"]
            process.environment = ws.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The keys' file replaced (a new inode): the token is written next.
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < deadline, stat(defaults, &st) == 0, st.st_ino == before { usleep(200) }
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            let keys = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(ws.read(defaults))) as? [String: Any])
            let token = String(decoding: try XCTUnwrap(ws.read(tokenFile)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let user = keys["key_in_user_id"] as? Int
            XCTAssertTrue((user == 3001 && token.contains("device-a")) || (user == 3002 && token.contains("device-b")),
                          "user \(String(describing: user)) beside \(token) (exit \(process.terminationStatus))")
        }
    }

    /// A note names the first 20 keys of a list; `--json` holds every one (an export may hold thousands).
    func testALongKeyListIsNamedInPartAndGivenWholeInJSON() throws {
        let ws = Workspace()
        var many: [String: Any] = [:]
        for n in 0..<25 { many["3001_store_custom_key_\(n)"] = "v" }
        let file = try export(ws, name: "many.plist", token: nil, extra: many)
        let r = SXK.run(["import-defaults", file, "--profile", "many", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains(" … and 5 more (--json lists them all)"), r.summary)
        let listed = try XCTUnwrap(try r.json() as? [String: Any])["unmodelledKeys"] as? [String]
        XCTAssertEqual(listed?.count, 25, r.summary)
    }

    /// A Ctrl-C once an import's keys are on disk: the write finishes, and the run says the import
    /// stands (it is on disk whole) and ends with 130, not a bare "interrupted" over a written import.
    func testACtrlCDuringAnImportsWriteSaysTheImportStands() throws {
        let ws = Workspace()
        // Large enough that the import's report after the write takes longer than a request's grace.
        let (a, b) = try twoDevices(ws, keys: 40_000)
        let defaults = ws.stateDir + "/dev/defaults.json", tokenFile = ws.stateDir + "/dev/token"
        XCTAssertEqual(SXK.run(["import-defaults", a, "--profile", "dev"], in: ws, baseURL: url).status, 0)
        var st = stat()
        XCTAssertEqual(stat(defaults, &st), 0)
        let before = st.st_ino
        let running = try LiveSXK(["import-defaults", b, "--profile", "dev"], in: ws, baseURL: url)
        let deadline = Date().addingTimeInterval(30)
        while running.process.isRunning, Date() < deadline, stat(defaults, &st) == 0, st.st_ino == before { usleep(200) }
        kill(running.pid, SIGINT)
        let status = running.finish(timeout: 30)
        let err = String(decoding: running.err.finish(), as: UTF8.self)
        let token = String(decoding: try XCTUnwrap(ws.read(tokenFile)), as: UTF8.self)
        XCTAssertTrue(token.contains("device-b"), "the write did not finish: \(err)")
        XCTAssertEqual(status, 130, err)
        XCTAssertTrue(err.contains("interrupted: the import was already written whole, and stands (profile dev)"), err)
    }

    /// SIGTERM the moment a login's token is on disk: the process ends once the account keys written
    /// with it are too, never leaving a token with no account beside it.
    func testASIGTERMAsALoginsTokenIsWrittenLeavesItsAccountBesideIt() throws {
        var caught = 0
        for _ in 0..<3 {
            let ws = Workspace()
            ws.baseURL = url
            let process = try PasswordProcess.start(SXKBinary.path, ["--base-url", url.absoluteString, "--state-dir", ws.stateDir, "login", "13800000004",
                                                                     "--password-stdin", "--accept-privacy", "--account", "2"], environment: ws.environment)
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < deadline, !FileManager.default.fileExists(atPath: ws.tokenFile) { usleep(100) }
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            guard FileManager.default.fileExists(atPath: ws.tokenFile) else { continue }
            caught += 1
            let keys = (try? JSONSerialization.jsonObject(with: ws.read(ws.defaultsFile) ?? Data())) as? [String: Any]
            XCTAssertEqual(keys?["key_in_user_id"] as? Int, 4002, "a token with no account beside it (exit \(process.terminationStatus))")
        }
        XCTAssertGreaterThan(caught, 0, "no login got as far as its token")
    }

    /// An export within the 16 MB read limit whose keys take more than 16 MB as JSON (3 MB of control
    /// characters, six bytes each once escaped) would be written and then set aside as corrupt at the
    /// next read, its token left behind: it is refused before anything is written, and the profile
    /// it would have replaced keeps its keys and its token.
    func testAnImportTooLargeToStoreChangesNothing() throws {
        let ws = Workspace()
        let first = try export(ws, name: "first.plist", token: staleToken)
        XCTAssertEqual(SXK.run(["import-defaults", first, "--profile", "device"], in: ws, baseURL: url).status, 0)
        let before = files(ws, profile: "device")
        XCTAssertNotNil(before["token"] ?? nil)
        let big = try export(ws, name: "big.plist", token: "another-device-token-0123456789ab",
                             extra: ["key_in_user_id": 3002, "3002_store_queue_note": String(repeating: "\u{1}", count: 3_000_000)])
        let r = SXK.run(["import-defaults", big, "--profile", "device"], in: ws, baseURL: url, timeout: 60)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertTrue(r.errorLines.first?.contains("more than the 16 MB") ?? false, r.summary)
        XCTAssertFalse(r.stderr.contains("imported"), r.summary)
        XCTAssertTrue(files(ws, profile: "device") == before, "the failed import changed the profile")
        let setAside = (try? FileManager.default.contentsOfDirectory(atPath: ws.stateDir + "/device")) ?? []
        XCTAssertFalse(setAside.contains { $0.contains("corrupt") }, "\(setAside)")
        // Into a profile of its own, the refused write leaves no folder behind.
        let fresh = SXK.run(["import-defaults", big, "--profile", "fresh"], in: ws, baseURL: url, timeout: 60)
        XCTAssertEqual(fresh.status, 1, fresh.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/fresh"), "an empty profile was left")
    }

    /// The global `--profile` and SXK_PROFILE name the profile an import goes into, as they name every
    /// other command's: two customers' exports imported that way keep two profiles, neither replaced.
    func testTheGlobalProfileNamesTheImportsProfile() throws {
        let ws = Workspace()
        let first = try export(ws, name: "a.plist", token: staleToken)
        let a = SXK.run(["--profile", "cust-a", "import-defaults", first], in: ws, baseURL: url)
        XCTAssertEqual(a.status, 0, a.summary)
        XCTAssertTrue(a.stderr.contains("into profile cust-a"), a.summary)
        let b = SXK.run(["import-defaults", first], in: ws, baseURL: url, env: ["SXK_PROFILE": "cust-b"])
        XCTAssertEqual(b.status, 0, b.summary)
        XCTAssertTrue(b.stderr.contains("into profile cust-b"), b.summary)
        for profile in ["cust-a", "cust-b"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: ws.stateDir + "/\(profile)/defaults.json"), profile)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/imported"), "an import went to the default profile")
        // The profile the shell started with, not the one an earlier import made current.
        let shell = Workspace()
        let second = try export(shell, name: "b.plist", token: staleToken)
        let both = SXK.run(["-c", "import-defaults --profile cust-c \(first); import-defaults \(second)"], in: shell, baseURL: url)
        XCTAssertEqual(both.status, 0, both.summary)
        XCTAssertTrue(both.stderr.contains("into profile cust-c") && both.stderr.contains("into profile imported"), both.summary)
    }

    /// A time an export gives as text has no zone: read as Asia/Shanghai time (the backend's), and the
    /// report names the key; epoch seconds given as text are the instant they name, not reported.
    func testATimeGivenAsTextIsReadAsShanghaiTimeAndSaid() throws {
        let ws = Workspace()
        let key = "3001_store_key_last_location_report_time"
        let file = try export(ws, name: "t.plist", token: staleToken, extra: [key: "2026-12-06 01:59:32", "3001_store_key_online_status": true])
        let r = SXK.run(["import-defaults", file, "--profile", "text-time", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let report = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(report["readAsShanghaiTime"] as? [String], [key], r.summary)
        let table = SXK.run(["import-defaults", file, "--profile", "text-time"], in: ws, baseURL: url)
        XCTAssertTrue(table.stderr.contains("read as Asia/Shanghai time (the backend's zone)"), table.summary)
        let keys = try XCTUnwrap(try SXK.run(["--profile", "text-time", "keys", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        // 01:59:32 in Shanghai (UTC+8) is 17:59:32 UTC the day before.
        XCTAssertEqual((keys[key] as? NSNumber)?.doubleValue, 1_796_493_572)
        let epoch = try export(ws, name: "e.plist", token: staleToken, extra: [key: "1796493572"])
        let plain = try XCTUnwrap(try SXK.run(["import-defaults", epoch, "--profile", "epoch-time", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(plain["readAsShanghaiTime"] as? [String], [])
    }

    /// `--profile ""` (a script's unset variable) is not the default profile: refused, and the
    /// session logged in there stays.
    func testAnEmptyProfileNameIsRefused() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let token = ws.token()
        let defaults = ws.read(ws.defaultsFile)
        let file = try export(ws, name: "device.plist", token: staleToken)
        let r = SXK.run(["import-defaults", file, "--profile", ""], in: ws, baseURL: url)
        XCTAssertNotEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.errorLines, ["error: invalid profile name '': one folder name, not starting with '-', without '/', '..', control or invisible characters (letters, digits, '.', '-' and '_' are safe)"], r.summary)
        XCTAssertEqual(ws.token(), token)
        XCTAssertEqual(ws.read(ws.defaultsFile), defaults)
    }

    /// A file that cannot be used is refused before the profile's folder is made: a later `boot
    /// --profile` of that name says there is none, instead of replaying an empty state.
    func testAFileThatCannotBeUsedLeavesNoProfile() throws {
        let ws = Workspace()
        let broken = ws.root + "/broken.plist"
        try Data("bplist00 not really".utf8).write(to: URL(fileURLWithPath: broken))
        // A file that cannot be read is a failure (1); one that is not there, or a folder, the command line's mistake (2).
        for (file, status) in [(broken, Int32(1)), (ws.root + "/missing.plist", 2), (ws.root, 2)] {
            let r = SXK.run(["import-defaults", file, "--profile", "bad-x"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, status, r.summary)
            XCTAssertEqual(r.errorLines.count, 1, r.summary)
            XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/bad-x"), "a profile was made for \(file)")
        }
        let boot = SXK.run(["-c", "boot --profile bad-x"], in: ws, baseURL: url)
        XCTAssertEqual(boot.status, 2, boot.summary)
        XCTAssertTrue(boot.errorLines.first?.contains("no profile 'bad-x'") ?? false, boot.summary)
    }

    /// Without a token the app opens the login page (seed 000 §1): `boot`, `explain dialog` and `home`
    /// agree that no home runs and no dialog shows, whatever account keys the export holds.
    func testWithoutATokenEveryViewSaysTheLoginPage() throws {
        let ws = Workspace()
        let file = try export(ws, name: "device.plist", token: nil, extra: ["3001_store_key_in_permission": Data("[]".utf8)])
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url).status, 0)
        let before = files(ws, profile: "device")
        server.resetRequestLog()

        let boot = SXK.run(["--profile", "device", "boot", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(boot.status, 0, boot.summary)
        let bootJSON = try XCTUnwrap(try boot.json() as? [String: Any])
        XCTAssertEqual((bootJSON["firstScreen"] as? [String: Any])?["name"] as? String, "login page", boot.summary)
        XCTAssertTrue(bootJSON["dialog"] is NSNull, boot.summary)

        let explain = SXK.run(["--profile", "device", "explain", "dialog", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(explain.status, 0, explain.summary)
        let explainJSON = try XCTUnwrap(try explain.json() as? [String: Any])
        XCTAssertTrue(explainJSON["dialog"] is NSNull, "explain dialog: \(explain.stdout)")

        for args in [["home"], ["home", "--offline"], ["home", "--apply"]] {
            let home = SXK.run(["--profile", "device"] + args, in: ws, baseURL: url)
            XCTAssertEqual(home.status, 3, home.summary)
            XCTAssertEqual(home.errorLines, ["error: no token: the app opens the login page, so the home never runs (seed 000 §1) — `boot` replays that launch"], home.summary)
        }
        XCTAssertEqual(server.requestLog().count, 0, "\(server.requestLog().map(\.path))")
        XCTAssertTrue(files(ws, profile: "device") == before, "a view changed the import")
    }

    /// An export without `key_in_user_id`: the app still reads the role and scenic keys (seed 000
    /// §4.2) and its lists under `guest` (§6.1), so `whoami`, `explain scope` and `boot` name the same
    /// role, scenic and store instead of some reading the keys and others an empty context.
    func testWithoutAUserIdEveryViewReadsTheSameScope() throws {
        let ws = Workspace()
        let file = try export(ws, name: "device.plist", token: staleToken, extra: [
            "guest_key_in_permission": try JSONSerialization.data(withJSONObject: [["uri": "home/order", "name": "订单"]]),
        ])
        // The helper's export always has a user id: rewrite it without one.
        var device = try XCTUnwrap(try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: file)), format: nil) as? [String: Any])
        device["key_in_user_id"] = nil
        device["3001_store_key_in_permission"] = nil
        try PropertyListSerialization.data(fromPropertyList: device, format: .binary, options: 0).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url).status, 0)

        let who = try XCTUnwrap(try SXK.run(["--profile", "device", "whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertTrue(who["userId"] is NSNull, "\(who)")
        XCTAssertEqual(who["roleCode"] as? String, "storeAdmin", "\(who)")
        XCTAssertEqual(who["scenicId"] as? Int, 1, "\(who)")
        XCTAssertEqual(who["storeId"] as? Int, 301, "\(who)")
        let scope = SXK.run(["--profile", "device", "explain", "scope"], in: ws, baseURL: url)
        XCTAssertTrue(scope.stdout.contains("account scope guest, role storeAdmin, scenic 1, store 301"), scope.summary)
        let boot = SXK.run(["--profile", "device", "boot"], in: ws, baseURL: url)
        XCTAssertEqual(boot.status, 0, boot.summary)
        XCTAssertFalse(boot.stdout.contains("no scenic selected"), boot.summary)
    }

    /// A role the stored role-permission list has no entry for, and a scenic the app does not count
    /// as valid: the views that show the stored state say what the next home (which `boot`, `home`
    /// and `explain` replay) will make of them, instead of presenting them as settled.
    func testViewsOfTheStoredStateSayWhatTheNextHomeChanges() throws {
        let ws = Workspace()
        let roles: [[String: Any]] = [["roleCode": "storeAdmin", "roleName": "门店管理员", "scenicList": [["scenicId": 1, "scenicName": "西湖景区"]],
                                       "permissions": [["uri": "home/order", "name": "订单"]]]]
        let file = try export(ws, name: "device.plist", token: staleToken, extra: [
            "key_in_role_code": "cashier", "key_in_current_scenic_id": 0,
            "3001_store_key_role_permission_list": try JSONSerialization.data(withJSONObject: roles),
        ])
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url).status, 0)
        let explain = SXK.run(["--profile", "device", "explain", "dialog"], in: ws, baseURL: url)
        XCTAssertTrue(explain.stdout.contains("permission"), explain.summary)
        for args in [["whoami"], ["permissions"], ["menus"]] {
            let r = SXK.run(["--profile", "device"] + args, in: ws, baseURL: url)
            XCTAssertTrue(r.stderr.contains("role cashier has no entry in the stored role-permission list"), "\(args): \(r.summary)")
        }
        let who = SXK.run(["--profile", "device", "whoami"], in: ws, baseURL: url)
        XCTAssertTrue(who.stderr.contains("scenic id 0 is not a valid scenic"), who.summary)
        XCTAssertTrue(who.stderr.contains("[inferred:"), who.summary)
    }

    /// `location` shows what the device keeps and asks the server nothing (seed 000 §6.3); only
    /// `location detail` calls, and on a snapshot with a stale token it says so.
    func testLocationAloneSendsNothing() throws {
        let ws = Workspace()
        let file = try export(ws, name: "device.plist", token: staleToken)
        XCTAssertEqual(SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url).status, 0)
        server.resetRequestLog()
        let r = SXK.run(["--profile", "device", "location"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(server.requestLog().map(\.path), [], r.summary)
        XCTAssertFalse(r.stderr.contains("rejects"), r.summary)
        let detail = SXK.run(["--profile", "device", "location", "detail"], in: ws, baseURL: url)
        XCTAssertNotEqual(server.requestLog().count, 0, detail.summary)
    }

    /// A key named like a secret (a queue-calling password the app keeps) is hidden in the table,
    /// CSV, records and JSON views of `keys` and in `explain key`, as one rule; a key that holds the
    /// session token is not imported at all (the token lives in the token file only).
    func testSecretKeysStayHiddenInEveryView() throws {
        let ws = Workspace()
        let file = try export(ws, name: "device.plist", token: staleToken, extra: [
            "3001_store_queue_password": "hunter2hunter2",
            "3001_store_key_in_token": staleToken,
            // Copies in other forms (another case, base64) are the token too.
            "3001_store_tokcopy": staleToken.uppercased(),
            "3001_store_tokb64": Data(staleToken.utf8).base64EncodedString(),
        ])
        let imported = SXK.run(["import-defaults", file, "--profile", "device"], in: ws, baseURL: url)
        XCTAssertEqual(imported.status, 0, imported.summary)
        for key in ["3001_store_key_in_token", "3001_store_tokcopy", "3001_store_tokb64"] {
            XCTAssertTrue(imported.stderr.contains("\(key): not imported: holds the session token"), imported.summary)
        }
        let stored = String(decoding: ws.read(ws.stateDir + "/device/defaults.json") ?? Data(), as: UTF8.self)
        XCTAssertFalse(stored.contains(staleToken), "the token was written to defaults.json")
        XCTAssertTrue(stored.contains("3001_store_queue_password"), "the app's own key is kept")
        for args in [["keys"], ["keys", "--csv"], ["keys", "-x"], ["keys", "--json"], ["explain", "key", "3001_store_queue_password"],
                     ["explain", "key", "3001_store_queue_password", "--json"]] {
            let r = SXK.run(["--profile", "device"] + args, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            XCTAssertFalse(r.stdout.contains("hunter2"), "\(args): \(r.stdout)")
            XCTAssertTrue(r.stdout.contains("3001_store_queue_password"), "\(args): \(r.stdout)")
        }
    }
}
