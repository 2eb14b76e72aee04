/// One command the shell itself implements, declared in one file named after it
/// (`Builtins/<Name>.swift`): its spec, which parsing, help, completion and the manual page read as
/// they read the app's, and its run, which works on the shell's own state (variables, aliases,
/// history, display settings) and prints through the shell's one renderer. No builtin calls the server.
protocol BuiltinCommand: Sendable {
    static var spec: CommandSpec { get }
}

/// A builtin run from its parsed command line.
protocol ParsedBuiltin: BuiltinCommand {
    static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32
}

/// A builtin that reads the words after its name as typed, before the parser: `let x = orders
/// --limit 1 …` and `alias so='orders …'` hold another command's words, `__complete` a partial line.
protocol TypedWordsBuiltin: BuiltinCommand {
    static func run(typed words: [String], in shell: Shell, io: CommandIO) async -> Int32
}

/// The commands the shell itself implements; the app adds its own beside them.
public enum Builtins {
    public static let group = "Shell"

    /// In the order help lists them.
    static let commands: [any BuiltinCommand.Type] = [
        Help.self, Version.self, Exit.self, History.self, Completion.self,
        Let.self, Vars.self, Unset.self, Alias.self, Unalias.self, Set.self, Complete.self,
    ]

    public static let specs: [CommandSpec] = commands.map {
        var spec = $0.spec
        spec.group = group
        return spec
    }

    public static let names: Swift.Set<String> = Swift.Set(specs.flatMap { [$0.name] + $0.aliases })

    /// The app's specs followed by the builtins it does not redefine.
    public static func merged(with appSpecs: [CommandSpec]) -> [CommandSpec] {
        let taken = Swift.Set(appSpecs.flatMap { [$0.name] + $0.aliases })
        return appSpecs + specs.filter { !taken.contains($0.name) }
    }

    /// The builtin a parsed line runs: none when the app redefined its name (the spec is then the app's).
    static func parsed(_ spec: CommandSpec) -> (any ParsedBuiltin.Type)? {
        specs.firstIndex(of: spec).flatMap { commands[$0] as? any ParsedBuiltin.Type }
    }

    /// The builtin that takes the words after `name` as typed.
    static func typedWords(_ name: String) -> (any TypedWordsBuiltin.Type)? {
        commands.lazy.compactMap { $0 as? any TypedWordsBuiltin.Type }.first { $0.spec.name == name }
    }

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
}
