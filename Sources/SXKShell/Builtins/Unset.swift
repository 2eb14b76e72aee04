extension Builtins {
    /// `unset NAME…`: forgets variables (`_` the last command's data).
    enum Unset: ParsedBuiltin {
        static let spec = CommandSpec("unset", summary: "Forget variables ('_' forgets the last command's data)",
            arguments: [ArgumentSpec("NAME", kind: .provider("variable"), variadic: true, summary: "Variable names")])

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            shell.unsetVariables(command)
        }
    }
}

extension Shell {
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
}
