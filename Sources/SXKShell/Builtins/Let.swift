import FoundationEssentials
import SXKCore

extension Builtins {
    /// `let NAME = COMMAND… [PATH]`, `let NAME = $VAR [PATH]`, `let NAME = PATH`: a value of a
    /// command's data kept in a variable. Its words are another command's, so read as typed.
    enum Let: TypedWordsBuiltin {
        static let spec = CommandSpec("let", summary: "Keep a value from a command's data in a variable",
            discussion: "let NAME = COMMAND… [PATH] runs the command without printing and keeps the value at PATH of its data (what the command prints with --json). let NAME = $VAR [PATH] and let NAME = PATH (over $_, the last command's data) read data already kept. Paths: .list[0].orderId, .a.b, [2], [-1] (from the end), .list[].orderId (every element), '[\"odd key\"]' (in single quotes, so its quotes reach the path), or . for everything. Use $NAME or ${NAME} in later commands; write \\$ or single quotes for a literal dollar sign.",
            arguments: [ArgumentSpec("NAME", summary: "Letters, digits and _"),
                        ArgumentSpec("=", kind: .choice(["="]), summary: "An equals sign"),
                        ArgumentSpec("COMMAND", kind: .provider("command"), variadic: true, summary: "The command, then an optional PATH")],
            examples: ["let id = orders --limit 1 .list[0].orderId", "let no = $_ .list[0].orderNo", "let total = .total"])

        static func run(typed words: [String], in shell: Shell, io: CommandIO) async -> Int32 {
            await shell.runLet([Token(text: spec.name, start: 0, end: 0)] + words.map { Token(text: $0, start: 0, end: 0) }, io: io)
        }
    }
}

extension Shell {
    /// `let NAME = COMMAND… [PATH]`, `let NAME = $VAR [PATH]`, `let NAME = PATH` (over `$_`).
    func runLet(_ tokens: [Token], io: CommandIO) async -> Int32 {
        do {
            return try await assign(Array(tokens.dropFirst()), io: io)
        } catch let error as DataPathError {
            errors.error(error)
            return ExitStatus.failure
        } catch {
            errors.error(error)
            return ExitStatus.usage
        }
    }

    private static let letUsage = "usage: let NAME = COMMAND… [PATH], let NAME = $VAR [PATH] or let NAME = PATH"

