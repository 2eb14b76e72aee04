import Foundation
import SXKSandbox
import SXKShell
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
        // A machine format says how far it got too (on stderr, beside the rows it wrote).
        server.setLatency(milliseconds: 400)
        s.send("orders --all --page-size 5 --ndjson\r")
        try s.expect("orderNo")
        s.send("\u{03}")
        try s.expect("interrupted after")
        try s.expect("›", timeout: 5)
        server.setLatency(milliseconds: 0)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A Ctrl-C at the prompt is the line editor's: it is not kept to cancel the next command as it
    /// starts (as a one-shot's or a script's is).
    func testCtrlCAtThePromptDoesNotCancelTheNextCommand() throws {
        try logIn("13800000001")
        let s = try start()
        s.send("\u{03}")
        try s.expect("›")
        try s.waitForEditor()
        s.send("get /api/app/config --json\r")
        try s.expect("\"latestVersion\"", timeout: 5)
        try s.expect("›")
        XCTAssertFalse(s.screen.contains("interrupted"), s.screen)
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

    /// A window made narrower after start-up: the next table is fitted to the new width, and the
    /// line editor keeps working on it.
    func testTablesFollowAWindowResizedAfterStartUp() throws {
        try logIn("13800000003")
        let s = try start()
        // The table's lines as the terminal shows them (a "waiting for" line a slow request drew is
        // erased); its rows by their order numbers' form, whatever the year.
        let row = try NSRegularExpression(pattern: "SX[0-9]{8}")
        func widestTableLine(from start: Int) throws -> Int {
            _ = try s.expect("page 1/")
            _ = try s.expect("›")
            return TerminalLines.render(Array(s.raw[start...]))
                .filter { $0.contains("ORDER NO") || row.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
                .map { TextWidth.width($0) }.max() ?? 0
        }
        var start = s.raw.count
        s.send("orders --page-size 2\r")
        let wide = try widestTableLine(from: start)
        s.resize(rows: 30, columns: 80)
        s.send("version\r")  // something in between, so the resize has certainly arrived
        _ = try s.expect("›")
        start = s.raw.count
        s.send("orders --page-size 2\r")
        let narrow = try widestTableLine(from: start)
        XCTAssertGreaterThan(wide, 80, "the table should use the 100 columns it had first")
        XCTAssertLessThanOrEqual(narrow, 80, "the table after the resize is \(narrow) columns wide:\n\(s.screen.suffix(1200))")
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
        let history = (try? String(contentsOf: profileDir.appendingPathComponent("history"), encoding: .utf8)) ?? ""
        XCTAssertFalse(history.contains("login"), "a login line reached the history file")
        XCTAssertFalse(history.contains("sandbox123"))
    }

    /// The password typed after a `login` that failed locally (privacy not accepted) runs as an
    /// unknown command; that line never reaches the history file, though recall still has it.
    func testPasswordTypedAsACommandStaysOutOfTheHistoryFile() throws {
        let s = try start()
        s.send("login 13800000004\r")
        try s.expect("privacy")
        try s.expect("›")
        s.send("sandbox123\r")
        try s.expect("unknown command")
        try s.expect("›")
        s.send("version\r")
        try s.expect("›")
        s.send("\u{1B}[A\u{1B}[A")  // two lines back: the rejected line is still offered
        try s.expect("sandbox123")
        s.send("\u{15}exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        let path = profileDir.appendingPathComponent("history").path
        let history = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(history.contains("version"), "the history file was not written: \(history)")
        XCTAssertFalse(history.contains("sandbox123"), "the password reached \(path):\n\(history)")
        XCTAssertFalse(history.contains("login"))
    }

    /// A `history.lock` planted as a symlink is not followed: the shell warns once at exit that the
    /// history was not saved, and the link's target is never created.
    func testPlantedHistoryLockSymlinkIsNotFollowed() throws {
        let s = try start()
        let target = home.appendingPathComponent("planted").path
        XCTAssertEqual(symlink(target, profileDir.appendingPathComponent("history.lock").path), 0)
        s.send("version\r")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        XCTAssertTrue(PTYSession.unwrapped(s.screen).contains("history.lock: it is a symbolic link"), s.screen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "the lock symlink was followed")
    }
}

extension SessionPTYTests {
    /// Ctrl-C while the REPL validates a restored session at its first command: the command is
    /// interrupted, and the session is not taken for offline (no answer said anything of it).
    func testCtrlCDuringTheFirstValidationIsNotOffline() throws {
        try logIn("13800000003")
        let s = try start()
        server.setLatency(milliseconds: 4_000)
        defer { server.setLatency(milliseconds: 0) }
        server.resetRequestLog()
        s.send("orders --page-size 1\r")
        let deadline = Date().addingTimeInterval(10)
        while !server.requestLog().contains(where: { $0.path == "/api/yf-handset-app/userinfo" }) && Date() < deadline { usleep(10_000) }
        s.send("\u{03}")
        let after = try s.expect("›", timeout: 10)
        XCTAssertFalse(after.contains("offline"), after)
        XCTAssertFalse(after.contains("could not be validated"), after)
        XCTAssertEqual(after.components(separatedBy: "error:").count - 1, 1, after)
        s.send("exit\r")
        _ = try s.waitForExit()
    }
}
