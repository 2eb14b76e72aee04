/// The commands the shell itself implements; the app adds its own beside them.
public enum Builtins {
    public static let group = "Shell"

    /// The renderer's formats for the builtins that list data (`history`, `vars`, `alias`), after
    /// each one's `--json`: they print through the same renderer as every command.
    static func output(json: String) -> [FlagSpec] {
        [FlagSpec("json", summary: json),
         FlagSpec("ndjson", summary: "print one JSON object per line"),
         FlagSpec("csv", summary: "print the rows as CSV (header of data keys)"),
         FlagSpec("tsv", summary: "print the rows as tab-separated values"),
         FlagSpec("jq", value: .string, valueName: "EXPR", summary: "filter the data with a jq expression (strings print raw)"),
         FlagSpec("no-pager", summary: "print directly, not through the pager (as sxk --no-pager)")]
    }

    /// The formats of a builtin whose data is one object (`version`, `set`): no rows for CSV.
    static func objectOutput(json: String) -> [FlagSpec] {
        output(json: json).filter { $0.name != "csv" && $0.name != "tsv" }
    }

    public static let specs: [CommandSpec] = {
        var specs = [
            CommandSpec("help", summary: "Show the commands, or the help page of one command",
                        arguments: [ArgumentSpec("COMMAND", kind: .provider("command"), optional: true, variadic: true, summary: "Command (and subcommand) to explain")],
                        examples: ["help", "help orders", "orders --help"]),
            CommandSpec("version", summary: "Print the sxk version", flags: objectOutput(json: "Print the name and version as JSON")),
            CommandSpec("exit", aliases: ["quit"], summary: "Leave the shell",
                        arguments: [ArgumentSpec("CODE", kind: .int, optional: true, summary: "Exit status, 0 to 255 (default 0; in a --keep-going run, its last failure's)")]),
            CommandSpec("history", summary: "Show the command history with where each line ran",
                        discussion: "Each line remembers the profile, role, scenic area and store it ran in (shown as in the prompt). Saved after each command; never saved: lines starting with a space, login and switch-account lines (both may ask for a password), lines with a secret-named item or the live token, and usage errors.",
                        arguments: [ArgumentSpec("N", kind: .int, optional: true, summary: "Show only the last N lines")],
                        flags: [FlagSpec("here", summary: "Only lines run in this profile, role, scenic area and store")]
                            + output(json: "Print the lines and their context as JSON"),
                        examples: ["history 20", "history --here", "history --csv"]),
            CommandSpec("completion", summary: "Print a shell completion script",
                        arguments: [ArgumentSpec("SHELL", kind: .choice(["bash", "zsh", "fish"]), summary: "Target shell")],
                        examples: ["completion bash > /etc/bash_completion.d/sxk", "completion zsh > ~/.zfunc/_sxk", "completion fish > ~/.config/fish/completions/sxk.fish"]),
            // Variables and aliases
            CommandSpec("let", summary: "Keep a value from a command's data in a variable",
                        discussion: "let NAME = COMMAND… [PATH] runs the command without printing and keeps the value at PATH of its data (what the command prints with --json). let NAME = $VAR [PATH] and let NAME = PATH (over $_, the last command's data) read data already kept. Paths: .list[0].orderId, .a.b, [2], [-1] (from the end), .list[].orderId (every element), [\"odd key\"], or . for everything. Use $NAME or ${NAME} in later commands; write \\$ or single quotes for a literal dollar sign.",
                        arguments: [ArgumentSpec("NAME", summary: "Letters, digits and _"),
                                    ArgumentSpec("=", kind: .choice(["="]), summary: "An equals sign"),
                                    ArgumentSpec("COMMAND", kind: .provider("command"), variadic: true, summary: "The command, then an optional PATH")],
                        examples: ["let id = orders --limit 1 .list[0].orderId", "let no = $_ .list[0].orderNo", "let total = .total"]),
            CommandSpec("vars", summary: "List the variables and $_ with their values",
                        flags: output(json: "Print the variables as one JSON object")),
            CommandSpec("unset", summary: "Forget variables ('_' forgets the last command's data)",
                        arguments: [ArgumentSpec("NAME", kind: .provider("variable"), variadic: true, summary: "Variable names")]),
            CommandSpec("alias", summary: "List aliases, or define one: alias NAME='WORDS…'",
                        discussion: "An alias replaces the first word of a command: alias so='orders --role storeAdmin' makes 'so --json' run 'orders --role storeAdmin --json'. The command that watch and compare run is expanded the same way (watch -n 5 so). Aliases last for the session; put them in $XDG_CONFIG_HOME/sxk/sxkrc to have them in every REPL. Shell commands (help, exit, history, let…) cannot be aliased; a quoted or escaped first word (\\orders) is never an alias; a loop is refused.",
                        arguments: [ArgumentSpec("NAME[=WORDS]", kind: .provider("alias"), optional: true, variadic: true, summary: "Show this alias, or define it")],
                        flags: output(json: "Print the aliases as one JSON object (name: words)"),
                        examples: ["alias so='orders --role storeAdmin'", "alias", "alias --json"]),
            CommandSpec("unalias", summary: "Remove aliases",
                        arguments: [ArgumentSpec("NAME", kind: .provider("alias"), optional: true, variadic: true, summary: "Alias names")],
                        flags: [FlagSpec("all", short: "a", summary: "Remove every alias")]),
            CommandSpec("set", summary: "Show or change the display settings (expanded, format, pager), as psql's \\pset",
                        discussion: "set alone lists them. set expanded auto|on|off: rows as records never (tables are fitted), always, or when a table cannot fit the terminal (auto); views meant to be read whole print as records wherever a table would cut them (explain rules; context diff when it would cut a difference), whatever the setting (--wide keeps the table). set format table|json|ndjson|csv|tsv: the format of commands given none that take it (a command without that flag, or without rows, prints its table view; --json, --csv… on a command win). set pager on|off: long output through the pager (pager on|off is the same). --save also keeps the current settings for this user in $XDG_CONFIG_HOME/sxk/display, read when sxk starts.",
                        arguments: [ArgumentSpec("NAME", kind: .choice(DisplaySettings.names), optional: true, summary: "The setting"),
                                    ArgumentSpec("VALUE", kind: .provider(DisplaySettings.valueProvider), optional: true,
                                                 summary: "Its new value: expanded auto|on|off, format table|json|ndjson|csv|tsv, pager on|off")],
                        flags: [FlagSpec("save", summary: "Also keep the settings for this user (the config folder)")]
                            + objectOutput(json: "Print the settings as one JSON object"),
                        examples: ["set", "set expanded auto", "set --save format json"]),
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
