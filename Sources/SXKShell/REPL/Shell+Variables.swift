import FoundationEssentials
import SXKCore

/// Aliases, `$name` expansion, `let`, `vars`, `unset`, `alias`, `unalias`.
extension Shell {
    /// Runs one command as typed: its alias expanded, then `let`, or its variables and the command.
    func runTokens(_ tokens: [Token], io: CommandIO, stopOnFailure: Bool) async -> Int32 {
        var worst: Int32 = 0
        let commands = aliases.expand(tokens)
        // An alias whose body starts with no command names the alias, not only the word it ran.
        if let head = tokens.first, !head.quoted, head.parts.isEmpty, let alias = aliases.alias(head.text) {
            for command in commands {
                guard let word = command.first, word.parts.isEmpty, parser.command(named: word.text) == nil else { continue }
                let names = parser.specs.filter { !$0.isHidden }.flatMap { [$0.name] + $0.aliases }
                errors.error(TerminalText.sanitize("\(shownDefinition(alias)): unknown command '\(word.text)'") + Suggestion.hint(word.text, names))
                return ExitStatus.usage
            }
        }
        for command in commands {
            let status = await runExpanded(command, io: io)
            if status != 0 {
                worst = status
                if stopOnFailure || status == ExitStatus.interrupted { return status }
            }
            if exitRequest != nil { break }
        }
        return worst
    }

    private func runExpanded(_ typed: [Token], io: CommandIO) async -> Int32 {
        let tokens: [Token]
        let target: OutputTarget?
        do {
            let split = try OutputTarget.split(try expandingPassedAlias(typed))
            tokens = split.words
            switch split.target {
            case nil: target = nil
            case (.pipe, let command?)?: target = .pipe(command: command.text)
            case (.file(let append), let path?)?: target = .file(path: try expandVariables(path), append: append)
            default: target = nil
            }
        } catch {
            errors.error(error)
            return ExitStatus.usage
        }
        guard let first = tokens.first else {
            if target != nil { errors.error("a command is needed before '|' or '>'") }
            return target != nil ? ExitStatus.usage : 0
        }
        if first.text == "let" && !first.quoted && first.parts.isEmpty {
            if target != nil {
                errors.error("let keeps the data in a variable; its command cannot be piped or redirected")
                return ExitStatus.usage
            }
            return await runLet(tokens, io: io)
        }
        if let target { return await runRedirected(tokens, to: target, io: io) }
        let words: [String]
        do { words = try tokens.map(expandVariables) } catch {
            errors.error(error)
            return ExitStatus.usage
        }
        return await runWords(words, io: io)
    }

    /// The command `watch` or `compare` is given, its alias expanded as if typed alone
    /// (`AliasTable.expandingPassedCommand`); a variable that cannot be expanded yet stays as typed.
    func expandingPassedAlias(_ command: [Token]) throws -> [Token] {
        // Most commands pass none on: their words are expanded once, when they run.
        guard let head = command.first, parser.command(named: (try? expandVariables(head)) ?? head.text)?.passesCommand == true else { return command }
        return try aliases.expandingPassedCommand(command, words: command.map { (try? expandVariables($0)) ?? $0.text }, parser: parser,
                                                  shown: shownDefinition)
    }

    /// Runs one command with its output going to `target` (`| CMD`, `> FILE`, `>> FILE`): what a
    /// pipe or file gets is the output sxk gives when stdout is not a terminal (no colour, no pager,
    /// JSON on one line, tables at full width). The status is the command's when it failed, else
    /// the shell command's.
    private func runRedirected(_ tokens: [Token], to target: OutputTarget, io: CommandIO) async -> Int32 {
        let words: [String]
        do { words = try tokens.map(expandVariables) } catch {
            errors.error(error)
            return ExitStatus.usage
        }
        io.stdout.flush()
        let output: RedirectedOutput
        do { output = try RedirectedOutput.start(target) } catch {
            errors.error(error)
            return ExitStatus.usage
        }
        var plain = io.terminal
        plain.stdoutIsTerminal = false
        plain.colorEnabled = false
        let status = await runWords(words, io: io.redirectingStdout(to: output.sink, terminal: plain))
        let piped = output.finish()
        return status != 0 ? status : piped
    }

