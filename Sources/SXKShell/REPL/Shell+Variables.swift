import FoundationEssentials
import SXKCore

/// A typed line's way to its command: aliases expanded, `$name` expanded, `| CMD` and `> FILE`.
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
            // `> ~/out.json`: a leading `~` is the home folder, as in a path argument (`har save ~/x.har`).
            case (.file(let append), let path?)?: target = .file(path: ValueCheck.expanded(try expandVariables(path), kind: .path), append: append)
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
        // A command refused for its words runs nowhere: said as without the redirect, before the file
        // is opened (an existing one is not emptied) or the shell command started.
        if let first = words.first, Builtins.typedWords(first) == nil, (try? parser.parse(words)) == nil {
            return await runWords(words, io: io)
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
        // `| head -c 5` on the terminal may end its output mid-line: the next prompt, on stderr, is put on
        // a line of its own. A Ctrl-C that stopped only the shell command leaves the cursor past the `^C`
        // the terminal echoed: a new line is enough (one that stopped sxk's command ended its line already).
        if case .pipe = target, mode == .repl, io.terminal.stdoutIsTerminal, io.terminal.stderrIsTerminal, io.terminal.cursorControl {
            if status != ExitStatus.interrupted && piped == ExitStatus.interrupted {
                io.errors.endInterruptedLine()
            } else if status != ExitStatus.interrupted {
                pipeMayEndMidLine = true
            }
        }
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
}
