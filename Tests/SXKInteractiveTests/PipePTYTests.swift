import Foundation
import XCTest

/// Pipes and redirection typed at the REPL: the pipe or file gets the output for a non-terminal
/// (no colour, no pager, no fitting to the window, JSON on one line), and the shell goes on.
final class PipePTYTests: SandboxPTYTestCase {
    func testPipeAndRedirectInTheREPL() throws {
        try logIn("13800000001")
        let (s, record, _) = try startWithRecordingPager(columns: 60)

        // Taller than the window and wider than it: into the file whole, unpaged and uncoloured.
        let table = home.appendingPathComponent("table.txt")
        // `help unset` after `;` marks the end (the redirect itself shows nothing).
        s.send("orders --page-size 20 > '\(table.path)'; help unset\r")
        try s.expect("Forget variables")
        try s.expect("›")
        let text = try String(contentsOf: table, encoding: .utf8)
        XCTAssertTrue(text.contains("ORDER NO") && text.contains("PHOTOGRAPHER"), text)
        XCTAssertFalse(text.contains("\u{1B}"), "no escape codes in the file:\n\(text)")
        XCTAssertTrue(text.split(separator: "\n").contains { $0.count > 60 }, "not fitted to 60 columns:\n\(text)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "the pager ran for a redirect")

        // JSON through a pipe is one line, as `sxk … | cmd` gives it; `>>` appends.
        let json = home.appendingPathComponent("json.txt")
        s.send("orders --page-size 2 --json | cat > '\(json.path)'; version >> '\(json.path)'; help unset\r")
        try s.expect("Forget variables")
        try s.expect("›")
        let lines = try String(contentsOf: json, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines.first?.hasPrefix("{") == true && lines.last?.hasPrefix("sxk ") == true, "\(lines)")
        XCTAssertFalse(lines.joined().contains("\u{1B}"))

        // The shell command's own output reaches the terminal; the REPL goes on.
        s.send("version | tr a-z A-Z\r")
        try s.expect("SXK ")
        try s.expect("›")
        // Output that ends mid-line (`head -c`): a `%` marks it and the prompt starts a line of its own,
        // as in zsh; the mark is a line's width of spaces and a carriage return, so after a whole line
        // the prompt covers it. Not after a command without a pipe.
        let before = s.raw.count
        s.send("version | head -c 3\r")
        try s.expectRaw(matching: "sxk(\u{1B}\\[7m)?%(\u{1B}\\[27m)? {59}\r", after: before)
        try s.expect("›")
        let plain = s.raw.count
        s.send("version; help unset\r")
        try s.expect("Forget variables")
        try s.expect("›")
        XCTAssertFalse(String(decoding: s.raw[plain...], as: UTF8.self).contains(String(repeating: " ", count: 59) + "\r"), "the mark after a command without a pipe")
        // Ctrl-C stopping the shell command: the prompt starts the line after the `^C`.
        try s.waitForEditor()
        s.send("version | sleep 30\r")
        usleep(500_000)
        let stopped = s.raw.count
        s.send("\u{03}")
        try s.expectRaw(matching: "\\^C\r\n[^\n]*›", after: stopped)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "the pager ran for a pipe")
    }

    /// Ctrl-C while a command runs into a pipe stops both (the shell command is in the terminal's
    /// foreground group and has SIGINT at its default); the prompt comes back and the shell goes on.
    func testCtrlCStopsAPipeAndThePromptReturns() throws {
        try logIn("13800000001")
        let s = try start()
        s.send("watch -n 0.2 whoami | grep -c phase\r")
        try s.expect("run 2")
        s.send("\u{03}")
        try s.expect("watch: stopped ", timeout: 5)
        try s.expect("›", timeout: 5)
        s.send("help unset\r")
        try s.expect("Forget variables")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }
}
