extension Builtins {
    /// `version`: the name and version, through the renderer so the global `--json` (and `--jq`)
    /// apply as to every command.
    enum Version: ParsedBuiltin {
        static let spec = CommandSpec("version", summary: "Print the sxk version", flags: objectOutput(json: "Print the name and version as JSON"))

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            let (name, number) = (shell.programName, shell.version)
            return await shell.render(command, io: io) { _ in
                var output = CommandOutput(data: ["name": .string(name), "version": .string(number)])
                output.line("\(name) \(number)")
                return output
            }
        }
    }
}
