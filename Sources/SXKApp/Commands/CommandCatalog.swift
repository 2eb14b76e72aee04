import SXKShell

/// Every app command's spec, from `CommandRegistry`. Parsing, help, completion (REPL and the
/// scripts in `completions/`) and the manual page all come from these values.
enum CommandCatalog {
    static let jq = FlagSpec("jq", value: .string, valueName: "EXPR", summary: "filter the data with a jq expression (strings print raw)")

    static let noPager = FlagSpec("no-pager", summary: "print directly, not through the pager (as sxk --no-pager)")

    /// Every command, with `--jq` and `--no-pager` beside each `--json`: whatever prints data can
    /// filter it and print it unpaged.
    static let all: [CommandSpec] = CommandRegistry.all.map { $0.spec }

    static func withJQ(_ spec: CommandSpec) -> CommandSpec {
        var spec = spec
        if spec.flags.contains(where: { $0.name == "json" }) && !spec.flags.contains(where: { $0.name == "jq" }) {
            spec.flags.append(jq)
        }
        if spec.flags.contains(where: { $0.name == "json" }) && !spec.flags.contains(where: { $0.name == "no-pager" }) {
            spec.flags.append(noPager)
        }
        spec.subcommands = spec.subcommands.map(withJQ)
        return spec
    }
}
