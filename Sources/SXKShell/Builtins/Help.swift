extension Builtins {
    /// `help [COMMAND…]`: the overview, or one command's (or subcommand's) page.
    enum Help: ParsedBuiltin {
        static let spec = CommandSpec(
            "help", summary: "Show the commands, or the help page of one command",
            arguments: [ArgumentSpec("COMMAND", kind: .provider("command"), optional: true, variadic: true, summary: "Command (and subcommand) to explain")],
            examples: ["help", "help orders", "orders --help"])

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            let words = command.positionals
            if words.isEmpty {
                shell.writeHelp(io) { $0.overview() }
                return ExitStatus.ok
            }
            guard let chain = resolve(words, in: shell.specs) else {
                let specs = shell.specs
                // `help login PASSWORD`: the words after a command that reads a password are not echoed.
                if let top = specs.first(where: { $0.name == words[0] || $0.aliases.contains(words[0]) }), top.neverInHistory {
                    shell.errors.error("no help for those words after '\(top.name)' (not shown, as they may be a password): `help \(top.name)`")
                    return ExitStatus.usage
                }
                let names = specs.filter { !$0.isHidden }.map(\.name)
                shell.errors.error("no help for '\(words.joined(separator: " "))'\(Suggestion.hint(words[0], names))")
                return ExitStatus.usage
            }
            shell.writeHelp(io) { $0.page(for: chain) }
            return ExitStatus.ok
        }

        /// `help stats daily` → the spec chain.
        static func resolve(_ words: [String], in specs: [CommandSpec]) -> [CommandSpec]? {
            guard let top = specs.first(where: { $0.matches(words[0]) }) else { return nil }
            var chain = [top]
            for word in words.dropFirst() {
                guard let sub = chain.last!.subcommand(word) else { return nil }
                chain.append(sub)
            }
            return chain
        }
    }
}

extension Shell {
    /// The help page of the command `name` (`let --help`, `alias -h`: builtins read before the parser).
    func showHelp(for name: String, io: CommandIO) -> Int32 {
        guard let spec = specs.first(where: { $0.matches(name) }) else { return ExitStatus.usage }
        writeHelp(io) { $0.page(for: [spec]) }
        return ExitStatus.ok
    }
}
