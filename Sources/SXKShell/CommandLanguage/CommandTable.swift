import SXKCore

/// The README's command table (Markdown), generated from the specs as help and the manual page are:
/// each visible command's usage and its summary, then its discussion.
public enum CommandTable {
    /// Where the table stands in README.md; `make completions` writes what is between the two lines.
    public static let begin = "<!-- commands: generated from the command specs by `make completions` -->"
    public static let end = "<!-- end of commands -->"

    /// One row per visible command, in the specs' order. `omitting` names flags left out of the usage
    /// (the output flags many commands share, listed once under the table).
    public static func markdown(specs: [CommandSpec], omitting: Set<String> = []) -> String {
        let help = HelpRenderer(specs: specs)
        var out = "| command | does |\n| --- | --- |\n"
        for spec in specs where !spec.isHidden {
            var usage = [([spec.name] + spec.aliases).joined(separator: " / ")]
            if let subs = subcommands(spec, help) { usage.append(subs) }
            for f in spec.flags where !omitting.contains(f.name) {
                let text = f.isSwitch ? "--\(f.name)" : "--\(f.name) \(f.valueName)"
                usage.append(f.isRequired ? text : "[" + text + "]")
            }
            usage += spec.arguments.map(HelpRenderer.argName)
            var does = spec.summary
            if let discussion = spec.discussion { does += " — " + discussion }
            out += "| `" + cell(usage.joined(separator: " ")) + "` | " + cell(does) + " |\n"
        }
        return out
    }

    /// `[a|b ARG|c [d|e]]`: each visible subcommand with its own arguments and subcommands.
    static func subcommands(_ spec: CommandSpec, _ help: HelpRenderer) -> String? {
        let subs = spec.subcommands.filter { !$0.isHidden }
        guard !subs.isEmpty else { return nil }
        return spec.subcommandChoice(subs.map { sub in
            ([sub.name] + [subcommands(sub, help)].compactMap { $0 } + sub.arguments.map(HelpRenderer.argName)).joined(separator: " ")
        })
    }

    /// The table between the markers, or nil.
    public static func current(in text: String) -> String? {
        guard let open = text.firstRange(of: begin + "\n"),
              let close = text[open.upperBound...].firstRange(of: end) else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
    }

    /// One line, with `|` escaped (GitHub tables read `\|` as the character, in code spans too).
    static func cell(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ").replacingAll("|", with: "\\|")
    }
}
