import Foundation
import SXKSandbox
import XCTest

/// A request still running after ~300 ms shows one "waiting for …" line on stderr,
/// erased before any output; fast calls, scripts and pipes show none.
final class StatusLinePTYTests: SandboxPTYTestCase {
    /// A REPL logged in whose session the first `profile` validated while the sandbox is fast.
    private func startValidated() throws -> PTYSession {
        try logIn("13800000001")
        let s = try start()
        s.send("profile\r")
        try s.expect("bank card")
        try s.expect("›")
        return s
    }

    func testSlowProfileShowsTheWaitThenCleanOutput() throws {
        try logIn("13800000001")
        let s = try start()
        s.send("profile\r")  // validates the restored session while the sandbox is fast
        try s.expect("bank card")
        try s.expect("›")
        let fastStart = s.raw.count
        s.send("profile\r")
        try s.expect("bank card")
        try s.expect("›")
        // A fast call shows none; one the machine made slow may have drawn it, but never leaves it
        // on the screen (that the line waits its delay is `StatusLine`'s unit tests').
        XCTAssertFalse(TerminalLines.render(Array(s.raw[fastStart...])).contains { $0.contains("waiting for") },
                       "the status line stayed on the screen")

        server.setLatency(milliseconds: 1_500)
        let slowStart = s.raw.count
        s.send("profile\r")
        // Userinfo, real-name and bank-card go together: the line names one of them and counts the others.
        try s.expect("waiting for GET /api/yf-handset-app/", timeout: 10)
        try s.expect("bank card", timeout: 15)
        try s.expect("›", timeout: 10)
        server.setLatency(milliseconds: 0)
        let shown = Array(s.raw[slowStart...])
        // The seconds count up while it waits.
        XCTAssertTrue(String(decoding: shown, as: UTF8.self).contains("… 1."), String(decoding: shown, as: UTF8.self))
        XCTAssertTrue(String(decoding: shown, as: UTF8.self).contains(" +2 … "), String(decoding: shown, as: UTF8.self))
        let lines = TerminalLines.render(shown)
        XCTAssertTrue(lines.contains { $0.hasPrefix("userName") }, lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("waiting for") }, "status text left on the screen:\n" + lines.joined(separator: "\n"))
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testCtrlCDuringTheWaitLeavesNoStatusBehind() throws {
        let s = try startValidated()
        server.setLatency(milliseconds: 5_000)
        let from = s.raw.count
        s.send("profile\r")
        try s.expect("waiting for GET", timeout: 10)
        let pressed = Date()
        s.send("\u{03}")
        try s.expect("cancelled")
        try s.expect("›", timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(pressed), 3.0, "Ctrl-C waited for the request")
        server.setLatency(milliseconds: 0)
        let lines = TerminalLines.render(Array(s.raw[from...]))
        XCTAssertTrue(lines.contains { $0.hasPrefix("error: ") && $0.hasSuffix("cancelled") }, lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("waiting for") }, "status text left on the screen:\n" + lines.joined(separator: "\n"))
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A line typed ahead while the status shows is not echoed over it (the echo would move the cursor
    /// off the status's row, and its erase would clear the wrong one): no status text stays on the
    /// screen, and the next prompt reads the line typed and runs it.
    func testALineTypedAheadDuringTheWaitLeavesNoStatusBehind() throws {
        let s = try startValidated()
        server.setLatency(milliseconds: 1_500)
        let from = s.raw.count
        s.send("profile\r")
        try s.expect("waiting for GET", timeout: 10)
        s.send("version\r")
        try s.expect("bank card", timeout: 15)
        server.setLatency(milliseconds: 0)
        try s.expect("sxk 0.", timeout: 10)
        try s.expect("›", timeout: 10)
        let lines = TerminalLines.render(Array(s.raw[from...]))
        XCTAssertFalse(lines.contains { $0.contains("waiting for") }, "status text left on the screen:\n" + lines.joined(separator: "\n"))
        // The echo is back once the wait is over: a line typed at the prompt shows as typed.
        s.send("vers")
        try s.expect("vers")
        s.send("ion\r")
        try s.expect("sxk 0.")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A one-shot in the background of a job-control shell leaves the terminal to the program in front:
    /// it turns no echo off (that program's `read -s` or editor keeps its own modes) and draws no status.
    func testABackgroundJobLeavesTheTerminalsEchoAndScreenAlone() throws {
        try logIn("13800000001")
        server.setLatency(milliseconds: 1_500)
        defer { server.setLatency(milliseconds: 0) }
        let modes = Self.echoMode
        let s = try jobControlShell { sxk in
            "\(sxk) --revalidate whoami >/dev/null & sleep 1; echo during; \(modes); wait; echo after; \(modes); echo end"
        }
        try s.expect("end", timeout: 15)
        let text = s.screen
        let during = text.components(separatedBy: "during").last?.components(separatedBy: "after").first ?? ""
        XCTAssertTrue(during.contains("echo") && !during.contains("-echo"), text)
        let after = text.components(separatedBy: "after").last ?? ""
        XCTAssertTrue(after.contains("echo") && !after.contains("-echo"), text)
        XCTAssertFalse(text.contains("waiting for"), text)
    }

    /// Stdout and stderr are pipes: no status text at all, however slow the call.
    func testPlainProcessShowsNoStatus() throws {
        try logIn("13800000001")
        server.setLatency(milliseconds: 1_000)
        defer { server.setLatency(milliseconds: 0) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: InteractiveShellTests.binary)
        process.arguments = globalArguments + ["profile"]
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: stderr, as: UTF8.self))
        XCTAssertTrue(String(decoding: stdout, as: UTF8.self).contains("userName"))
        for data in [stdout, stderr] {
            let text = String(decoding: data, as: UTF8.self)
            XCTAssertFalse(text.contains("waiting for"), text)
            XCTAssertFalse(text.contains("\u{1B}[K"), text)
        }
    }
}

/// What a terminal ends up showing for a byte stream, as far as the status line matters: `\r` goes
/// to column 0, `ESC [ K` erases to the end of the line; rows are not wrapped and moves between
/// rows are not followed (a slice of the stream starts anywhere).
enum TerminalLines {
    static func render(_ bytes: [UInt8]) -> [String] {
        var screen = ScreenModel(columns: Int.max / 2, followsRowMoves: false)
        screen.feed(bytes)
        return screen.lines
    }
}
