extension Builtins {
    /// `completion SHELL`: the completion script for bash, zsh or fish, made from the same specs as
    /// the parser's (the scripts in `completions/` are its output).
    enum Completion: ParsedBuiltin {
        static let spec = CommandSpec(
            "completion", summary: "Print a shell completion script",
            arguments: [ArgumentSpec("SHELL", kind: .choice(["bash", "zsh", "fish"]), summary: "Target shell")],
            examples: ["completion bash > /etc/bash_completion.d/sxk", "completion zsh > ~/.zfunc/_sxk", "completion fish > ~/.config/fish/completions/sxk.fish"])

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            let name = command.positionals.first ?? ""
            guard let kind = CompletionScript.Shell(rawValue: name) else {
                shell.errors.error("unknown shell '\(name)' (bash, zsh or fish)")
                return ExitStatus.usage
            }
            // A program's text, not data: written as generated (its words are the specs', never server text).
            io.stdout.write(CompletionScript.generate(for: kind, specs: shell.specs, programName: shell.programName))
            return ExitStatus.ok
        }
    }
}
