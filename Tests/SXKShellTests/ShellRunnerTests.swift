import Foundation
import XCTest
@testable import SXKShell

/// The runner with a fake host: modes, exit codes, builtins, `__complete`.
final class ShellRunnerTests: XCTestCase {
    final class FakeHost: ShellHost, @unchecked Sendable {
        struct Failure: Error, CustomStringConvertible { var description: String }
        var ran: [String] = []
        var shutdowns = 0
        var commandSpecs: [CommandSpec] {
            Fixtures.specs + [
                CommandSpec("fail", summary: "Fails with 4"),
                CommandSpec("throw", summary: "Throws"),
                CommandSpec("cancel", summary: "Is cancelled"),
            ]
        }
        func prompt() -> PromptText { PromptText("t › ") }
        func execute(_ command: ParsedCommand, io: CommandIO) async throws -> Int32 {
            ran.append(command.path.joined(separator: " "))
            switch command.spec.name {
            case "fail": return 4
            case "throw": throw Failure(description: "the server said no")
            case "cancel": throw CancellationError()
            default:
                io.stdout.line("ran \(command.spec.name) \(command.positionals.joined(separator: ","))")
                return 0
            }
        }
        func completions(for provider: String, prefix: String) -> [CompletionCandidate] {
            Fixtures.Scenics().completions(for: provider, prefix: prefix)
        }
        func exitStatus(for error: any Error) -> Int32 { error is Failure ? 3 : 1 }
        func shutdown() { shutdowns += 1 }
    }

    func run(_ mode: RunMode, keepGoing: Bool = false) async -> (Int32, String, String, FakeHost) {
        let host = FakeHost()
        var options = GlobalOptions()
        options.keepGoing = keepGoing
        let out = BufferOutput(), err = BufferOutput()
        let shell = Shell(host: host, invocation: Invocation(options: options, mode: mode), version: "9.9", terminal: .plain,
                          historyPath: nil, stdout: out, stderr: err)
        let status = await shell.run()
        return (status, out.text, err.text, host)
    }

    /// The specs `ShellMain` merged are the ones the shell parses with; without them it merges the host's itself.
    func testTheShellParsesWithTheSpecsItIsGiven() async {
        let host = FakeHost()
        let out = BufferOutput(), err = BufferOutput()
        let given = Builtins.merged(with: host.commandSpecs.filter { $0.name != "fail" })
        let shell = Shell(host: host, invocation: Invocation(options: GlobalOptions(), mode: .commands("fail")), version: "9.9",
                          terminal: .plain, historyPath: nil, stdout: out, stderr: err, specs: given)
        XCTAssertEqual(shell.specs.map(\.name), given.map(\.name))
        let status = await shell.run()
        XCTAssertEqual(status, ExitStatus.usage, "a command missing from the given specs is unknown")
        XCTAssertEqual(host.ran, [])
        let merged = Shell(host: host, invocation: Invocation(options: GlobalOptions(), mode: .commands("fail")), version: "9.9",
                           terminal: .plain, historyPath: nil, stdout: out, stderr: err)
        XCTAssertEqual(merged.specs.map(\.name), Builtins.merged(with: host.commandSpecs).map(\.name))
    }

    func testCommandsStopAtFirstFailure() async {
        let (status, out, _, host) = await run(.commands("get /a; fail; get /b"))
        XCTAssertEqual(status, 4)
        XCTAssertEqual(host.ran, ["get", "fail"])
        XCTAssertEqual(out, "ran get /a\n")
        XCTAssertEqual(host.shutdowns, 1)
    }

    func testKeepGoingRunsEverything() async {
        let (status, _, _, host) = await run(.commands("fail\nget /b # comment"), keepGoing: true)
        XCTAssertEqual(status, 4)
        XCTAssertEqual(host.ran, ["fail", "get"])
    }

    func testUsageErrorsExit2WithOneLine() async {
        var r = await run(.oneShot(["orders", "--stauts", "x"]))
        XCTAssertEqual(r.0, 2)
        XCTAssertEqual(r.2, "error: unknown flag '--stauts' for 'orders' (did you mean '--status'?)\n")
        r = await run(.commands("get 'open"))
        XCTAssertEqual(r.0, 2)
        XCTAssertEqual(r.2, "error: unterminated single quote\n")
    }

    func testErrorsMapThroughHost() async {
        var r = await run(.oneShot(["throw"]))
        XCTAssertEqual(r.0, 3)
        XCTAssertEqual(r.2, "error: the server said no\n")
        r = await run(.oneShot(["cancel"]))
        XCTAssertEqual(r.0, 130)
    }

    func testBuiltins() async {
        var r = await run(.commands("version; help orders; exit 5; version"))
        XCTAssertEqual(r.0, 5)
        XCTAssertTrue(r.1.hasPrefix("sxk 9.9\nUsage: orders"))
        XCTAssertEqual(r.1.components(separatedBy: "sxk 9.9").count, 2, "nothing runs after exit")
        r = await run(.oneShot(["stats", "daily", "--help"]))
        XCTAssertEqual(r.0, 0)
        XCTAssertTrue(r.1.hasPrefix("Usage: stats daily"))
        r = await run(.oneShot(["completion", "bash"]))
        XCTAssertTrue(r.1.contains("complete -F _sxk sxk"))
        r = await run(.oneShot(["help", "nosuch"]))
        XCTAssertEqual(r.0, 2)
    }

    func testHiddenCompleteUsesEngineAndProviders() async {
        var r = await run(.oneShot(["__complete", "--", "scenic", "西"]))
        XCTAssertEqual(r.1, "1\t西湖景区\n西湖 北线\tname with a space\n")
        // A description with line breaks and a tab (server text) stays on its candidate's line, each
        // shown as its escape (as every other control).
        r = await run(.oneShot(["__complete", "--", "scenic", "9"]))
        XCTAssertEqual(r.1, "9\t断桥\\r\\n残雪\\t店\\n\n")
        r = await run(.oneShot(["__complete", "--", "--json", "--env", "test", "ord"]))
        XCTAssertEqual(r.1, "orders\tList orders\n")
        r = await run(.oneShot(["__complete", "--", "--js"]))
        XCTAssertEqual(r.1, "--json\tPrint data as JSON\n")
        r = await run(.oneShot(["__complete", "--", "--env", ""]))
        XCTAssertEqual(r.1, "")
    }

    func testScriptFile() async throws {
        let path = NSTemporaryDirectory() + "sxk-script-\(UUID().uuidString).sxk"
        try "# setup\nget /a\nget '/b c' # trailing\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = await run(.script(path))
        XCTAssertEqual(r.0, 0)
        XCTAssertEqual(r.1, "ran get /a\nran get /b c\n")
        let missing = await run(.script("ordrs"))
        XCTAssertEqual(missing.0, 2)
        XCTAssertEqual(missing.2, "error: unknown command 'ordrs' (did you mean 'orders'?)\n")
    }
}
