import Foundation
import SXKSandbox
import SXKShell
import XCTest

/// `watch` in a pseudo-terminal: it redraws the screen run after run, and Ctrl-C stops it and gives
/// the prompt back with the session intact.
final class WatchPTYTests: SandboxPTYTestCase {
    func testCtrlCStopsWatchAndThePromptReturns() throws {
        try logIn("13800000001")
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: environment)
        try s.expect("›")
        try s.waitForEditor()
        s.send("watch -n 0.3 orders --page-size 2\r")
        try s.expect("Every 0.3s: orders --page-size 2")
        try s.expect("ORDER NO")
        try s.expect("run 2")
        try s.expect("ORDER NO")
        // Each run clears the screen and draws from the top.
        let clears = String(decoding: s.raw, as: UTF8.self).components(separatedBy: "\u{1B}[H\u{1B}[2J").count - 1
        XCTAssertGreaterThanOrEqual(clears, 2, "the screen was not redrawn")
        let pressed = Date()
        s.send("\u{03}")
        try s.expect("watch: stopped ", timeout: 5)
        try s.expect("›", timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(pressed), 3.0)
        let back = Date()
        XCTAssertFalse(s.screen.contains("error: interrupted"), "Ctrl-C was reported as a failure:\n\(s.screen)")
        // No run starts after the prompt is back (a request sent before it may be logged later: counted
        // by when it arrived), and the session still works.
        s.send("whoami\r")
        try s.expect("loggedIn")
        try s.expect("›")
        Thread.sleep(forTimeInterval: 1.0)
        let late = server.requestLog().filter { $0.path == "/api/yf-handset-app/photog/order/listv2" && $0.arrived > back }
        XCTAssertEqual(late.count, 0, "watch kept running after Ctrl-C")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// Under `TERM=dumb` nothing moves the cursor or pages: `watch` prints its runs one after
    /// another and a long table is printed whole, not handed to `less`.
    func testADumbTerminalIsNeitherRedrawnNorPaged() throws {
        try logIn("13800000001")
        var env = environment
        env["TERM"] = "dumb"
        env["SXK_PAGER"] = nil
        env["PAGER"] = nil
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: env, rows: 10)
        try s.expect("›")
        s.send("watch -n 0.2 --count 2 orders --page-size 2\r")
        try s.expect("run 2")
        try s.expect("›")
        s.send("orders --page-size 30\r")
        try s.expect("page 1/")
        try s.expect("›")
        let raw = String(decoding: s.raw, as: UTF8.self)
        XCTAssertFalse(raw.contains("\u{1B}[H\u{1B}[2J"), "the screen was cleared on a dumb terminal")
        XCTAssertFalse(raw.contains("terminal is not fully functional"), "less ran on a dumb terminal")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// `watch -d` marks, in reverse video, what changed since the previous run: nothing in the first
    /// frame, the ticking session age in the second; without `-d` nothing is marked.
    func testDifferencesAreHighlighted() throws {
        let s = try loggedIn(rows: 60, columns: 100)
        s.send("watch -d --count 2 -n 1.1 whoami\r")
        try s.expect("run 2/2")
        try s.expect("›")
        let raw = String(decoding: s.raw, as: UTF8.self)
        let frames = raw.components(separatedBy: "\u{1B}[H\u{1B}[2J").dropFirst()
        XCTAssertEqual(frames.count, 2, raw)
        XCTAssertFalse(frames.first!.contains("\u{1B}[7m"), "the first frame has nothing to compare with")
        let second = frames.last!
        let marked = second.components(separatedBy: "\u{1B}[7m").dropFirst().map { $0.components(separatedBy: "\u{1B}[27m")[0] }
        XCTAssertFalse(marked.isEmpty, "nothing marked in the second frame:\n\(second)")
        // Only what changed: the ages (digits), never a whole unchanged line such as the account.
        XCTAssertTrue(marked.allSatisfy { $0.count <= 8 }, "\(marked)")
        XCTAssertTrue(second.contains("account type"), second)

        s.send("watch --count 2 -n 0.2 whoami\r")
        try s.expect("run 2/2")
        try s.expect("›")
        let plain = String(decoding: s.raw, as: UTF8.self).components(separatedBy: "\u{1B}[H\u{1B}[2J").dropFirst(3)
        XCTAssertFalse(plain.joined().contains("\u{1B}[7m"), "marked without -d")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// At 60 columns a long command's header keeps one row: the command is cut, the time and run stay.
    func testTheHeaderKeepsOneRowInANarrowWindow() throws {
        let s = try loggedIn(rows: 24, columns: 60)
        s.send("watch --count 1 -n 0.2 orders --page-size 2 --status completed\r")
        try s.expect("run 1/1")
        try s.expect("›")
        let frame = String(decoding: s.raw, as: UTF8.self).components(separatedBy: "\u{1B}[H\u{1B}[2J").last!
        let header = String(String.UnicodeScalarView(frame.unicodeScalars.prefix { $0 != "\r" && $0 != "\n" }))
        XCTAssertTrue(header.hasPrefix("Every 0.2s: orders --page-size 2"), header)
        XCTAssertTrue(header.hasSuffix(" · run 1/1"), header)
        XCTAssertLessThanOrEqual(header.count, 60, header)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A resize while watching fits the next frame's table to the new width, and the columns hidden
    /// to fit are said in the frame, as outside `watch`.
    func testAFrameFitsTheWindowAfterAResize() throws {
        let s = try loggedIn(rows: 30, columns: 160)
        s.send("watch -n 0.3 orders --page-size 2\r")
        try s.expect("run 1")
        s.resize(rows: 30, columns: 60)
        let mark = s.raw.count
        try s.expectRaw(matching: "run [3-9]", after: mark)
        let frames = String(decoding: s.raw[mark...], as: UTF8.self).components(separatedBy: "\u{1B}[H\u{1B}[2J")
        let last = try XCTUnwrap(frames.dropLast().last, "no whole frame after the resize")
        let lines = PTYSession.strip(Array(last.utf8)).split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\r")) }
        XCTAssertTrue(lines.allSatisfy { TextWidth.width($0) <= 60 }, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.contains("hidden to fit") }, lines.joined(separator: "\n"))
        s.send("\u{03}")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A REPL logged in as the photographer in a window of this size, at its prompt, editing.
    private func loggedIn(rows: UInt16, columns: UInt16) throws -> PTYSession {
        try logIn("13800000001")
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: environment, rows: rows, columns: columns)
        try s.expect("›")
        try s.waitForEditor()
        return s
    }
}
