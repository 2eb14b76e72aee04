extension Builtins {
    /// `unalias NAME…` / `unalias --all`.
    enum Unalias: ParsedBuiltin {
        static let spec = CommandSpec("unalias", summary: "Remove aliases",
            arguments: [ArgumentSpec("NAME", kind: .provider("alias"), optional: true, variadic: true, summary: "Alias names")],
            flags: [FlagSpec("all", short: "a", summary: "Remove every alias")])

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            shell.removeAliases(command)
        }
    }
}

extension Shell {
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
}
