import Foundation
import SXKSandbox
import XCTest

/// The app's commands in a pseudo-terminal against an in-process sandbox: what a person sees when
/// they press Ctrl-C mid-request, or Tab after a scope command.
final class SessionPTYTests: SandboxPTYTestCase {
    func testCtrlCDuringSlowStreamingReturnsToPromptAndSessionStillWorks() throws {
        try logIn("13800000001")
        server.setLatency(milliseconds: 400)
        let s = try start()
        s.send("orders --all --page-size 5\r")
        try s.expect("ORDER NO")
        let pressed = Date()
        s.send("\u{03}")
        try s.expect("interrupted after")
        try s.expect("›", timeout: 5)
        // The request in flight is cancelled; the prompt is back well before the next page would arrive.
        XCTAssertLessThan(Date().timeIntervalSince(pressed), 2.0)
        server.setLatency(milliseconds: 0)
        s.send("whoami\r")
        try s.expect("loggedIn")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testTabCompletesChineseScenicNameAndStoreId() throws {
        try logIn("13800000002")
        let s = try start()
        s.send("role\r")
        try s.expect("scenicAdmin")
        try s.expect("›")
        s.send("scenic 灵\t")
        try s.expect("灵隐寺")
        s.send("\r")
        try s.expect("now role scenicAdmin")
        try s.expect("›")
        s.send("store\r")
        try s.expect("201")
        try s.expect("›")
        s.send("store 2\t")
        try s.expect("store 201")
        s.send("\r")
        try s.expect("store 201")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testPasswordPromptDoesNotEcho() throws {
        let s = try start()
        s.send("login 13800000001 --accept-privacy\r")
        try s.expect("password:")
        s.send("sandbox123\r")
        let screen = try s.expect("logged in as")
        XCTAssertFalse(screen.contains("sandbox123"), "the password was echoed")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        let history = (try? String(contentsOf: home.appendingPathComponent("sxk-state/custom/history"), encoding: .utf8)) ?? ""
        XCTAssertFalse(history.contains("login"), "a login line reached the history file")
        XCTAssertFalse(history.contains("sandbox123"))
    }
}
