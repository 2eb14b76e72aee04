import Foundation
import SXKTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `boot` (the cold start replayed on stored state) and `--reset-state`, through the real binary.
final class BootTests: BothSpellingsTestCase {
    func bootJSON(_ ws: Workspace, _ url: URL, _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = SXK.run(["boot", "--json"] + extra, in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary, file: file, line: line)
        return try XCTUnwrap(try r.json() as? [String: Any], r.summary, file: file, line: line)
    }

    func sdks(_ boot: [String: Any]) -> [String: Bool] {
        let list = (boot["launch"] as? [String: Any])?["sdks"] as? [[String: Any]] ?? []
        var out: [String: Bool] = [:]
        for sdk in list { out[sdk["name"] as? String ?? "?"] = sdk["initialised"] as? Bool }
        return out
    }

    func callPaths(_ boot: [String: Any]) -> [String] {
        (boot["calls"] as? [[String: Any]] ?? []).map { "\($0["method"] as? String ?? "") \($0["path"] as? String ?? "")" }
    }

    func screen(_ boot: [String: Any]) -> String? { (boot["root"] as? [String: Any])?["screen"] as? String }

    func testFreshProfileBootsToLoginPageAndSendsNothing() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        let r = SXK.run(["boot"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stdout.contains("first screen: login page"), r.summary)
        XCTAssertTrue(r.stdout.contains("   1. GET /api/app/config"), r.summary)
        XCTAssertTrue(r.stdout.contains("Umeng   not initialised: privacy agreement not accepted"), r.summary)
        let boot = try bootJSON(ws, url)
        XCTAssertEqual(screen(boot), "loginPage")
        XCTAssertEqual(sdks(boot), ["Umeng": false, "WeChat": true, "AMap": false])
        XCTAssertEqual(callPaths(boot), ["GET /api/app/config"])
        XCTAssertEqual(paths(server.requestLog()), [], "boot made requests")
    }

