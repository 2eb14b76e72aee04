import Foundation
import XCTest

/// `make run` twice: the second `sxk --sandbox` REPL on the same state folder continues the session
/// the first one logged in (the sandbox's tokens live beside the profile), with no "expired" reset.
final class SandboxRestartPTYTests: XCTestCase {
    func testASecondSandboxREPLContinuesTheSession() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sxk-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "HOME": home.path, "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
            "TERM": "xterm", "LANG": "C.UTF-8", "SXK_PAGER": "cat",
        ]
        let first = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--sandbox"], environment: environment)
        try first.expect("sxk sandbox (logged out) › ")
        try first.waitForEditor()
        first.send("login 13800000001 --accept-privacy\r")
        try first.expect("password:")
        first.send("sandbox123\r")
        try first.expect("sxk sandbox photographer@西湖景区 › ", timeout: 30)
        first.send("exit\r")
        XCTAssertEqual(try first.waitForExit(), 0)

        // A new sandbox on a new port: the stored session is restored, then validated by the first
        // server command, and stays.
        let second = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--sandbox"], environment: environment)
        try second.expect("sxk sandbox photographer@西湖景区 (restoring) › ", timeout: 30)
        try second.waitForEditor()
        second.send("orders --limit 1\r")
        let seen = try second.expect("sxk sandbox photographer@西湖景区 › ", timeout: 30)
        XCTAssertTrue(seen.contains("ORDER NO"), seen)
        XCTAssertFalse(seen.contains("error:") || seen.contains("expired"), seen)
        second.send("whoami\r")
        let who = try second.expect("sxk sandbox photographer@西湖景区 › ")
        XCTAssertTrue(who.contains("loggedIn"), who)
        second.send("exit\r")
        XCTAssertEqual(try second.waitForExit(), 0)
    }
}
