import Foundation
import SXKShell
import XCTest

/// Errors, warnings and questions on a narrow terminal wrap at spaces, as notes do, instead of where
/// the terminal would break them (mid-word); piped stderr keeps one line per message.
final class MessageWrappingPTYTests: SandboxPTYTestCase {
    /// The rows of `text` that hold part of `message` are within `width`, and joined again (each
    /// break a space) they give the message whole: no word was split.
    func assertWrapped(_ message: String, in text: String, width: Int, file: StaticString = #filePath, line: UInt = #line) {
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = rows.firstIndex(where: { message.hasPrefix($0) && !$0.isEmpty }) else {
            return XCTFail("no row starts the message \(message.debugDescription):\n\(text)", file: file, line: line)
        }
        var joined = rows[first], end = first
        while joined.count < message.count, end + 1 < rows.count, rows[end + 1].hasPrefix("  ") {
            end += 1
            joined += " " + rows[end].dropFirst(2)
        }
        XCTAssertEqual(joined, message, "rows:\n\(rows[first...end].joined(separator: "\n"))", file: file, line: line)
        for row in rows[first...end] { XCTAssertLessThanOrEqual(TextWidth.width(row), width, row, file: file, line: line) }
        XCTAssertGreaterThan(end, first, "not wrapped: \(message)", file: file, line: line)
    }

    func testAnErrorWrapsAtSpacesAndStaysOneLineIntoAPipe() throws {
        try logIn("13800000002")
        let path = "/api/yf-handset-app/no-such-endpoint"
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["get", path], environment: environment,
                               columns: 60)
        XCTAssertEqual(try s.waitForExit(), 1)
        assertWrapped("error: GET \(path): server error 100404: 接口不存在: \(path)", in: s.screen, width: 60)
        // stderr a pipe (stdout still the terminal): one line, for grep.
        let piped = try PTYSession(executable: "/bin/sh", arguments: ["-c", "exec \"$0\" \"$@\" 2>&1 | cat", InteractiveShellTests.binary]
                                   + globalArguments + ["get", path], environment: environment, columns: 60)
        _ = try piped.waitForExit()
        XCTAssertTrue(piped.screen.contains("error: GET \(path): server error 100404: 接口不存在: \(path)\n"), piped.screen)
    }

    func testTheResetQuestionWraps() throws {
        try logIn()
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--reset-state"], environment: environment,
                               columns: 60)
        let asked = try s.expect("[y/N] ")
        assertWrapped("Reset state of profile '\(profile)' (token, snapshot, preferences)? [y/N]",
                      in: String(asked.dropLast()), width: 60)
        s.send("n\r")
        try s.expect("reset cancelled")
        XCTAssertEqual(try s.waitForExit(), 1)
    }

    /// The account list of the choice wraps at spaces as the question does: no row wider than the
    /// window, no word (`photographer]`) broken.
    func testTheAccountListWrapsAtSpaces() throws {
        let s = try start(columns: 40)
        s.send("login 13800000004 --accept-privacy\r")
        try s.expect("password:")
        s.send("sandbox123\r")
        let asked = try s.expect("choose 1-3:")
        let rows = asked.split(separator: "\n").map(String.init)
        guard let first = rows.firstIndex(where: { $0.hasPrefix("  1) ") }) else { return XCTFail(asked) }
        XCTAssertTrue(rows[first + 1].hasPrefix("    ") && rows[first + 1].contains("photographer]"), asked)
        for row in rows[first...] { XCTAssertLessThanOrEqual(TextWidth.width(row), 40, row) }
        s.send("\r")
        try s.expect("error: cancelled")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testTheChoiceRetryLineWraps() throws {
        let s = try start(columns: 60)
        s.send("login 13800000004 --accept-privacy\r")
        try s.expect("password:")
        s.send("sandbox123\r")
        try s.expect("choose 1-3:")
        s.send("9\r")
        let retry = try s.expect("choose 1-3:")
        assertWrapped("that number is not in the list — type a number 1-3, or an empty line to cancel", in: retry, width: 60)
        s.send("\r")
        try s.expect("error: cancelled")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }
}
