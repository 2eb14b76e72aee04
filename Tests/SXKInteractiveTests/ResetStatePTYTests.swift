import Foundation
import SXKSandbox
import XCTest

/// `sxk --reset-state` on a terminal asks before clearing: "n" (or Enter) keeps everything and stops,
/// "y" clears the profile and the shell starts logged out.
final class ResetStatePTYTests: XCTestCase {
    var home: URL!
    var server: SandboxServer!
    var baseURL: URL!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("sxk-pty-reset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        server = SandboxServer(config: SandboxConfig())
        baseURL = try server.start()
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: home)
    }

    var environment: [String: String] {
        [
            "HOME": home.path, "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
            "TERM": "xterm", "LANG": "C.UTF-8",
        ]
    }

    var stateDir: String { home.appendingPathComponent("sxk-state").path }
    var tokenFile: String { stateDir + "/custom/token" }
    var defaultsFile: String { stateDir + "/custom/defaults.json" }
    var arguments: [String] { ["--base-url", baseURL.absoluteString, "--state-dir", stateDir, "--reset-state"] }

    func logIn() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: InteractiveShellTests.binary)
        process.arguments = ["--base-url", baseURL.absoluteString, "--state-dir", stateDir, "login", "13800000001", "--password-stdin", "--accept-privacy"]
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("sandbox123\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "login failed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: tokenFile))
    }

    func testAnswerNoKeepsStateAndStops() throws {
        try logIn()
        let before = FileManager.default.contents(atPath: defaultsFile)
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: arguments, environment: environment)
        try s.expect("Reset state of profile 'custom' (token, snapshot, preferences)? [y/N] ")
        s.send("n\r")
        try s.expect("error: reset cancelled: profile 'custom' left as it was")
        XCTAssertEqual(try s.waitForExit(), 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: tokenFile), "token removed after answering n")
        XCTAssertEqual(FileManager.default.contents(atPath: defaultsFile), before, "defaults.json changed after answering n")
        XCTAssertFalse(s.screen.contains("›"), "the shell started after the reset was declined")
    }

    func testEnterAloneIsNo() throws {
        try logIn()
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: arguments, environment: environment)
        try s.expect("[y/N] ")
        s.send("\r")
        try s.expect("reset cancelled")
        XCTAssertEqual(try s.waitForExit(), 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: tokenFile))
    }

    func testAnswerYesClearsAndStartsLoggedOut() throws {
        try logIn()
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: arguments, environment: environment)
        try s.expect("[y/N] ")
        s.send("y\r")
        try s.expect("reset-state: profile 'custom' cleared (token and defaults.json removed)")
        try s.expect("(logged out) ›")
        try s.waitForEditor()
        XCTAssertFalse(FileManager.default.fileExists(atPath: tokenFile))
        XCTAssertFalse(FileManager.default.fileExists(atPath: defaultsFile))
        s.send("boot\r")
        try s.expect("first screen: login page")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }
}
