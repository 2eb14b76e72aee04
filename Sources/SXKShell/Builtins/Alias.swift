import SXKCore

extension Builtins {
    /// `alias [NAME[=WORDS]…]`: lists, shows or defines aliases. A definition's value is another
    /// command's words, so they are read as typed.
    enum Alias: TypedWordsBuiltin {
        static let spec = CommandSpec("alias", summary: "List aliases, or define one: alias NAME='WORDS…'",
            discussion: "An alias replaces the first word of a command: alias so='orders --role storeAdmin' makes 'so --json' run 'orders --role storeAdmin --json'. The command that watch and compare run is expanded the same way (watch -n 5 so). Aliases last for the session; put them in $XDG_CONFIG_HOME/sxk/sxkrc to have them in every REPL. Shell commands (help, exit, history, let…) cannot be aliased; a quoted or escaped first word (\\orders) is never an alias; a loop is refused.",
            arguments: [ArgumentSpec("NAME[=WORDS]", kind: .provider("alias"), optional: true, variadic: true, summary: "Show this alias, or define it")],
            flags: output(json: "Print the aliases as one JSON object (name: words)"),
            examples: ["alias so='orders --role storeAdmin'", "alias", "alias --json"])

        static func run(typed words: [String], in shell: Shell, io: CommandIO) async -> Int32 {
            await shell.runAlias(words, io: io)
        }
    }
}

extension Shell {
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
}