    private func assign(_ arguments: [Token], io: CommandIO) async throws -> Int32 {
        var rest = arguments
        if rest.count == 1, rest[0].text == "--help" || rest[0].text == "-h" {
            return showHelp(for: "let", io: io)
        }
        guard let nameToken = rest.first else { throw UsageError(Self.letUsage) }
        rest.removeFirst()
        var name = nameToken.text
        if name.count > 1 && name.hasSuffix("=") {
            name.removeLast()
        } else if let eq = rest.first, eq.text == "=", !eq.quoted {
            rest.removeFirst()
        } else if name.contains("=") && name != "=" {
            throw UsageError("put spaces around '=': let NAME = COMMAND… [PATH]")
        } else {
            throw UsageError(Self.letUsage)
        }
        guard nameToken.parts.isEmpty, Variables.isValidName(name) else {
            throw UsageError("bad variable name '\(name)' (letters, digits and _, not starting with a digit)")
        }
        guard name != Variables.lastData else { throw UsageError("'_' is set by the shell: it holds the last command's data") }
        guard !rest.isEmpty else { throw UsageError("let \(name): nothing after '=' — \(Self.letUsage)") }

        let data: JSONValue
        var path = try DataPath(parsing: ".")
        var source: String
        if rest.count <= 2, rest[0].parts.count == 1, case .variable(let from) = rest[0].parts[0] {
            // let x = $y .path
            data = try variableValue(from)
            if rest.count == 2 { path = try DataPath(parsing: try expandVariables(rest[1])) }
            source = "$" + from
        } else if rest.count == 1, DataPath.looksLikePath(try expandVariables(rest[0])) {
            // let x = .path  (over $_)
            guard let last = variables.lastEntry else {
                throw UsageError("$_ is empty: run a command first, or write let \(name) = COMMAND… \(rest[0].text)")
            }
            data = last.value
            path = try DataPath(parsing: try expandVariables(rest[0]))
            source = "$_"
        } else {
            var command = rest
            // `let x = orders --jq .list`: the expression is the flag's value, not a path over the data.
            if command.count >= 2, let last = command.last, command[command.count - 2].text != "--jq" {
                let text = try expandVariables(last)
                if DataPath.looksLikePath(text) {
                    do {
                        path = try DataPath(parsing: text)
                        command.removeLast()
                    } catch {
                        // `./export.json` is the command's own argument, not a path.
                        if !text.contains("/") { throw error }
                    }
                }
            }
            let commands = aliases.expand(command)
            guard commands.count == 1, let expanded = commands.first, !expanded.isEmpty else {
                throw UsageError("let \(name): '\(command[0].text)' stands for several commands; let takes one")
            }
            let one = try expandingPassedAlias(expanded)
            if one[0].text == "let" && !one[0].quoted { throw UsageError("let \(name): a let cannot run another let") }
            // A command that ends the shell gives no data: refused, not run after its error.
            // Quoted or not, the word names the same command.
            if ["exit", "quit"].contains(one[0].text) { throw UsageError("let \(name): '\(one[0].text)' ends the shell and gives no data") }
            // A command that runs until it is stopped (`watch` without `--count`) would never hand a value over.
            if let spec = parser.command(named: one[0].text), let bound = spec.endlessUnless,
               !one.dropFirst().contains(where: { ["--\(bound)", "--help", "-h"].contains($0.text) || $0.text.hasPrefix("--\(bound)=") }) {
                throw UsageError("let \(name): '\(spec.name)' without --\(bound) runs until it is stopped and gives no data")
            }
            let words = try one.map(expandVariables)
            let (status, produced) = await capture(words, io: io)
            if status != 0 { return status }
            guard let produced else {
                throw DataPathError("'\(commandText(words))' gave no JSON data to take '\(path.text)' from")
            }
            data = produced
            source = commandText(words)
        }
        if !path.steps.isEmpty { source += " " + path.text }
        let value = Variables.sanitize(try path.evaluate(data), secrets: host.secrets)
        variables.set(name, value: value, source: source)
        if io.isInteractive && errorLocation == nil {
            io.errors.note("\(name) = \(Variables.preview(value, width: max(20, currentTerminal.width - name.count - 4)))")
        }
        return ExitStatus.ok
    }

    /// Runs `words` with stdout kept from the screen and JSON output on; gives its status and the
    /// data it kept (or, for a command that only streams, the JSON it printed).
    private func capture(_ words: [String], io: CommandIO) async -> (Int32, JSONValue?) {
        let buffer = BufferOutput()
        var options = io.options
        options.json = true
        var quietTerminal = io.terminal
        quietTerminal.stdoutIsTerminal = false
        quietTerminal.colorEnabled = false
        let quiet = CommandIO(stdout: buffer, stderr: io.stderr, terminal: quietTerminal, options: options,
                              isInteractive: io.isInteractive, reader: io.reader, parser: parser, display: io.display)
        let status = await runWords(words, io: quiet)
        guard status == 0 else { return (status, nil) }
        if let kept = quiet.data.value { return (0, kept) }
        return (0, Self.parseOutput(buffer.text))
    }

    /// One JSON document, or one per line (NDJSON) gathered into an array; nil when neither.
    static func parseOutput(_ text: String) -> JSONValue? {
        let trimmed = text.trimming(\.isWhitespace)
        guard !trimmed.isEmpty else { return nil }
        if let whole = try? JSONParser.parse(trimmed) { return Redaction.redact(whole) }
        var items: [JSONValue] = []
        for line in trimmed.split(separator: "\n") where !line.allSatisfy({ $0 == " " || $0 == "\r" }) {
            guard let item = try? JSONParser.parse(String(line)) else { return nil }
            items.append(item)
        }
        return Redaction.redact(.array(items))
    }
}
