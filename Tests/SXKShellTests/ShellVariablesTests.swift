import Foundation
import SXKCore
import XCTest
@testable import SXKShell

/// `let`, `$name`, `$_`, `vars`, `unset`, aliases, `history --here` and the startup file, through
/// the shell with a host whose commands keep data the way the app's do.
final class ShellVariablesTests: XCTestCase {
    static let token = "tok-0123456789abcdef"

    final class DataHost: ShellHost, @unchecked Sendable {
        var ran: [[String]] = []
        var context = HistoryContext(profile: "test", environment: "test", role: "storeAdmin", scenicId: "1", scenicName: "西湖景区", storeId: "101")
        var commandSpecs: [CommandSpec] {
            [
                CommandSpec("orders", summary: "Orders", flags: [
                    FlagSpec("limit", value: .int, summary: "rows"), FlagSpec("keyword", value: .string, summary: "search"),
                    FlagSpec("json", summary: "JSON"),
                ]),
                CommandSpec("echo", summary: "Prints its words", arguments: [ArgumentSpec("WORDS", optional: true, variadic: true, summary: "words")]),
                CommandSpec("stream", summary: "Prints NDJSON without keeping data"),
                CommandSpec("secret", summary: "Keeps data holding the token"),
                CommandSpec("fail", summary: "Fails"),
            ]
        }
        func prompt() -> PromptText { PromptText("t › ") }
        func execute(_ command: ParsedCommand, io: CommandIO) async throws -> Int32 {
            ran.append([command.spec.name] + command.positionals + command.options.sorted { $0.key < $1.key }.flatMap { ["--" + $0.key] + $0.value })
            switch command.spec.name {
            case "orders":
                let limit = command.option("limit").flatMap(Int.init) ?? 2
                let rows: [JSONValue] = (1...limit).map { ["orderId": .int(7000 + $0), "orderNo": .string("SX\($0)")] }
                let data: JSONValue = ["list": .array(rows), "total": .int(limit)]
                if command.has("json") || io.options.json { io.json.print(data) } else {
                    io.keep(data)
                    io.stdout.line("table of \(limit) orders")
                }
            case "echo":
                io.stdout.line(command.positionals.joined(separator: "|"))
            case "stream":
                io.stdout.write("{\"n\":1}\n{\"n\":2}\n")
            case "secret":
                io.keep(["token": .string(ShellVariablesTests.token), "header": .string("token \(ShellVariablesTests.token)")])
            case "fail":
                return 1
            default: break
            }
            return 0
        }
        func completions(for provider: String, prefix: String) -> [CompletionCandidate] { [] }
        func exitStatus(for error: any Error) -> Int32 { 1 }
        func shutdown() {}
        var secrets: [String] { [ShellVariablesTests.token] }
        func historyContext() -> HistoryContext? { context }
    }

    struct Run {
        var status: Int32
        var out: String
        var err: String
        var host: DataHost
        var shell: Shell
    }

    func run(_ text: String, host: DataHost = DataHost(), historyPath: String? = nil, interactive: Bool = false, keepGoing: Bool = false) async -> Run {
        let out = BufferOutput(), err = BufferOutput()
        var options = GlobalOptions()
        options.keepGoing = keepGoing
        let shell = Shell(host: host, invocation: Invocation(options: options, mode: .commands(text)), version: "9.9",
                          terminal: .plain, historyPath: historyPath, stdout: out, stderr: err)
        let status: Int32
        if interactive {
            status = await shell.runLine(text, io: shell.makeIO(interactive: true), stopOnFailure: false)
        } else {
            status = await shell.run()
        }
        return Run(status: status, out: out.text, err: err.text, host: host, shell: shell)
    }

