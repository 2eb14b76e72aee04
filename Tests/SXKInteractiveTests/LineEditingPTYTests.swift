import Foundation
import SXKSandbox
import SXKShell
import XCTest

/// The line editor as a person meets it: commands continued over several lines, and a window
/// resized in the middle of a long line.
final class LineEditingPTYTests: SandboxPTYTestCase {
    /// A trailing `\` and an open quote continue on a `… › ` line; the joined command runs once and
    /// is one history entry.
    func testBackslashAndOpenQuoteContinueOnTheNextLine() throws {
        try logIn("13800000001")
        let s = try start()
        server.resetRequestLog()
        s.send("get /api/app/config \\\r")
        try s.expect("… › ")
        s.send("--json\r")
        let json = try s.expect("›")
        XCTAssertTrue(json.contains("enableRegister"), json)
        XCTAssertFalse(json.contains("error:"), json)

        s.send("post /api/app/x '{\"a\":\r")
        try s.expect("'… › ")
        s.send("1}'\r")
        let posted = try s.expect("›")
        XCTAssertFalse(posted.contains("unterminated"), posted)
        let bodies = server.requestLog().filter { $0.path == "/api/app/x" }.map(\.body)
        XCTAssertEqual(bodies.count, 1, "one request for the joined command: \(bodies)")
        XCTAssertEqual(bodies.first?.filter { !$0.isWhitespace }, "{\"a\":1}")

        // Ctrl-C on a continuation line drops the whole command.
        s.send("get /api/app/config \\\r")
        try s.expect("… › ")
        s.send("--raw\u{03}")
        try s.expect("›")
        s.send("history\r")
        let history = try s.expect("›")
        XCTAssertTrue(history.contains("get /api/app/config --json"), history)
        XCTAssertFalse(history.contains("--raw"), history)
        XCTAssertEqual(server.requestLog().filter { $0.path == "/api/app/config" }.count, 1)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A line longer than the window is drawn again from its start when the window is resized:
    /// the prompt and the first characters are sent again after the resize.
    /// A wide character typed before the end of the line: the line is drawn again whole (the system
    /// libedit moves the cursor back one column, not two, after its own partial redraw), so what is
    /// on the screen is the line being edited.
    func testAWideCharacterTypedMidLineRedrawsTheLine() throws {
        let s = try start()
        s.send("echo x千岛湖y")
        try s.expect("湖y")
        s.send("\u{1B}[D\u{1B}[D\u{1B}[D")
        s.send("我")
        try s.expect("echo x千我岛湖y", timeout: 5)
        s.send("\u{15}exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// The redraw starts from the line's first row, counted as the terminal lays the line out: a
    /// wide character that did not fit at a row's end moved to the next row whole, leaving a column.
    func testTheRedrawCountsRowsAsWideCharactersWrap() throws {
        let session = try start(rows: 12, columns: 80)
        let promptLine = session.screen.split(separator: "\n").last.map(String.init) ?? ""
        let prompt = String(promptLine[..<promptLine.range(of: "› ")!.upperBound])
        // ASCII up to the last column but one, then 中: it cannot fit there and starts row 2.
        let fill = String(repeating: "a", count: 80 - TextWidth.width(prompt) - 1)
        session.send(fill + "中" + String(repeating: "x", count: 100))
        try session.expect(String(repeating: "x", count: 20))
        session.send(String(repeating: "\u{1B}[D", count: 24))
        session.send("中")
        // Past the second 中 the cursor is on the third row: two rows up to the first.
        try session.expectRaw("\u{1B}[2A\r\u{1B}[J", timeout: 5)
        session.send("\u{15}exit\r")
        XCTAssertEqual(try session.waitForExit(), 0)
    }

    func testResizeWhileEditingRedrawsTheWholeLine() throws {
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments,
                               environment: environment, rows: 30, columns: 60)
        try s.expect("›")
        try s.waitForEditor()
        let word = "start" + String(repeating: "x", count: 88) + "end"
        s.send("help " + word)
        try s.expect("xend")
        s.resize(rows: 30, columns: 80)
        let redrawn = try s.expect("help start")
        XCTAssertTrue(redrawn.contains("›"), "the prompt is drawn again:\n\(redrawn)")
        try s.expect("xend")
        // Narrower again with the cursor at the start: still the whole line, and it still runs.
        s.send("\u{01}")
        s.resize(rows: 30, columns: 50)
        try s.expect("help start")
        s.send("\r")
        // The error is wider than the 50 columns: wrapped, the word cut where it must be.
        let ran = try s.expect("›")
        XCTAssertTrue(ran.replacingOccurrences(of: "\n  ", with: "").contains("no help for'\(word)'"), ran)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// Ctrl-C with the cursor on the first row of a line wrapped over three: the cursor goes down to
    /// the line's last row before the new line, so the next prompt is not drawn over the rest.
    func testCtrlCOnAnEarlierRowOfAWrappedLineLeavesItWhole() throws {
        let s = try start(rows: 24, columns: 40)
        s.send(String(repeating: "x", count: 90))
        try s.expect("xxxxxxxxxx")
        let typed = s.raw.count
        s.send("\u{01}")  // Ctrl-A: to the start, on the first row
        // Seen done (the cursor moved up) before the Ctrl-C, which would flush a Ctrl-A not yet read.
        try s.expectRaw(matching: "\u{1B}\\[[1-9][0-9]*A", after: typed)
        let before = s.raw.count
        s.send("\u{03}")
        try s.expect("›")
        let after = String(decoding: s.raw[before...], as: UTF8.self)
        // The prompt and 90 characters take three rows or more of 40 columns: rows down, then the new line.
        XCTAssertNotNil(after.range(of: "\u{1B}\\[[1-9][0-9]*B\r?\n", options: .regularExpression), after.debugDescription)
        s.send("exit\r")
        _ = try s.waitForExit()
    }
}

/// Ctrl-C inside a Ctrl-R history search, as in bash and psql.
final class HistorySearchPTYTests: SandboxPTYTestCase {
    /// Ctrl-C ends the search and keeps the line typed before it; the shell keeps running, and a
    /// Ctrl-C outside a search still drops the line.
    func testCtrlCInHistorySearchCancelsTheSearchAndKeepsTheLine() throws {
        let s = try start()
        s.send("help version\r")
        try s.expect("Print the sxk version")
        try s.expect("›")
        try s.waitForEditor()
        s.send("keptword")
        try s.expect("keptword")
        s.send("\u{12}help")
        try s.expect("help version")
        s.send("\u{03}")
        // The line typed before the search is drawn again (the signal, not a key, so wait for it).
        try s.expect("keptword")
        // Still editing: Enter runs that line, not the one the search found.
        s.send("\r")
        let ran = try s.expect("›")
        XCTAssertTrue(ran.contains("unknown command 'keptword'"), ran)
        XCTAssertFalse(ran.contains("Print the sxk version"), "the found line did not run:\n\(ran)")

        // A search that found nothing ends too (libedit's first abort only takes back what did not
        // match): what is typed next is a new line, and Enter runs it, not a line from history.
        try s.waitForEditor()
        s.send("\u{12}help vx")
        try s.expect("bck?")
        s.send("\u{03}")
        try s.waitForEditor()
        usleep(200_000)
        s.send("version\r")
        let next = try s.expect("›")
        XCTAssertTrue(next.contains("sxk 0.1.0"), next)
        XCTAssertFalse(next.contains("Print the sxk version"), "a line from history ran:\n\(next)")

        s.send("dropped\u{03}")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        XCTAssertFalse(s.screen.contains("unknown command 'dropped'"), s.screen)
    }
}
