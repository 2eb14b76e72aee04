import Foundation
import SXKShell
import XCTest

/// The renderer on a real terminal: tables fitted to 60 and 80 columns, and long output paged.
final class RendererPTYTests: SandboxPTYTestCase {
    /// No line of `orders`, `compare` or `stats` is wider than the window (`help` is a shell builtin, not rendered here yet).
    func testNoLineWiderThanTheWindowAt60And80Columns() throws {
        try logIn("13800000001")
        for columns: UInt16 in [60, 80] {
            let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--no-pager"] + globalArguments,
                                   environment: environment, rows: 200, columns: columns)
            try s.expect("›")
            try s.waitForEditor()
            for (line, marker) in [("orders --page-size 5", "orders · "), ("compare --as role:photographer,current orders --page-size 3", "DIFF"),
                                   ("stats", "REFUNDED")] {
                s.send(line + "\r")
                try s.expect(marker, timeout: 10)
                try s.expect("›")
            }
            // Typed lines (after the prompt's ›) are wrapped by the line editor, not printed by a command.
            for line in s.screen.split(separator: "\n") where !line.contains("›") {
                XCTAssertLessThanOrEqual(TextWidth.width(String(line)), Int(columns), "\(columns) cols: \(line)")
            }
            XCTAssertTrue(s.screen.contains("ORDER NO"), s.screen)
            s.send("exit\r")
            _ = try s.waitForExit()
        }
    }

    /// Output taller than the screen goes through $SXK_PAGER; `pager off` prints it directly.
    func testLongOutputGoesThroughThePager() throws {
        let record = home.appendingPathComponent("paged.txt")
        let script = home.appendingPathComponent("pager.sh")
        try "#!/bin/sh\ncat > '\(record.path)'\necho PAGER-RAN\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        try logIn("13800000001")
        var env = environment
        env["SXK_PAGER"] = script.path
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: env, rows: 10, columns: 100)
        try s.expect("›")
        try s.waitForEditor()
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
}
