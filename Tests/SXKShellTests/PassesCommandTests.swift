import XCTest
@testable import SXKShell

/// A spec that passes a command on (`watch -n 5 orders --all`): parsing stops at the inner command,
/// completion continues with the inner command's spec, and the scripts ask `__complete`.
final class PassesCommandTests: XCTestCase {
    static let watch = CommandSpec(
        "watch", summary: "repeat a command",
        arguments: [ArgumentSpec("COMMAND", kind: .provider("command"), summary: "command"),
                    ArgumentSpec("ARGS", optional: true, variadic: true, summary: "its words")],
        flags: [FlagSpec("interval", short: "n", value: .double, valueName: "S", summary: "seconds"),
                FlagSpec("count", value: .int, valueName: "N", summary: "runs")]
    ).passingCommand()
    let specs = Builtins.merged(with: Fixtures.specs + [PassesCommandTests.watch])

    func run(_ words: [String]) throws -> ParsedCommand {
        guard case .run(let command) = try CommandParser(specs: specs).parse(words) else { throw UsageError("expected a command") }
        return command
    }

    func testWordsAfterTheInnerCommandAreItsOwn() throws {
        let c = try run(["watch", "-n", "5", "--count", "2", "orders", "--all", "--role", "x", "--help", "-n", "1"])
        XCTAssertEqual(c.option("interval"), "5")
        XCTAssertEqual(c.option("count"), "2")
        XCTAssertEqual(c.positionals, ["orders", "--all", "--role", "x", "--help", "-n", "1"])
        XCTAssertEqual(try run(["watch", "--", "orders", "--all"]).positionals, ["orders", "--all"])
        // Before the inner command, flags are still checked and --help is the outer command's.
        XCTAssertThrowsError(try run(["watch", "--bogus", "orders"]))
        XCTAssertEqual(try CommandParser(specs: specs).parse(["watch", "-n", "2", "--help"]), .help([Self.watch]))
        // A spec without the mark still parses flags after positionals.
        XCTAssertThrowsError(try run(["get", "/x", "--bogus"]))
    }

    func testCompletionFollowsTheInnerCommand() {
        let engine = CompletionEngine(specs: specs)
        func values(_ line: String) -> [String] {
            engine.complete(line: line, cursor: line.utf8.count, provider: Fixtures.Scenics()).candidates.map(\.value)
        }
        XCTAssertEqual(values("watch --c"), ["--count"])
        XCTAssertTrue(values("watch -n 2 ord").contains("orders"))
        XCTAssertEqual(values("watch -n 2 orders --ro"), ["--role"])
        XCTAssertEqual(values("watch orders --role s"), ["scenicAdmin", "storeAdmin"])
        XCTAssertEqual(values("watch -- stats d"), ["daily"])
    }

    func testScriptsDelegateTheWholeLineToComplete() {
        for shell in CompletionScript.Shell.allCases {
            let script = CompletionScript.generate(for: shell, specs: specs)
            XCTAssertTrue(script.contains("watch"), "\(shell)")
            switch shell {
            case .bash, .zsh: XCTAssertTrue(script.contains("'watch')\n            _sxk_dynamic\n"), "\(shell)")
            case .fish: XCTAssertTrue(script.contains("__sxk_at \"watch\"' -a '(__sxk_dynamic)'"), "\(shell)")
            }
        }
    }
}
