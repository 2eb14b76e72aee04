/// The commands the shell itself implements; the app adds its own beside them.
public enum Builtins {
    public static let group = "Shell"

    public static let specs: [CommandSpec] = {
        var specs = [
            CommandSpec("help", summary: "Show the commands, or the help page of one command",
                        arguments: [ArgumentSpec("COMMAND", kind: .provider("command"), optional: true, variadic: true, summary: "Command (and subcommand) to explain")],
                        examples: ["help", "help orders", "orders --help"]),
            CommandSpec("version", summary: "Print the sxk version"),
            CommandSpec("exit", aliases: ["quit"], summary: "Leave the shell",
                        arguments: [ArgumentSpec("CODE", kind: .int, optional: true, summary: "Exit status (default 0)")]),
            CommandSpec("history", summary: "Show the command history",
                        arguments: [ArgumentSpec("N", kind: .int, optional: true, summary: "Show only the last N lines")]),
            CommandSpec("completion", summary: "Print a shell completion script",
                        arguments: [ArgumentSpec("SHELL", kind: .choice(["bash", "zsh", "fish"]), summary: "Target shell")],
                        examples: ["completion bash > /etc/bash_completion.d/sxk", "completion zsh > ~/.zfunc/_sxk", "completion fish > ~/.config/fish/completions/sxk.fish"]),
            CommandSpec("__complete", summary: "Print completions for the words given (used by the completion scripts)",
                        arguments: [ArgumentSpec("WORDS", optional: true, variadic: true, summary: "Words typed so far; the last is completed")]),
        ]
        for i in specs.indices {
            specs[i].group = group
            if specs[i].name == "__complete" { specs[i].isHidden = true }
        }
        return specs
    }()

    public static let names: Set<String> = Set(specs.flatMap { [$0.name] + $0.aliases })

    /// The app's specs followed by the builtins it does not redefine.
    public static func merged(with appSpecs: [CommandSpec]) -> [CommandSpec] {
        let taken = Set(appSpecs.flatMap { [$0.name] + $0.aliases })
        return appSpecs + specs.filter { !taken.contains($0.name) }
    }
}