    /// The word with each `$name` / `${name}` replaced by the variable's text.
    func expandVariables(_ token: Token) throws -> String {
        guard !token.parts.isEmpty else { return token.text }
        var out = ""
        for part in token.parts {
            switch part {
            case .literal(let text): out += text
            case .variable(let name): out += Variables.text(of: try variableValue(name))
            }
        }
        return out
    }

    /// A variable's value; an unknown name is a usage error with the nearest known name.
    func variableValue(_ name: String) throws -> JSONValue {
        if let value = variables.value(name) { return value }
        if name == Variables.lastData { throw UsageError("$_ is empty: no command has kept data yet") }
        let names = variables.names.filter { $0 != Variables.lastData }
        let hint: String
        if let near = Suggestion.nearest(to: name, in: names) {
            hint = " (did you mean '$\(near)'?)"
        } else if ProcessEnvironment.current()[name] != nil {
            hint = " (environment variables are not expanded; write \\$ for a literal dollar sign)"
        } else if names.isEmpty {
            hint = " (set one with: let \(name) = COMMAND… PATH; write \\$ for a literal dollar sign)"
        } else {
            hint = " (known: " + names.prefix(6).map { "$" + $0 }.joined(separator: ", ") + ")"
        }
        throw UsageError("unknown variable '$\(name)'\(hint)")
    }

    /// Keeps what a command kept as `$_`, with every secret masked.
    func keepLastData(_ value: JSONValue?, source: [String]) {
        guard let value else { return }
        variables.setLast(Variables.sanitize(value, secrets: host.secrets), source: commandText(source))
    }

    /// The command as typed, for `vars` and messages, with what could be a secret as `***`: the
    /// value of a secret-named `k=v` word (`password=…` typed into `post …/login`), secret members
    /// of a JSON word, and any secret the session holds.
    func commandText(_ words: [String]) -> String {
        Redaction.redact(words.map { Tokenizer.quote(Self.maskedWord($0)) }.joined(separator: " "), secrets: host.secrets)
    }

    static func maskedWord(_ word: String) -> String { Redaction.maskWord(word) }

    // MARK: let

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
            if ["exit", "quit"].contains(one[0].text) && !one[0].quoted { throw UsageError("let \(name): '\(one[0].text)' ends the shell and gives no data") }
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

    // MARK: vars, unset

    /// `vars`: the variables as one object (`--json`), one row each in the table and row formats.
    func showVariables(_ command: ParsedCommand, io: CommandIO) async -> Int32 {
        let secrets = host.secrets
        let all = variables.all.map { (name: $0.name, value: Variables.sanitize($0.entry.value, secrets: secrets), source: $0.entry.source) }
        return await render(command, io: io) { format in
            var output = CommandOutput(data: .object(JSONObject(all.map { (key: $0.name, value: $0.value) })))
            let rows: [JSONValue] = all.map { .object(["name": .string($0.name), "value": $0.value, "from": .string($0.source)]) }
            let columns = [
                OutputColumn("name", "NAME", priority: 90, cuttable: false) { "$" + OutputColumn.plain($0.objectValue?["name"]) },
                OutputColumn("value", "VALUE") { Variables.preview($0.objectValue?["value"] ?? .null, width: 60) },
                OutputColumn("from", "FROM"),
            ]
            if all.isEmpty {
                output.rows = OutputTable(columns: columns, rows: [])
                if format.kind == .table && format.jq == nil { output.notes = ["(no variables — let NAME = COMMAND… PATH)"] }
            } else {
                output.table(columns, rows)
            }
            return output
        }
    }

    func unsetVariables(_ command: ParsedCommand) -> Int32 {
        var status = ExitStatus.ok
        for raw in command.positionals {
            let name = raw.hasPrefix("$") ? String(raw.dropFirst()) : raw
            if !variables.remove(name) {
                let near = Suggestion.nearest(to: name, in: variables.names).map { " (did you mean '\($0)'?)" } ?? ""
                errors.error("no variable '\(name)'\(near)")
                status = ExitStatus.usage
            }
        }
        return status
    }

    // MARK: alias, unalias

