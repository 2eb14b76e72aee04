import SXKCore

extension Builtins {
    /// `exit [CODE]` (`quit`): ends the REPL or the script's run after this command.
    enum Exit: ParsedBuiltin {
        static let spec = CommandSpec(
            "exit", aliases: ["quit"], summary: "Leave the shell",
            arguments: [ArgumentSpec("CODE", kind: .int, optional: true, summary: "Exit status, 0 to 255 (default 0; in a --keep-going run, its last failure's)")])

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            // An exit status is a byte: 256 would be read as 0 (success) by whoever waits for it.
            if let text = command.positionals.first {
                guard let code = Int32(text), (0...255).contains(code) else {
                    shell.errors.error("exit takes a status from 0 to 255, got '\(TerminalText.sanitize(String(text.prefix(40))))'")
                    return ExitStatus.usage
                }
                shell.exitRequest = code
            } else {
                // With --keep-going a script's run ends with its last failing command's status; a bare
                // `exit` ends the run early and keeps that status (as sh's `exit` keeps the last one).
                shell.exitRequest = shell.mode != .repl && shell.options.keepGoing ? shell.lastFailure ?? 0 : 0
            }
            return ExitStatus.ok
        }
    }
}
