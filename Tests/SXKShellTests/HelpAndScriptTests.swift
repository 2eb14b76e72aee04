import Foundation
import XCTest
@testable import SXKShell

/// Golden files for help output and completion scripts generated from the fixture specs.
/// Regenerate with `SXK_UPDATE_GOLDEN=1 swift test --filter HelpAndScriptTests`.
final class HelpAndScriptTests: XCTestCase {
    let specs = Builtins.merged(with: Fixtures.specs)

    func assertGolden(_ actual: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
        if ProcessInfo.processInfo.environment["SXK_UPDATE_GOLDEN"] != nil {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        XCTAssertEqual(actual, expected, "golden \(name) differs", file: file, line: line)
    }

    func testHelpOverviewGolden() throws {
        try assertGolden(HelpRenderer(specs: specs).overview(), "help.txt")
    }

    func testCommandPagesGolden() throws {
        let r = HelpRenderer(specs: specs)
        try assertGolden(r.page(for: [Fixtures.orders]), "help-orders.txt")
        try assertGolden(r.page(for: [Fixtures.stats, Fixtures.stats.subcommands[1]]), "help-stats-daily.txt")
        try assertGolden(r.page(for: [Fixtures.scenic]), "help-scenic.txt")
    }

    func testGlobalHelpMentionsEveryOption() {
        let text = ShellMain.globalHelp(programName: "sxk", specs: specs)
        for flag in GlobalOptions.flags { XCTAssertTrue(text.contains("--" + flag.name), flag.name) }
        XCTAssertTrue(text.contains("-c CMDS"))
        XCTAssertTrue(text.contains("orders"))
    }

    /// `|`, `>` and `>>` are sxk's own in the REPL, `-c` and scripts: `help`, `sxk --help` and the
    /// man page say so, from the one text, wrapped like the rest on a terminal.
    func testHelpAndManPageExplainPipesAndRedirection() {
        let overview = HelpRenderer(specs: specs).overview()
        let global = ShellMain.globalHelp(programName: "sxk", specs: specs)
        for text in [overview, global] {
            XCTAssertTrue(text.contains("\nPipes and redirection:\n"), text)
            for piece in ["'CMD | SHELL-COMMAND'", "'CMD > FILE'", "'CMD >> FILE'", "-c text and scripts", "/dev/null"] {
                XCTAssertTrue(text.contains(piece), piece)
            }
        }
        let page = ManPage.generate(specs: specs, prose: ManPage.Prose(tagline: "t", description: [], sections: []), version: "9.9")
        let section = page.components(separatedBy: "\n.SH \"PIPES AND REDIRECTION\"\n")
        XCTAssertEqual(section.count, 2, "no PIPES AND REDIRECTION section")
        XCTAssertTrue(section.last?.contains(ManPage.text("CMD > FILE")) == true, page)
        for line in HelpRenderer(specs: specs, width: 60).overview().split(separator: "\n") {
            XCTAssertLessThanOrEqual(TextWidth.width(String(line)), 60, String(line))
        }
    }

    func testCompletionScriptsGolden() throws {
        for shell in CompletionScript.Shell.allCases {
            try assertGolden(CompletionScript.generate(for: shell, specs: specs), "completion-" + shell.fileName)
        }
    }

    func testCompletionScriptsCoverSpecs() {
        for shell in CompletionScript.Shell.allCases {
            let script = CompletionScript.generate(for: shell, specs: specs)
            for word in ["orders", "stats", "daily", "--role", "storeAdmin", "--chart", "__complete", "completion", "--period", "--json"] {
                let spelled = shell == .fish && word.hasPrefix("--") ? "-l " + word.dropFirst(2) : word
                XCTAssertTrue(script.contains(spelled), "\(shell) script lacks \(spelled)")
            }
            XCTAssertFalse(script.contains("'__complete'"), "hidden command offered by \(shell)")
        }
    }

    func testBashScriptIsValidSyntax() throws {
        try checkSyntax(shell: "/bin/bash", args: ["-n"], script: CompletionScript.generate(for: .bash, specs: specs))
    }

    func testZshAndFishScriptsParseWhenInstalled() throws {
        for (path, args, kind) in [("/usr/bin/zsh", ["-n"], CompletionScript.Shell.zsh), ("/usr/bin/fish", ["--no-execute"], .fish)] {
            guard FileManager.default.isExecutableFile(atPath: path) else { continue }
            try checkSyntax(shell: path, args: args, script: CompletionScript.generate(for: kind, specs: specs))
        }
    }

    func checkSyntax(shell: String, args: [String], script: String) throws {
        let file = NSTemporaryDirectory() + "sxk-completion-\(UUID().uuidString)"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: shell)
        p.arguments = args + [file]
        let err = Pipe()
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 0, "\(shell): \(message)")
    }

    /// Runs the bash completion function against a fake `sxk` to check the dynamic path.
    func testBashCompletionFunctionCompletes() throws {
        let script = CompletionScript.generate(for: .bash, specs: specs)
        let dir = NSTemporaryDirectory() + "sxk-bash-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try script.write(toFile: dir + "/sxk.bash", atomically: true, encoding: .utf8)
        // Fake sxk answering `__complete`: prints a Chinese value with a description.
        try "#!/bin/sh\nprintf '1\\t西湖景区\\n2\\t灵隐寺\\n'\n".write(toFile: dir + "/sxk", atomically: true, encoding: .utf8)
        chmod(dir + "/sxk", 0o755)
        let driver = """
        source \(dir)/sxk.bash
        PATH=\(dir):$PATH
        t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _sxk; echo "${COMPREPLY[*]}"; }
        t sxk ord
        t sxk orders --role s
        t sxk --json stats d
        t sxk stats daily --c
        t sxk scenic ''
        t sxk o --r
        t sxk --js
        """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", driver]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(Array(lines.prefix(7)), ["orders", "scenicAdmin storeAdmin", "daily", "--chart", "1 2", "--role --ratio", "--json"])
    }
}