    func testAfterLoginBootsToMainTabWithHomeSequenceAndMaskedToken() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let token = try XCTUnwrap(ws.token())
        server.resetRequestLog()
        let r = SXK.run(["boot", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertFalse(r.stdout.contains(token) || r.stderr.contains(token), "boot printed the token")
        let boot = try XCTUnwrap(try r.json() as? [String: Any])
        XCTAssertEqual(boot["profile"] as? String, ws.profile)
        XCTAssertEqual(screen(boot), "mainTab")
        XCTAssertEqual(sdks(boot), ["Umeng": true, "WeChat": true, "AMap": true])
        XCTAssertEqual(callPaths(boot), ["GET /api/yf-handset-app/role-permission", "GET /api/app/store/all"])
        let first = try XCTUnwrap((boot["calls"] as? [[String: Any]])?.first)
        XCTAssertEqual((first["reads"] as? [String: Any])?["key_in_role_code"] as? String, "storeAdmin")
        XCTAssertEqual(paths(server.requestLog()), [], "boot made requests")
        // What boot predicted is what home then calls (the two go out together: the server sees them in either order).
        let home = SXK.run(["home", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(home.status, 0, home.summary)
        let homeCalls = paths(server.requestLog()).filter { $0 != "/api/yf-handset-app/userinfo" }
        XCTAssertEqual(Set(homeCalls.suffix(2)), ["/api/yf-handset-app/role-permission", "/api/app/store/all"])
        XCTAssertEqual(callPaths(try XCTUnwrap(try home.json() as? [String: Any])), callPaths(boot), "home's calls in the app's order")
    }

    /// A device export with privacy accepted and no token: the user would see the login page, phone filled.
    func testImportDefaultsThenBootAnswersWhatTheUserSees() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        let export = ws.root + "/device.json"
        var device: [String: Any] = [
            "key_last_login_username": "13800000004",
            "key_privacy_agreement_accepted": true,
            "key_in_user_id": 4001, "key_in_account_type": "scenic", "key_in_role_code": "photographer",
            "key_in_current_scenic_id": 3, "key_in_current_scenic_name": "千岛湖",
            "4001_scenic_key_in_permission": [["uri": "photog/orders", "name": "订单"]],
            "4001_scenic_key_current_role_scenic_list": [["scenicId": 3, "scenicName": "千岛湖"]],
            "4001_scenic_key_role_permission_list": [["roleCode": "photographer", "scenicList": [["scenicId": 3, "scenicName": "千岛湖"]],
                                                      "permissions": [["uri": "photog/orders", "name": "订单"]]]],
            "4001_scenic_key_location_reminder_minutes": 20,
        ]
        try JSONSerialization.data(withJSONObject: device).write(to: URL(fileURLWithPath: export))
        let r = SXK.run(["-c", "import-defaults \(export); boot --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let json = try XCTUnwrap(r.stdout.split(separator: "\n").last.map(String.init))
        let boot = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], r.summary)
        XCTAssertEqual(boot["profile"] as? String, "imported")
        XCTAssertEqual(screen(boot), "loginPage")
        XCTAssertEqual(sdks(boot), ["Umeng": true, "WeChat": true, "AMap": false])
        XCTAssertEqual(callPaths(boot), ["GET /api/app/config"])

        // The same device with its token: the main tab, and the photographer's location check.
        device["key_in_token"] = "tok_device_0123456789abcdef"
        try JSONSerialization.data(withJSONObject: device).write(to: URL(fileURLWithPath: export))
        let again = SXK.run(["import-defaults", export, "--profile", "device"], in: ws, baseURL: url)
        XCTAssertEqual(again.status, 0, again.summary)
        let withToken = try bootJSON(ws, url, ["--profile", "device"])
        XCTAssertEqual(withToken["profile"] as? String, "device")
        XCTAssertEqual(screen(withToken), "mainTab")
        XCTAssertEqual(sdks(withToken), ["Umeng": true, "WeChat": true, "AMap": true])
        XCTAssertEqual(callPaths(withToken), [
            "GET /api/yf-handset-app/role-permission", "GET /api/yf-handset-app/photog/loacation/detail?staff_id=4001",
        ])
        XCTAssertEqual(paths(server.requestLog()), [], "import and boot made requests")

        let missing = SXK.run(["boot", "--profile", "nobody"], in: ws, baseURL: url)
        XCTAssertEqual(missing.status, 2, missing.summary)
        XCTAssertEqual(missing.errorLines.count, 1, missing.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/nobody"), "boot created the profile")
    }

    func testResetStateRemovesTokenSnapshotAndPreferencesOfThatProfileOnly() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let other = SXK.run(["--profile", "other", "login", "13800000002", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(other.status, 0, other.summary)
        try Data("_HiStOrY_V2_\nwhoami\n".utf8).write(to: URL(fileURLWithPath: ws.historyFile))
        XCTAssertTrue(FileManager.default.fileExists(atPath: ws.defaultsFile))

        // Not a terminal: no question, the reset happens before the command runs.
        server.resetRequestLog()
        let r = SXK.run(["--reset-state", "whoami", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stderrLines, ["reset-state: profile '\(ws.profile)' cleared (token and defaults.json and accounts.json removed)"], r.summary)
        let who = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(who["phase"] as? String, "loggedOut")
        XCTAssertTrue(who["userId"] is NSNull, r.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.tokenFile))
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.defaultsFile), "defaults.json kept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: ws.historyFile), "history is the shell's, not the app's: kept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: ws.stateDir + "/other/token"), "another profile was touched")
        XCTAssertEqual(paths(server.requestLog()), [])

        // The next start is logged out and boots to the login page with privacy not accepted.
        let next = SXK.run(["orders"], in: ws, baseURL: url)
        XCTAssertEqual(next.status, 3, next.summary)
        let boot = try bootJSON(ws, url)
        XCTAssertEqual(screen(boot), "loginPage")
        XCTAssertEqual(sdks(boot)["Umeng"], false, "the privacy choice was not cleared")

        // Nothing stored: says so, still starts.
        let empty = SXK.run(["--reset-state", "version"], in: ws, baseURL: url)
        XCTAssertEqual(empty.status, 0, empty.summary)
        XCTAssertEqual(empty.stderrLines, ["reset-state: profile '\(ws.profile)' holds no token, snapshot or preferences; nothing to clear"])
    }

    func testResetStateFollowsProfileAndEnvironmentVariables() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        let other = SXK.run(["--profile", "p2", "login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(other.status, 0, other.summary)
        SXK.login("13800000003", in: ws, baseURL: url)
        let r = SXK.run(["--reset-state", "version"], in: ws, baseURL: url, env: ["SXK_PROFILE": "p2"])
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/p2/token"))
        XCTAssertNotNil(ws.token(), "the default profile was reset instead of SXK_PROFILE's")
    }
}
