import Foundation
import XCTest
@testable import SXKShell

/// `set` and its saved file: values checked, a broken line skipped with its place named, the file
/// private to the user, and a format setting yielding to the command's own flags.
final class DisplaySettingsTests: XCTestCase {
    func testSetSaveAndLoad() throws {
        let dir = NSTemporaryDirectory() + "sxk-display-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/sxk/display"
        let settings = DisplaySettings(path: path)
        XCTAssertEqual(settings.lines, ["expanded off", "format table", "pager on"])
        try settings.set("expanded", "auto")
        try settings.set("format", "ndjson")
        try settings.set("pager", "off")
        XCTAssertThrowsError(try settings.set("expanded", "sometimes"))
        XCTAssertThrowsError(try settings.set("format", "raw"), "raw is not a default format")
        XCTAssertThrowsError(try settings.set("colour", "on"))
        try settings.save()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "expanded auto\nformat ndjson\npager off\n")

        try "expanded on\nformat nope\n# a comment\n\npager\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (loaded, problems) = DisplaySettings.load(path: path)
        XCTAssertEqual(loaded.lines, ["expanded on", "format table", "pager on"])
        XCTAssertEqual(problems.count, 2, "\(problems)")
        XCTAssertTrue(problems[0].hasPrefix(path + ":2:"), "\(problems)")
        XCTAssertTrue(problems[1].hasPrefix(path + ":5:"), "\(problems)")
    }

    /// A missing file is the defaults with nothing said; one that cannot be used (a folder, a FIFO,
    /// more than 1 MB) is the defaults with one problem naming it, and reading it never blocks.
    func testAFileThatCannotBeReadLeavesTheDefaults() throws {
        let dir = NSTemporaryDirectory() + "sxk-display-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let missing = DisplaySettings.load(path: dir + "/none")
        XCTAssertEqual(missing.settings.lines, ["expanded off", "format table", "pager on"])
        XCTAssertEqual(missing.problems, [])

        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let big = dir + "/big"
        try Data(repeating: 0x20, count: (1 << 20) + 1).write(to: URL(fileURLWithPath: big))
        for (path, reason) in [(dir, "not a regular file"), (fifo, "not a regular file"), (big, "larger than 1 MB")] {
            let (settings, problems) = DisplaySettings.load(path: path)
            XCTAssertEqual(settings.lines, ["expanded off", "format table", "pager on"], path)
            XCTAssertEqual(problems.count, 1, "\(problems)")
            XCTAssertTrue(problems.first?.hasPrefix(path + ": ") == true && problems.first?.contains(reason) == true, "\(problems)")
        }

        // Trusted as sxkrc is: a file others can write is refused; a FIFO planted at the name the
        // save once used for its temporary file is never opened.
        let loose = dir + "/loose"
        try "pager off\n".write(toFile: loose, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(loose, 0o666), 0)
        let (looseSettings, looseProblems) = DisplaySettings.load(path: loose)
        XCTAssertEqual(looseSettings.lines, ["expanded off", "format table", "pager on"])
        XCTAssertTrue(looseProblems.first?.contains("others can write it") == true, "\(looseProblems)")
        let saved = dir + "/saved"
        XCTAssertEqual(mkfifo(saved + ".tmp-\(getpid())", 0o600), 0)
        try DisplaySettings(path: saved).save()
        XCTAssertEqual(try String(contentsOfFile: saved, encoding: .utf8), "expanded off\nformat table\npager on\n")

        // 1 MB exactly is read: a line of spaces, then a setting.
        let full = dir + "/full"
        let setting = Array("\nexpanded on\n".utf8)
        try Data([UInt8](repeating: 0x20, count: (1 << 20) - setting.count) + setting).write(to: URL(fileURLWithPath: full))
        let (settings, problems) = DisplaySettings.load(path: full)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(settings.lines, ["expanded on", "format table", "pager on"])
    }

    func testFormatSettingYieldsToTheCommandLine() throws {
        let spec = CommandSpec("x", summary: "", flags: ["json", "csv", "chart", "no-pager"].map { FlagSpec($0, summary: "") })
        let parser = CommandParser(specs: [spec])
        func format(_ words: [String], _ display: DisplaySettings) throws -> OutputFormat {
            guard case .run(let c) = try parser.parse(words) else { throw UsageError("help") }
            return try OutputFormat.from(c, options: GlobalOptions(), display: display)
        }
        let display = DisplaySettings()
        try display.set("format", "csv")
        XCTAssertEqual(try format(["x"], display).kind, .csv)
        XCTAssertTrue(try format(["x"], display).fromSetting)
        XCTAssertEqual(try format(["x", "--json"], display).kind, .json)
        XCTAssertEqual(try format(["x", "--chart"], display).kind, .table, "--chart is a table view")
        XCTAssertTrue(try format(["x", "--no-pager"], display).noPager)
        let io = CommandIO(stdout: BufferOutput(), stderr: BufferOutput(),
                           terminal: Terminal(stdinIsTerminal: true, stdoutIsTerminal: true, stderrIsTerminal: true, width: 80, colorEnabled: false),
                           display: display)
        XCTAssertEqual(io.pager("less"), "less")
        XCTAssertNil(io.pager("less", format: try format(["x", "--no-pager"], display)))
        display.pager = false
        XCTAssertNil(io.pager("less"))
    }
}
