import Foundation
import SXKShell
import XCTest

/// The prompt on a real terminal: `release` in red (not with NO_COLOR) with the cursor where the
/// visible prompt ends, the store's name when it fits, and `env use -`.
final class PromptPTYTests: SandboxPTYTestCase {
    private func startRelease(_ extra: [String: String] = [:]) throws -> PTYSession {
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--env", "release", "--state-dir", stateDir.path],
                               environment: environment.merging(extra) { $1 })
        try s.expect("›")
        try s.waitForEditor()
        return s
    }

    /// The cursor's column after everything written so far, for the few sequences libedit sends.
    private static func cursorColumn(_ bytes: [UInt8]) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        var column = 0
        var scalars = Array(text.unicodeScalars)[...]
        while let c = scalars.popFirst() {
            switch c {
            case "\r": column = 0
            case "\u{8}": column = max(0, column - 1)
            case "\u{1B}":
                guard scalars.first == "[" else { scalars = scalars.dropFirst(); continue }
                scalars = scalars.dropFirst()
                var digits = ""
                while let d = scalars.first, "0123456789;?".unicodeScalars.contains(d) { digits.unicodeScalars.append(d); scalars = scalars.dropFirst() }
                let final = scalars.popFirst()
                let n = Int(digits) ?? 1
                if final == "G" { column = n - 1 } else if final == "C" { column += n } else if final == "D" { column = max(0, column - n) }
            case _ where c.value < 0x20: break
            default: column += TextWidth.width(of: c)
            }
        }
        return column
    }

    func testReleaseIsRedAndTheCursorColumnStaysRight() throws {
        let s = try startRelease()
        let red = "\u{1B}[31mrelease"
        XCTAssertTrue(String(decoding: s.raw, as: UTF8.self).contains(red), "no red release in \(String(decoding: s.raw, as: UTF8.self).debugDescription)")
        // Ctrl-A then a key: the key lands right after the visible prompt, escapes not counted.
        s.send("ab\u{1}Z")
        try s.expect("Zab")
        let promptWidth = TextWidth.width("sxk release (logged out) › ")
        XCTAssertEqual(Self.cursorColumn(s.raw), promptWidth + 1, String(decoding: s.raw, as: UTF8.self).debugDescription)
        s.send("\u{15}exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testNoColorLeavesReleasePlain() throws {
        let s = try startRelease(["NO_COLOR": "1"])
        let raw = String(decoding: s.raw, as: UTF8.self)
        XCTAssertTrue(raw.contains("sxk release (logged out) › "), raw.debugDescription)
        XCTAssertFalse(raw.contains("\u{1B}[3"), raw.debugDescription)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// The error label is coloured on a terminal, and plain under NO_COLOR (not empty) and TERM=dumb, as the data is.
    func testErrorLabelColourFollowsNoColorAndDumbTerminals() throws {
        for (extra, coloured) in [([String: String](), true), (["NO_COLOR": "1"], false), (["NO_COLOR": ""], true), (["TERM": "dumb"], false)] {
            let s = try startRelease(extra)
            s.send("ordrs\r")
            try s.expect("orders")
            let raw = String(decoding: s.raw, as: UTF8.self)
            let line = raw.components(separatedBy: "\n").first { $0.contains("ordrs") && $0.contains("error") } ?? ""
            XCTAssertEqual(line.contains("\u{1B}["), coloured, "\(extra): \(line.debugDescription)")
            s.send("exit\r")
            XCTAssertEqual(try s.waitForExit(), 0)
        }
    }

    func testEnvUseDashGoesBack() throws {
        let s = try start()
        s.send("env use -\r")
        try s.expect("no previous environment")
        try s.expect("sxk custom")
        s.send("env use test\r")
        try s.expect("sxk test (logged out) ›")
        s.send("env use -\r")
        try s.expect("sxk custom (logged out) ›")
        s.send("env use -\r")
        try s.expect("sxk test (logged out) ›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// 断桥摄影店 is ten columns: shown on a wide terminal, the id on one where the prompt would pass a third.
    func testStoreNameInThePromptWhenItFits() throws {
        try logIn("13800000003")
        for (columns, expected) in [(UInt16(160), "/断桥摄影店 › "), (UInt16(100), "/101 › ")] {
            let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments,
                                   environment: environment, columns: columns)
            try s.expect("›")
            try s.waitForEditor()
            s.send("store 101\r")
            try s.expect("now ")
            try s.expect(expected)
            s.send("exit\r")
            XCTAssertEqual(try s.waitForExit(), 0)
        }
    }
}
