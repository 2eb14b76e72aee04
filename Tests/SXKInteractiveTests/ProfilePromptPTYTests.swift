import Foundation
import XCTest

/// The prompt names a profile that is not its environment's own, so a session in `dev` never
/// looks like the plain `test` or base-URL one.
final class ProfilePromptPTYTests: SandboxPTYTestCase {
    func testPromptNamesANonDefaultProfile() throws {
        let session = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--profile", "dev"],
                                     environment: environment)
        try session.expect("sxk custom:dev (logged out) › ")
        try session.waitForEditor()
        session.send("exit\r")
        XCTAssertEqual(try session.waitForExit(), 0)
        // The environment's own profile keeps the short prompt.
        let plain = try start()
        XCTAssertFalse(plain.screen.contains("custom:"), plain.screen)
        plain.send("exit\r")
        XCTAssertEqual(try plain.waitForExit(), 0)
    }

    /// A device snapshot without a token, whose scenic the app does not count as valid and whose name
    /// is long: the prompt says "(no token)" (colour may be off), shows the scenic as `?`, and a
    /// valid long name is cut so the prompt stays on one row at 60 columns.
    private func importing(_ keys: [String: Any], as profile: String) throws {
        let file = home.appendingPathComponent("\(profile).json")
        try JSONSerialization.data(withJSONObject: keys).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: InteractiveShellTests.binary)
        process.arguments = globalArguments + ["import-defaults", file.path, "--profile", profile]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func testASnapshotsPromptSaysWhatTheAppWillDo() throws {
        let base: [String: Any] = ["key_in_user_id": 3001, "key_in_account_type": "store", "key_in_role_code": "storeAdmin",
                                   "key_in_current_store_id": 101]
        try importing(base.merging(["key_in_current_scenic_id": 0, "key_in_current_scenic_name": "西湖景区"]) { $1 }, as: "zero")
        try importing(base.merging(["key_in_current_scenic_id": 1, "key_in_current_scenic_name": String(repeating: "很长的景区名字", count: 6),
                                    "key_in_token": "device-token-0123456789abcdef"]) { $1 }, as: "long")
        var env = environment
        env["NO_COLOR"] = "1"
        let zero = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--profile", "zero"], environment: env, rows: 30, columns: 60)
        try zero.expect("storeAdmin@?/101 (snapshot) (no token) › ")
        zero.send("exit\r")
        XCTAssertEqual(try zero.waitForExit(), 0)
        let long = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--profile", "long"], environment: env, rows: 30, columns: 60)
        let screen = try long.expect(" › ")
        let promptLine = screen.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(promptLine.contains("storeAdmin@很长的景区名字…/101"), promptLine)
        long.send("exit\r")
        XCTAssertEqual(try long.waitForExit(), 0)
        // A stored store id of 0 is the app's "no store": no `/0` in the prompt, and the views say none.
        try importing(base.merging(["key_in_current_scenic_id": 1, "key_in_current_scenic_name": "西湖景区", "key_in_current_store_id": 0]) { $1 }, as: "nostore")
        let none = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--profile", "nostore"], environment: env, rows: 30, columns: 100)
        try none.expect("storeAdmin@西湖景区 (snapshot) (no token) › ")
        none.send("whoami\r")
        try none.expect("none (stored 0)")
        none.send("explain scope\r")
        try none.expect("store none (stored 0)")
        none.send("exit\r")
        XCTAssertEqual(try none.waitForExit(), 0)
    }

    /// A snapshot whose token this shell's first server command validated is not "restoring" at the
    /// prompts after it (each command still starts from the state as imported).
    func testASnapshotValidatedByThisShellIsNotShownAsRestoring() throws {
        try logIn("13800000003")
        let token = try String(contentsOf: profileDir.appendingPathComponent("token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try importing(["key_in_user_id": 3001, "key_in_account_type": "store", "key_in_role_code": "storeAdmin",
                       "key_in_current_scenic_id": 1, "key_in_current_scenic_name": "西湖景区", "key_in_current_store_id": 101,
                       "key_in_token": token], as: "device")
        var env = environment
        env["NO_COLOR"] = "1"
        let session = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--profile", "device"], environment: env)
        try session.expect("/101 (snapshot) (restoring) › ")
        try session.waitForEditor()
        session.send("profile\r")
        try session.expect("/101 (snapshot) › ", timeout: 20)
        session.send("exit\r")
        XCTAssertEqual(try session.waitForExit(), 0)
    }

    /// After the server rejected a snapshot's token, the lines typed are remembered in the snapshot's
    /// scope, as the prompt shows it, not as logged out; a line quoting the rejected token is not
    /// saved at all (it is still a secret).
    func testHistoryAfterASnapshotsRejectionKeepsItsScopeAndNotItsToken() throws {
        let token = "device-token-rejected-0123456789abcdef"
        try importing(["key_in_user_id": 3001, "key_in_account_type": "store", "key_in_role_code": "storeAdmin",
                       "key_in_current_scenic_id": 1, "key_in_current_scenic_name": "西湖景区", "key_in_current_store_id": 101,
                       "key_in_token": token], as: "device")
        var env = environment
        env["NO_COLOR"] = "1"
        let session = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--profile", "device"], environment: env, rows: 40, columns: 160)
        try session.expect("(restoring) › ")
        try session.waitForEditor()
        session.send("orders\r")
        try session.expect("(token rejected) › ", timeout: 20)
        session.send("explain key \(token)\r")
        try session.expect("*** is not a key")
        try session.expect("(token rejected) › ")
        session.send("keys --jq length\r")
        try session.expect("(token rejected) › ")
        session.send("history\r")
        let listed = try session.expect("(token rejected) › ")
        session.send("exit\r")
        XCTAssertEqual(try session.waitForExit(), 0)
        // The listing's line, not the prompt's echo of it.
        let keysLine = listed.split(separator: "\n").last { $0.contains("keys --jq length") && !$0.contains("›") }.map(String.init) ?? ""
        XCTAssertTrue(keysLine.contains("storeAdmin@西湖景区/101"), "history lists the line out of the snapshot's scope:\n\(listed)")
        XCTAssertFalse(keysLine.contains("logged out"), keysLine)
        let file = (try? String(contentsOf: stateDir.appendingPathComponent("device/history"), encoding: .utf8)) ?? ""
        XCTAssertTrue(file.contains("keys"), file)
        XCTAssertFalse(file.contains(token), "the rejected token was saved in history:\n\(file)")
    }

    /// A profile whose token another backend issued, opened with this one: the prompt says whose
    /// session it holds (the token is kept, not sent).
    func testAProfileOfAnotherBackendSaysWhoseSessionItHolds() throws {
        try logIn("13800000001", extra: [], profile: "prod")
        var env = environment
        env["NO_COLOR"] = "1"
        let other = ["--base-url", "http://127.0.0.1:9", "--state-dir", stateDir.path, "--profile", "prod"]
        let session = try PTYSession(executable: InteractiveShellTests.binary, arguments: other, environment: env)
        try session.expect("sxk custom:prod (logged out) (session of \(baseURL.absoluteString)) › ")
        XCTAssertTrue(session.screen.contains("profile prod holds a session of"), session.screen)
        session.send("exit\r")
        XCTAssertEqual(try session.waitForExit(), 0)
    }
}