    /// `alias` lists, `alias NAME` shows one, `alias NAME='WORDS…'` defines (several at once are fine).
    /// Listing and showing print through the renderer (`alias --json`, `alias lo --csv`).
    func runAlias(_ words: [String], io: CommandIO) async -> Int32 {
        if words.count == 1, words[0] == "--help" || words[0] == "-h" { return showHelp(for: "alias", io: io) }
        // `alias so=orders --role storeAdmin`: the value needs quotes; say so before defining anything.
        for (i, word) in words.enumerated() {
            guard let eq = word.firstIndex(of: "="), eq != word.startIndex, i + 1 < words.count,
                  !words[i + 1].contains("="), aliases.alias(words[i + 1]) == nil else { continue }
            let name = String(word[..<eq])
            let tail = words[(i + 1)...].prefix { !$0.contains("=") }
            let whole = ([String(word[word.index(after: eq)...])] + tail).joined(separator: " ")
            errors.error("alias \(name): quote the whole value, e.g. alias \(name)=\(Tokenizer.quote(whole))")
            return ExitStatus.usage
        }
        // Without a definition the words are names and output flags, read as every command's are.
        let isDefinition: (String) -> Bool = { word in
            guard let eq = word.firstIndex(of: "=") else { return false }
            return eq != word.startIndex && !word.hasPrefix("-")
        }
        let defines = words.contains(where: isDefinition)
        let command: ParsedCommand
        do {
            guard case .run(let parsed) = try parser.parse(["alias"] + (defines ? [] : words)) else {
                return showHelp(for: "alias", io: io)
            }
            command = parsed
        } catch {
            errors.error(error)
            return ExitStatus.usage
        }
        var status = ExitStatus.ok
        var shown: [AliasTable.Alias] = []
        if !defines {
            if command.positionals.isEmpty { shown = aliases.all }
            for name in command.positionals { status = lookUpAlias(name, into: &shown) ?? status }
        } else {
            for word in words {
                if let eq = word.firstIndex(of: "="), eq != word.startIndex {
                    let name = String(word[..<eq])
                    let text = String(word[word.index(after: eq)...])
                    do {
                        try aliases.define(name, as: text) { [parser] in parser.command(named: $0) != nil }
                    } catch {
                        errors.error(error)
                        status = ExitStatus.usage
                    }
                } else {
                    status = lookUpAlias(word, into: &shown) ?? status
                }
            }
            if shown.isEmpty { return status }
        }
        // A secret item in a body (`token=…`) is shown masked, as `history` shows it.
        let secrets = host.secrets
        let specs = self.specs
        let listed = shown.map { (name: $0.name, text: Self.shownLine($0.text, secrets: secrets, specs: specs)) }
        let rendered = await render(command, io: io) { _ in
            var output = CommandOutput(data: .object(JSONObject(listed.map { (key: $0.name, value: .string($0.text)) })))
            output.rows = OutputTable(columns: [OutputColumn("name", "NAME"), OutputColumn("words", "WORDS")],
                                      rows: listed.map { .object(["name": .string($0.name), "words": .string($0.text)]) })
            for alias in listed { output.line(AliasTable.definition(name: alias.name, text: alias.text)) }
            return output
        }
        return status != ExitStatus.ok ? status : rendered
    }

    /// `alias NAME='WORDS'` as messages show it: a secret item of the body masked.
    func shownDefinition(_ alias: AliasTable.Alias) -> String {
        AliasTable.definition(name: alias.name, text: Self.shownLine(alias.text, secrets: host.secrets, specs: specs))
    }

    /// Adds the alias `name` to `shown`; a usage status (after its error line) when there is none.
    private func lookUpAlias(_ name: String, into shown: inout [AliasTable.Alias]) -> Int32? {
        if let alias = aliases.alias(name) {
            shown.append(alias)
            return nil
        }
        let near = Suggestion.nearest(to: name, in: aliases.all.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
        errors.error("no alias '\(name)'\(near)")
        return ExitStatus.usage
    }

    func removeAliases(_ command: ParsedCommand) -> Int32 {
        if command.has("all") {
            aliases.removeAll()
            return ExitStatus.ok
        }
        if command.positionals.isEmpty {
            errors.error("unalias needs a NAME (or --all)")
            return ExitStatus.usage
        }
        var status = ExitStatus.ok
        for name in command.positionals where !aliases.remove(name) {
            let near = Suggestion.nearest(to: name, in: aliases.all.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
            errors.error("no alias '\(name)'\(near)")
            status = ExitStatus.usage
        }
        return status
    }

    func showHelp(for name: String, io: CommandIO) -> Int32 {
        guard let spec = specs.first(where: { $0.matches(name) }) else { return ExitStatus.usage }
        writeHelp(io) { $0.page(for: [spec]) }
        return ExitStatus.ok
    }
}