    func testLetRunsSilentlyAndLaterCommandsExpand() async {
        let r = await run("let id = orders --limit 1 .list[0].orderId; echo id=$id \"${id}x\" '$id' \\$id")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.out, "id=7001|7001x|$id|$id\n", "let printed something, or expansion is wrong")
        XCTAssertEqual(r.err, "")
        XCTAssertEqual(r.shell.variables.value("id"), .number("7001"))
        XCTAssertEqual(r.host.ran.first, ["orders", "--limit", "1"], "let must not change the command's words")
    }

    func testLastDataAndPathsOverIt() async {
        let r = await run("orders --limit 3; let no = .list[2].orderNo; let ids = $_ .list[].orderId; let first = $ids [0]; echo $no $first $ids")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.out, "table of 3 orders\nSX3|7001|[7001,7002,7003]\n")
        XCTAssertEqual(r.host.ran.count, 2, "using $_ must not run the command again: \(r.host.ran)")
        XCTAssertEqual(r.shell.variables.lastEntry?.source, "orders --limit 3")
    }

    func testStreamedOutputIsParsedWhenNothingWasKept() async {
        let r = await run("let n = stream [1].n; echo $n")
        XCTAssertEqual(r.out, "2\n", r.err)
        let none = await run("let x = echo hi .a")
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(none.err, "error: 'echo hi' gave no JSON data to take '.a' from\n")
    }

    func testUsageErrorsAreOneLineAndStopTheLine() async {
        let cases: [(String, Int32, String)] = [
            ("echo $nope; echo after", 2, "error: unknown variable '$nope' (set one with: let nope = COMMAND… PATH; write \\$ for a literal dollar sign)\n"),
            ("let id = orders .total; echo $idd", 2, "error: unknown variable '$idd' (did you mean '$id'?)\n"),
            ("echo $_", 2, "error: $_ is empty: no command has kept data yet\n"),
            ("echo $HOME/x", 2, "error: unknown variable '$HOME' (environment variables are not expanded; write \\$ for a literal dollar sign)\n"),
            ("let = orders", 2, "error: usage: let NAME = COMMAND… [PATH], let NAME = $VAR [PATH] or let NAME = PATH\n"),
            ("let 9a = orders", 2, "error: bad variable name '9a' (letters, digits and _, not starting with a digit)\n"),
            ("let _ = orders", 2, "error: '_' is set by the shell: it holds the last command's data\n"),
            ("let id=orders", 2, "error: put spaces around '=': let NAME = COMMAND… [PATH]\n"),
            ("let id = orders .list[9]", 1, "error: [9] is out of range: .list has 2 items\n"),
            ("let id = orders .list[", 2, "error: bad path '.list[': '[' is not closed (paths look like .list[0].orderId, .a.b, [2] or .)\n"),
            ("let id = fail .x", 1, ""),
            ("let x = nosuch .a", 2, "error: unknown command 'nosuch'\n"),
        ]
        for (line, status, err) in cases {
            let r = await run(line)
            XCTAssertEqual(r.status, status, line)
            XCTAssertEqual(r.err, err, line)
            XCTAssertFalse(r.out.contains("after"), line)
        }
    }

    func testLetAcceptsNameEqualsGlued() async {
        let r = await run("let id= orders .total; echo $id")
        XCTAssertEqual(r.out, "2\n", r.err)
    }

    func testSecretsNeverReachVariables() async {
        let r = await run("secret; let t = .token; let h = $_ .header; let all = secret; vars; vars --json")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertFalse(r.out.contains(Self.token), r.out)
        XCTAssertEqual(r.shell.variables.value("t"), .string("***"))
        XCTAssertEqual(r.shell.variables.value("h"), .string("token ***"))
    }

    /// Where a variable came from is shown by `vars` and in errors: a password typed as `k=v` or
    /// in a JSON word, or the session's token, is `***` there too.
    func testSecretsTypedInACommandNeverReachVariableSources() async {
        let r = await run("""
            let a = orders --keyword password=hunter2-secret .total; orders --keyword \(Self.token); vars; vars --json
            let b = echo pwd=hunter2-secret '{"password":"hunter2-secret","x":1}' .x
            """, keepGoing: true)
        XCTAssertEqual(r.status, 1, r.err)
        for text in [r.out, r.err] {
            XCTAssertFalse(text.contains("hunter2-secret"), text)
            XCTAssertFalse(text.contains(Self.token), text)
        }
        XCTAssertTrue(r.out.contains("orders --keyword 'password=***' .total"), r.out)
        XCTAssertTrue(r.out.contains("orders --keyword ***"), r.out)
        XCTAssertTrue(r.err.contains("'echo 'pwd=***' '{\"password\":\"***\",\"x\":1}'' gave no JSON data"), r.err)
        XCTAssertEqual(r.host.ran.first, ["orders", "--keyword", "password=hunter2-secret"], "the command itself gets the word as typed")
    }

    func testVarsListsAndUnsetForgets() async {
        let r = await run("let id = orders .list[0].orderId; let no = $_ .list[0].orderNo; vars; unset id; vars --json; unset id")
        XCTAssertEqual(r.status, 2, "unset of a missing variable is a usage error")
        let lines = r.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0].split(separator: " ", omittingEmptySubsequences: true), ["NAME", "VALUE", "FROM"])
        XCTAssertTrue(lines[1].hasPrefix("$id ") && lines[1].contains("7001") && lines[1].contains("orders .list[0].orderId"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("$no ") && lines[2].contains("\"SX1\"") && lines[2].contains("$_ .list[0].orderNo"), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("$_ ") && lines[3].contains("orders"), lines[3])
        let json = try? JSONParser.parse(lines[4])
        XCTAssertEqual(json?.objectValue?.keys, ["no", "_"])
        XCTAssertTrue(r.err.hasPrefix("error: no variable 'id'"), r.err)
    }

    func testInteractiveLetConfirmsOnStderr() async {
        let r = await run("let id = orders .list[1].orderId", interactive: true)
        XCTAssertEqual(r.out, "")
        XCTAssertEqual(r.err, "id = 7002\n")
    }

    func testAliasesDefineListExpandAndRefuse() async {
        let r = await run("alias lo='orders --limit 1' e=echo; alias; lo; e a b; \\e x; alias lo; unalias lo; lo", keepGoing: true)
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.out, "alias e=echo\nalias lo='orders --limit 1'\ntable of 1 orders\na|b\nalias lo='orders --limit 1'\n")
        let errors = r.err.split(separator: "\n")
        XCTAssertEqual(errors.count, 2, r.err)
        XCTAssertTrue(r.err.hasPrefix("error: unknown command 'e'"), "an escaped alias runs the word itself: \(r.err)")
        XCTAssertTrue(errors.last?.hasPrefix("error: unknown command 'lo'") ?? false, "unalias did not remove it: \(r.err)")
        let bad = await run("alias so=orders --limit 1")
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.err, "error: alias so: quote the whole value, e.g. alias so='orders --limit 1'\n")
        let loop = await run("alias a=b; alias b=a")
        XCTAssertEqual(loop.err, "error: alias b not defined: it would loop (b → a → b)\n")
        let reserved = await run("alias exit=echo")
        XCTAssertEqual(reserved.err, "error: 'exit' is a shell command and cannot be an alias\n")
        let inLet = await run("alias one='orders --limit 1'; let id = one .list[0].orderId; echo $id")
        XCTAssertEqual(inLet.out, "7001\n", inLet.err)
    }

    func testHelpPagesForRawBuiltins() async {
        let r = await run("let --help; alias --help")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("Usage: let"), r.out)
        XCTAssertTrue(r.out.contains("Usage: alias"), r.out)
    }

    func testHistoryHereShowsOnlyThisScope() async throws {
        let dir = NSTemporaryDirectory() + "sxk-here-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/history"
        let store = HistoryStore(path: path)
        let here = HistoryContext(profile: "test", environment: "test", role: "storeAdmin", scenicId: "1", scenicName: "西湖景区", storeId: "101", time: 1_700_000_000)
        var other = here
        other.storeId = "102"
        store.add("orders --limit 1", persist: true, context: here)
        store.add("store 102", persist: true, context: here)
        store.add("orders --limit 2", persist: true, context: other)
        store.add("whoami", persist: true, context: nil)
        store.add("stats", persist: true, context: here)
        try store.save()

        let all = await run("history", historyPath: path)
        let scope = "test storeAdmin@西湖景区/101"
        XCTAssertEqual(all.out, [
            "1  \(scope)  orders --limit 1", "2  \(scope)  store 102", "3  test storeAdmin@西湖景区/102  orders --limit 2",
            "4  " + TextWidth.pad("-", to: TextWidth.width(scope)) + "  whoami", "5  \(scope)  stats",
        ].map { $0 + "\n" }.joined())
        let mine = await run("history --here", historyPath: path)
        XCTAssertEqual(mine.out.split(separator: "\n").map { String($0.prefix(2)) }, ["1 ", "2 ", "5 "], mine.out)
        let last = await run("history --here 1", historyPath: path)
        XCTAssertTrue(last.out.hasPrefix("5  ") && last.out.hasSuffix("stats\n"), last.out)
        let json = await run("history --here --json", historyPath: path)
        let rows = try XCTUnwrap(try JSONParser.parse(json.out).arrayValue)
        XCTAssertEqual(rows.map { $0.objectValue?["line"]?.stringValue }, ["orders --limit 1", "store 102", "stats"])
        XCTAssertEqual(rows[0].objectValue?["storeId"], .int(101), "an id is a number, as every command gives it")
        XCTAssertEqual(rows[0].objectValue?["role"], .string("storeAdmin"))
    }

    func testStartupFilePersistLineIsLeftToOneShots() async throws {
        let dir = NSTemporaryDirectory() + "sxk-rc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rc = dir + "/sxkrc"
        try "persist 600\necho rc-done\npersist 7 # keep\npersist abc\npersist 30; alias x=y\npersist  30\n".write(toFile: rc, atomically: true, encoding: .utf8)
        chmod(rc, 0o600)
        let out = BufferOutput(), err = BufferOutput()
        let shell = Shell(host: DataHost(), invocation: Invocation(options: GlobalOptions(), mode: .repl), version: "9.9", terminal: .plain,
                          historyPath: nil, rcPath: rc, stdout: out, stderr: err)
        await shell.runStartupFile(io: shell.makeIO(interactive: true))
        // The REPL skips a valid one without a word, and says which it skips that a one-shot refuses
        // (the alias after `;` is not run); a one-shot reads the last one.
        XCTAssertEqual(out.text, "rc-done\n")
        XCTAssertEqual(err.text.components(separatedBy: "\n").filter { !$0.isEmpty }, [
            "warning: \(rc):4: persist expects seconds from 0 to 86400, got 'abc'; the line is skipped",
            "warning: \(rc):5: persist expects seconds from 0 to 86400, got '30; alias x=y'; the line is skipped",
        ])
        XCTAssertEqual(StartupFile.persistSetting(rc), "30")
        XCTAssertNil(StartupFile.persistSetting(dir + "/none"))
        // A comment after the value is no part of it; a line of `persist` alone is one, to be refused.
        XCTAssertEqual(StartupFile.persistValue(.init(number: 1, text: "persist 7   # keep")), "7")
        XCTAssertEqual(StartupFile.persistValue(.init(number: 1, text: "persist")), "")
        XCTAssertNil(StartupFile.persistValue(.init(number: 1, text: "timing on # persist 7")))
    }

    func testStartupFileRunsWithFileLineErrorsAndKeepsGoing() async throws {
        let dir = NSTemporaryDirectory() + "sxk-rc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rc = dir + "/sxkrc"
        try """
        # aliases for the store admin
        alias lo='orders \\
          --limit 1'
        frobnicate
        let id = lo .list[0].orderId
        echo $nope

        echo rc-done $id
        """.write(toFile: rc, atomically: true, encoding: .utf8)
        chmod(rc, 0o600)
        let out = BufferOutput(), err = BufferOutput()
        let host = DataHost()
        let shell = Shell(host: host, invocation: Invocation(options: GlobalOptions(), mode: .repl), version: "9.9", terminal: .plain,
                          historyPath: nil, rcPath: rc, stdout: out, stderr: err)
        await shell.runStartupFile(io: shell.makeIO(interactive: true))
        XCTAssertEqual(out.text, "rc-done|7001\n")
        XCTAssertEqual(err.text, """
        error: \(rc):4: unknown command 'frobnicate'
        error: \(rc):6: unknown variable '$nope' (known: $id)

        """)
        XCTAssertNotNil(shell.aliases.alias("lo"))

        chmod(rc, 0o666)
        let loose = BufferOutput()
        let refused = Shell(host: DataHost(), invocation: Invocation(options: GlobalOptions(), mode: .repl), version: "9.9", terminal: .plain,
                            historyPath: nil, rcPath: rc, stdout: BufferOutput(), stderr: loose)
        await refused.runStartupFile(io: refused.makeIO(interactive: true))
        XCTAssertEqual(loose.text, "warning: not running \(rc): others can write it (mode 666); fix with: chmod go-w \(rc)\n")
        XCTAssertNil(refused.aliases.alias("lo"))

        var options = GlobalOptions()
        options.noRC = true
        chmod(rc, 0o600)
        let skipped = BufferOutput()
        let norc = Shell(host: DataHost(), invocation: Invocation(options: options, mode: .repl), version: "9.9", terminal: .plain,
                         historyPath: nil, rcPath: rc, stdout: skipped, stderr: skipped)
        await norc.runStartupFile(io: norc.makeIO(interactive: true))
        XCTAssertEqual(skipped.text, "")
    }
    /// `vars` prints through the renderer: the row formats and `--jq` beside `--json`.
    func testVarsPrintsEveryFormatThroughTheRenderer() async throws {
        let r = await run("let id = orders .list[0].orderId; let no = $_ .list[0].orderNo; unset _; vars --csv; vars --tsv; vars --jq .id; vars --ndjson; vars --json")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.out, """
            name,value,from
            id,7001,orders .list[0].orderId
            no,SX1,$_ .list[0].orderNo
            name\tvalue\tfrom
            id\t7001\torders .list[0].orderId
            no\tSX1\t$_ .list[0].orderNo
            7001
            {"name":"id","value":7001,"from":"orders .list[0].orderId"}
            {"name":"no","value":"SX1","from":"$_ .list[0].orderNo"}
            {"id":7001,"no":"SX1"}

            """)
        XCTAssertEqual(r.err, "")
        // No variables: the hint on stderr for the table view only; the row formats print their header.
        let empty = await run("vars; vars --csv; vars --json")
        XCTAssertEqual(empty.out, "name,value,from\n{}\n")
        XCTAssertEqual(empty.err, "(no variables — let NAME = COMMAND… PATH)\n")
        // Server text kept in a variable is made inert in every format.
        let hostile = await run(#"let id = echo '{"n":"a\u001b]0;pwn\u0007b"}' .n; vars; vars --csv"#)
        XCTAssertEqual(hostile.status, 0, hostile.err)
        XCTAssertFalse(hostile.out.contains("\u{1B}") || hostile.out.contains("\u{07}"), hostile.out)
        XCTAssertTrue(hostile.out.contains("id,a\\x1b]0;pwn\\x07b,"), hostile.out)
    }

    /// `alias` lists through the renderer: `--json`, `--csv`, `--jq`, with the session's secrets masked.
    func testAliasListsEveryFormatMaskedThroughTheRenderer() async throws {
        let r = await run("alias lo='orders --limit 1' t='echo \(Self.token)'; alias; alias --json; alias --csv; alias lo --jq .lo")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.out, """
            alias lo='orders --limit 1'
            alias t='echo '\\''***'\\'''
            {"lo":"orders --limit 1","t":"echo '***'"}
            name,words
            lo,orders --limit 1
            t,echo '***'
            orders --limit 1

            """)
        XCTAssertFalse(r.out.contains(Self.token), r.out)
        // A missing name is an error; the ones found still print.
        let some = await run("alias lo='orders --limit 1'; alias nope lo --json")
        XCTAssertEqual(some.status, 2)
        XCTAssertEqual(some.out, #"{"lo":"orders --limit 1"}"# + "\n")
        XCTAssertEqual(some.err, "error: no alias 'nope'\n")
    }

    /// A secret item typed into an alias body is listed masked, as `history` shows it, in every format and
    /// in the error that names the alias; the alias still runs with it as typed.
    func testAliasBodiesWithSecretItemsAreListedMasked() async throws {
        let r = await run(#"alias p='orders --keyword password=hunter2-secret' j='echo {"token":"hunter2-secret","x":1}'; alias; alias --json; alias --csv; p"#, keepGoing: true)
        XCTAssertEqual(r.status, 0, r.err)
        for text in [r.out, r.err] { XCTAssertFalse(text.contains("hunter2-secret"), text) }
        XCTAssertTrue(r.out.contains(#"alias p='orders --keyword '\''password=***'\'''"#), r.out)
        XCTAssertEqual(r.host.ran.last, ["orders", "--keyword", "password=hunter2-secret"], "the alias runs the word as typed")
        let unknown = await run("alias q='nope token=hunter2-secret'; q")
        XCTAssertEqual(unknown.status, 2)
        XCTAssertFalse(unknown.err.contains("hunter2-secret"), unknown.err)
        XCTAssertTrue(unknown.err.contains("unknown command 'nope'"), unknown.err)
    }

    /// `history` prints through the renderer: `--csv` and `--jq` over the records `--json` prints.
    func testHistoryPrintsEveryFormatThroughTheRenderer() async throws {
        let dir = NSTemporaryDirectory() + "sxk-history-formats-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/history"
        let store = HistoryStore(path: path)
        let here = HistoryContext(profile: "test", environment: "test", role: "storeAdmin", scenicId: "1", scenicName: "西湖\u{1B}]0;pwn\u{07}", storeId: "101", time: 1_700_000_000)
        store.add("orders --limit 1", persist: true, context: here)
        store.add("whoami", persist: true, context: nil)
        try store.save()
        let r = await run("history --csv; history --jq '.[1].line'; history --jq '.[0].scenicName'; history", historyPath: path)
        XCTAssertEqual(r.status, 0, r.err)
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines[0], "n,line,profile,env,role,scenicId,scenicName,storeId,at")
        XCTAssertTrue(lines[1].hasPrefix("1,orders --limit 1,test,test,storeAdmin,1,西湖\\x1b]0;pwn\\x07,101,"), lines[1])
        XCTAssertEqual(lines[2], "2,whoami,,,,,,,")
        XCTAssertEqual(lines[3], "whoami")
        XCTAssertEqual(lines[4], "西湖\\x1b]0;pwn\\x07")
        XCTAssertTrue(lines[5].hasPrefix("1  test storeAdmin@西湖\\x1b]0;pwn\\x07/101  orders --limit 1"), lines[5])
        XCTAssertFalse(r.out.contains("\u{1B}") || r.out.contains("\u{07}"), r.out)
    }
}
