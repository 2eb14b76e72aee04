import Foundation
import SXKShell
import XCTest

/// The renderer on a real terminal: tables and help fitted to 60 and 80 columns, and long output paged.
final class RendererPTYTests: SandboxPTYTestCase {
    /// No line of `orders`, `compare`, `stats` or help (`help`, `help orders`, `orders --help`) is wider than the window.
    func testNoLineWiderThanTheWindowAt60And80Columns() throws {
        try logIn("13800000001")
        for columns: UInt16 in [60, 80] {
            let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--no-pager"] + globalArguments,
                                   environment: environment, rows: 200, columns: columns)
            try s.expect("›")
            try s.waitForEditor()
            for (line, marker) in [("orders --page-size 5", "orders · "), ("compare --as role:photographer,current orders --page-size 3", "DIFF"),
                                   ("stats", "REFUNDED"), ("help", "for details."), ("help orders", "Examples:"),
                                   ("orders --help", "Examples:")] {
                s.send(line + "\r")
                try s.expect(marker, timeout: 10)
                try s.expect("›")
            }
            // Typed lines (after the prompt's ›) are wrapped by the line editor, not printed by a command.
            // Read as the terminal shows them: a "waiting for" line a slow request drew is erased.
            for line in TerminalLines.render(s.raw) where !line.contains("›") {
                XCTAssertLessThanOrEqual(TextWidth.width(String(line)), Int(columns), "\(columns) cols: \(line)")
            }
            XCTAssertTrue(s.screen.contains("ORDER NO"), s.screen)
            XCTAssertTrue(s.screen.contains("  --page-size N"), s.screen)
            s.send("exit\r")
            _ = try s.waitForExit()

            // `sxk --help` before any session: fitted the same way.
            let global = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--no-pager", "--help"],
                                        environment: environment, rows: 300, columns: columns)
            try global.expect("Exit status:")
            XCTAssertEqual(try global.waitForExit(), 0)
            for line in global.screen.split(separator: "\n") {
                XCTAssertLessThanOrEqual(TextWidth.width(String(line)), Int(columns), "--help at \(columns) cols: \(line)")
            }
        }
    }

    /// `explain rules` on an 80-column terminal: every rule is there whole (records, wrapped), no line
    /// wider than the window, nothing cut with `…`.
    func testExplainRulesShowsEveryRuleWholeAt80Columns() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: InteractiveShellTests.binary)
        process.arguments = globalArguments + ["explain", "rules", "--json"]
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--no-pager"] + globalArguments + ["explain", "rules"],
                               environment: environment, rows: 400, columns: 80)
        XCTAssertEqual(try s.waitForExit(), 0)
        let lines = s.screen.split(separator: "\n").map(String.init)
        XCTAssertFalse(s.screen.contains("…"), s.screen)
        for line in lines { XCTAssertLessThanOrEqual(TextWidth.width(line), 80, line) }
        let flat = lines.map { $0.split(separator: "|", maxSplits: 1).last.map(String.init) ?? "" }.joined().filter { $0 != " " }
        XCTAssertGreaterThan(json.count, 30)
        for rule in json {
            let what = try XCTUnwrap(rule["what"] as? String).filter { $0 != " " }
            XCTAssertTrue(flat.contains(what), "not whole at 80 columns: \(what)")
        }
    }

    /// Output taller than the screen goes through $SXK_PAGER; `pager off` prints it directly.
    func testLongOutputGoesThroughThePager() throws {
        try logIn("13800000001")
        let (s, record, _) = try startWithRecordingPager()
        s.send("orders --page-size 20\r")
        try s.expect("PAGER-RAN")
        try s.expect("›")
        let paged = try String(contentsOf: record, encoding: .utf8)
        XCTAssertTrue(paged.contains("ORDER NO") && paged.contains("page 1/"), paged)
        try FileManager.default.removeItem(at: record)
        s.send("pager off\r")
        try s.expect("pager off")
        s.send("orders --page-size 20\r")
        try s.expect("page 1/")
        try s.expect("›")
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "paged with the pager off")
        s.send("exit\r")
        _ = try s.waitForExit()
    }

    /// The note of the columns hidden to fit follows a table; when the table fits the window but the
    /// note after it would push its header off, the note comes first and nothing is paged. A table
    /// taller than the window is paged, the note after it.
    func testTheNoteComesFirstWhenAfterTheTableItWouldPushTheHeaderOff() throws {
        try logIn("13800000001")
        let (s, record, _) = try startWithRecordingPager(columns: 60)
        var from = s.raw.count
        s.send("orders --page-size 3\r")
        try s.expect("›")
        var text = String(decoding: s.raw[from...], as: UTF8.self)
        XCTAssertLessThan(try XCTUnwrap(text.range(of: "ORDER NO")).lowerBound, try XCTUnwrap(text.range(of: "hidden to fit")).lowerBound, text)
        // 9 rows of table at a 10-row window: the note first, the table whole below it.
        from = s.raw.count
        s.send("orders --page-size 7\r")
        try s.expect("page 1/")
        try s.expect("›")
        text = String(decoding: s.raw[from...], as: UTF8.self)
        XCTAssertLessThan(try XCTUnwrap(text.range(of: "hidden to fit")).lowerBound, try XCTUnwrap(text.range(of: "ORDER NO")).lowerBound, text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "a table that fits the window was paged")
        s.send("orders --page-size 9\r")
        try s.expect("PAGER-RAN")
        try s.expect("hidden to fit")
        try s.expect("›")
        s.send("exit\r")
        _ = try s.waitForExit()
    }

    /// `orders --all` on a terminal goes through the pager like any other long output, the rows
    /// written to it as they arrive; the summary follows on stderr once the pager is done.
    func testOrdersAllIsPagedOnATerminal() throws {
        try logIn("13800000001")
        let (s, record, _) = try startWithRecordingPager()
        s.send("orders --all --limit 30\r")
        try s.expect("PAGER-RAN")
        try s.expect("30 of ")
        try s.expect("›")
        let paged = try String(contentsOf: record, encoding: .utf8)
        XCTAssertTrue(paged.split(separator: "\n").first?.contains("ORDER NO") == true, paged)
        XCTAssertEqual(paged.split(separator: "\n").count, 31, "the header and 30 rows: \(paged)")
        s.send("exit\r")
        _ = try s.waitForExit()
    }

    /// A stand-in pager (`script`, a shell script's body after `cat > /dev/null; echo PAGER-OPEN`), its
    /// environment, and the shell in a pty with `orders` shown through it, up to PAGER-OPEN.
    private func ordersThroughStandInPager(_ script: String) throws -> (PTYSession, [String: String]) {
        try logIn("13800000001")
        let env = try environment(pager: script.replacingOccurrences(of: "PAGER-BODY", with: "cat > /dev/null\necho PAGER-OPEN"))
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: env, rows: 10, columns: 100)
        try s.expect("›")
        try s.waitForEditor()
        s.send("orders --page-size 20\r")
        try s.expect("PAGER-OPEN")
        return (s, env)
    }

    /// Ctrl-C while the pager shows a command's output: the pager keeps the terminal until it quits
    /// (as less does, which ignores it), and only then does the prompt come back, so no key goes to
    /// the wrong program. The stand-in pager waits for a file before it quits.
    func testCtrlCWhileThePagerRunsWaitsForIt() throws {
        let quit = home.appendingPathComponent("quit-pager")
        let (s, env) = try ordersThroughStandInPager("trap '' INT\nPAGER-BODY\nwhile [ ! -f '\(quit.path)' ]; do sleep 0.05; done\necho PAGER-QUIT\n")
        s.send("\u{03}")
        // No prompt while the pager runs (the 0.2 s grace for a command that ignores Ctrl-C does not apply).
        XCTAssertThrowsError(try s.expect("›", timeout: 1.5), "a prompt came back while the pager ran")
        XCTAssertTrue(FileManager.default.createFile(atPath: quit.path, contents: nil))
        try s.expect("PAGER-QUIT")
        try s.expect("›")
        try s.waitForEditor()
        s.send("version\r")
        try s.expect("sxk ")
        s.send("exit\r")
        _ = try s.waitForExit()

        // A one-shot does not exit behind the pager either (the shell that ran it would get its keys).
        try FileManager.default.removeItem(at: quit)
        let one = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["orders", "--page-size", "20"],
                                 environment: env, rows: 10, columns: 100)
        try one.expect("PAGER-OPEN")
        one.send("\u{03}")
        XCTAssertThrowsError(try one.waitForExit(timeout: 1.5), "the one-shot exited while its pager ran")
        XCTAssertTrue(FileManager.default.createFile(atPath: quit.path, contents: nil))
        try one.expect("PAGER-QUIT")
        // Its output was all written: the Ctrl-C went to the pager, and the command ends as it would have.
        XCTAssertEqual(try one.waitForExit(), 0)
    }

    /// SIGTERM while the pager shows a command's output: the shell ends (143) and takes the pager
    /// with it, so no pager is left reading the terminal the shell gave back.
    func testSIGTERMWhileThePagerRunsEndsThePagerToo() throws {
        let marker = home.appendingPathComponent("pager-ended")
        // `wait` returns at once for a trapped signal, so the trap runs before the pty's hang-up can end
        // it. sxk ends the pager's children first (less under a shell): the `sleep` may die before the
        // TERM reaches the script, so the script waits again rather than end without its trap.
        let (s, _) = try ordersThroughStandInPager("trap 'touch \(marker.path); kill $! 2>/dev/null; exit 0' TERM\nPAGER-BODY\nwhile :; do sleep 5 & wait; done\n")
        kill(s.pid, SIGTERM)
        XCTAssertEqual(try s.waitForExit(), 143)
        let deadline = Date().addingTimeInterval(3)
        while !FileManager.default.fileExists(atPath: marker.path) && Date() < deadline { usleep(20_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker.path), "the pager was left running")
    }

    /// `PAGER=less` with `LESS` unset: the pager runs with `LESS=FRX` (as git's does), so colours
    /// arrive as colours; a `LESS` the user set is kept, with `-R` first when it passes no colour
    /// codes. A stand-in `less` on PATH records what it was given.
    func testLessGetsFRXWhenLESSIsUnsetAndRWhenItsLESSLacksIt() throws {
        let bin = home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let record = home.appendingPathComponent("less-env.txt")
        try "#!/bin/sh\nprintf 'LESS=[%s]\\n' \"${LESS-unset}\" >> '\(record.path)'\ncat > /dev/null\necho LESS-RAN\n"
            .write(to: bin.appendingPathComponent("less"), atomically: true, encoding: .utf8)
        chmod(bin.appendingPathComponent("less").path, 0o755)
        var env = environment
        env["SXK_PAGER"] = nil
        env["PAGER"] = "less"
        env["PATH"] = bin.path + ":/usr/bin:/bin"
        for (userLESS, expected) in [(nil, "LESS=[FRX]"), ("-S", "LESS=[-R -S]"), ("-iR", "LESS=[-iR]")] as [(String?, String)] {
            env["LESS"] = userLESS
            let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: env, rows: 10, columns: 60)
            try s.expect("›")
            try s.waitForEditor()
            s.send("help\r")
            try s.expect("LESS-RAN")
            try s.expect("›")
            s.send("exit\r")
            _ = try s.waitForExit()
            let seen = try String(contentsOf: record, encoding: .utf8)
            XCTAssertEqual(seen.split(separator: "\n").last.map(String.init), expected, seen)
        }
    }

    /// Help taller than the screen goes through $SXK_PAGER as command output does, fitted to the
    /// window; `pager off` and `--no-pager` print it directly, and a pipe is never paged.
    func testLongHelpGoesThroughThePager() throws {
        let (s, record, env) = try startWithRecordingPager(columns: 60)
        for (line, first, last) in [("help", "Commands:", "for details."), ("help orders", "Usage: orders", "Examples:"),
                                    ("orders --help", "Usage: orders", "Examples:")] {
            s.send(line + "\r")
            try s.expect("PAGER-RAN")
            try s.expect("›")
            let paged = try String(contentsOf: record, encoding: .utf8)
            XCTAssertTrue(paged.hasPrefix(first) && paged.contains(last), "\(line): \(paged)")
            for text in paged.split(separator: "\n") {
                XCTAssertLessThanOrEqual(TextWidth.width(String(text)), 60, "\(line), paged: \(text)")
            }
            try FileManager.default.removeItem(at: record)
        }
        // Shorter than the screen: printed directly.
        s.send("help unset\r")
        try s.expect("Forget variables")
        try s.expect("›")
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "a short help was paged")
        s.send("pager off\r")
        try s.expect("pager off")
        s.send("help\r")
        try s.expect("for details.")
        try s.expect("›")
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "paged with the pager off")
        s.send("exit\r")
        _ = try s.waitForExit()

        // `sxk --help` pages too, except with --no-pager or into a pipe.
        let global = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--help"], environment: env, rows: 10, columns: 60)
        try global.expect("PAGER-RAN")
        XCTAssertEqual(try global.waitForExit(), 0)
        XCTAssertTrue(try String(contentsOf: record, encoding: .utf8).contains("Exit status:"))
        try FileManager.default.removeItem(at: record)
        let direct = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--no-pager", "--help"], environment: env, rows: 10, columns: 60)
        try direct.expect("Exit status:")
        XCTAssertEqual(try direct.waitForExit(), 0)
        let piped = home.appendingPathComponent("piped.txt")
        let pipe = try PTYSession(executable: "/bin/sh", arguments: ["-c", "'\(InteractiveShellTests.binary)' --help | cat > '\(piped.path)'; echo PIPE-DONE"],
                                  environment: env, rows: 10, columns: 60)
        try pipe.expect("PIPE-DONE")
        _ = try pipe.waitForExit()
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "paged without a terminal or with --no-pager")
        // Into a pipe the text is not fitted either: lines as long as they are.
        let whole = try String(contentsOf: piped, encoding: .utf8)
        XCTAssertTrue(whole.contains("Exit status:") && whole.split(separator: "\n").contains { TextWidth.width(String($0)) > 60 }, whole)
    }
}
