import Foundation
import SXKSandbox
import XCTest

/// `sxk --reset-state` on a terminal asks before clearing: "n" (or Enter) keeps everything and stops,
/// "y" clears the profile and the shell starts logged out.
final class ResetStatePTYTests: SandboxPTYTestCase {
    var tokenFile: String { profileDir.appendingPathComponent("token").path }
    var defaultsFile: String { profileDir.appendingPathComponent("defaults.json").path }
    var arguments: [String] { globalArguments + ["--reset-state"] }

    func logInWithToken() throws {
        try logIn()
        XCTAssertTrue(FileManager.default.fileExists(atPath: tokenFile))
    }

    func testAnswerNoKeepsStateAndStops() throws {
        try logInWithToken()
        let before = FileManager.default.contents(atPath: defaultsFile)
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: arguments, environment: environment)
        try s.expect("Reset state of profile '\(profile)' (token, snapshot, preferences)? [y/N] ")
        s.send("n\r")
        try s.expect("error: reset cancelled: profile '\(profile)' left as it was")
        XCTAssertEqual(try s.waitForExit(), 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: tokenFile), "token removed after answering n")
        XCTAssertEqual(FileManager.default.contents(atPath: defaultsFile), before, "defaults.json changed after answering n")
        XCTAssertFalse(s.screen.contains("›"), "the shell started after the reset was declined")
    }

    func testEnterAloneIsNo() throws {
        try logInWithToken()
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: arguments, environment: environment)
        try s.expect("[y/N] ")
        s.send("\r")
        try s.expect("reset cancelled")
        XCTAssertEqual(try s.waitForExit(), 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: tokenFile))
    }

    func testAnswerYesClearsAndStartsLoggedOut() throws {
        try logInWithToken()
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: arguments, environment: environment)
        try s.expect("[y/N] ")
        s.send("y\r")
        try s.expect("reset-state: profile '\(profile)' cleared (token and defaults.json and accounts.json removed)")
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
