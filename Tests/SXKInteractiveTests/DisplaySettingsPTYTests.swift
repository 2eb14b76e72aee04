import Foundation
import XCTest

/// `set expanded|format|pager` as psql's `\pset`, typed at the REPL on a real terminal.
final class DisplaySettingsPTYTests: SandboxPTYTestCase {
    /// `set expanded auto` at 60 columns turns the orders table into records (it cannot fit); at
    /// 160 it stays a table. `set expanded on` always gives records, `off` the fitted table.
    func testSetExpandedAutoAt60Columns() throws {
        try logIn("13800000001")
        for (columns, records) in [(60, true), (160, false)] as [(UInt16, Bool)] {
            let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: environment, rows: 200, columns: columns)
            try s.expect("›")
            try s.waitForEditor()
            s.send("set expanded auto\r")
            try s.expect("expanded auto")
            try s.expect("›")
            s.send("orders --page-size 2\r")
            let shown = try s.expect("page 1/") + (try s.expect("›"))
            XCTAssertEqual(shown.contains("-[ RECORD 2 ]"), records, "\(columns) columns:\n\(shown)")
            XCTAssertEqual(shown.contains("ORDER NO             STATUS"), !records, "\(columns) columns:\n\(shown)")
            s.send("set expanded off\r")
            try s.expect("expanded off")
            s.send("orders --page-size 2\r")
            let fitted = try s.expect("page 1/") + (try s.expect("›"))
            XCTAssertFalse(fitted.contains("RECORD"), fitted)
            s.send("set expanded on\r")
            try s.expect("expanded on")
            s.send("orders --page-size 2\r")
            let on = try s.expect("page 1/") + (try s.expect("›"))
            XCTAssertTrue(on.contains("-[ RECORD 2 ]"), on)
            s.send("exit\r")
            XCTAssertEqual(try s.waitForExit(), 0)
        }
    }

    /// `set format json` for commands given no format (a flag on the command wins); `set` lists
    /// the settings; `set pager off`, `pager off` and `--no-pager` are one switch; `set --save`
    /// keeps the settings for the next start.
    func testFormatPagerListAndSave() throws {
        try logIn("13800000001")
        let (s, record, env) = try startWithRecordingPager()
        s.send("set\r")
        let listed = try s.expect("pager on")
        XCTAssertTrue(listed.contains("expanded off") && listed.contains("format table"), listed)
        try s.expect("›")

        // A long page with --no-pager on the command: printed directly.
        s.send("orders --page-size 20 --no-pager\r")
        try s.expect("page 1/")
        try s.expect("›")
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "paged with --no-pager")
        // `set pager off` is what `pager` reports.
        s.send("set pager off\r")
        try s.expect("pager off")
        try s.expect("›")
        s.send("pager\r")
        try s.expect("pager off")
        try s.expect("›")
        s.send("orders --page-size 20\r")
        try s.expect("page 1/")
        try s.expect("›")
        XCTAssertFalse(FileManager.default.fileExists(atPath: record.path), "paged with the pager off")
        s.send("pager on\r")
        try s.expect("pager on")
        try s.expect("›")
        s.send("orders --page-size 20\r")
        try s.expect("PAGER-RAN")
        try s.expect("›")

        s.send("set --save format json\r")
        try s.expect("format json (saved)")
        try s.expect("›")
        s.send("orders --page-size 1 --no-pager\r")
        try s.expect("\"orderNo\"")
        try s.expect("›")
        s.send("orders --page-size 1 --csv\r")
        try s.expect("orderNo,statusText")
        try s.expect("›")
        // A command without rows still prints under `set format csv`.
        s.send("set format csv\r")
        try s.expect("format csv")
        s.send("version\r")
        try s.expect("sxk 0.")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)

        // Saved: the next start prints JSON for a command given no format.
        let saved = try String(contentsOf: home.appendingPathComponent("config/sxk/display"), encoding: .utf8)
        XCTAssertTrue(saved.contains("format json") && saved.contains("pager on"), saved)
        let again = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--no-pager"] + globalArguments + ["orders", "--page-size", "1"],
                                   environment: env, rows: 10, columns: 100)
        try again.expect("\"orderNo\"")
        XCTAssertEqual(try again.waitForExit(), 0)
        // A saved `pager off` holds for `sxk --help` too, before any session.
        try "pager off\n".write(to: home.appendingPathComponent("config/sxk/display"), atomically: true, encoding: .utf8)
        let help = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--help"], environment: env, rows: 10, columns: 100)
        try help.expect("Exit status:")
        XCTAssertEqual(try help.waitForExit(), 0)
        XCTAssertFalse(help.screen.contains("PAGER-RAN"), help.screen)
    }
}
