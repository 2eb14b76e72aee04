import SXKCore

extension Builtins {
    /// `set [--save] [NAME VALUE]`: the display settings (expanded, format, pager), as psql's `\pset`.
    enum Set: ParsedBuiltin {
        static let spec = CommandSpec("set", summary: "Show or change the display settings (expanded, format, pager), as psql's \\pset",
            discussion: "set alone lists them. set expanded auto|on|off: rows as records never (tables are fitted), always, or when a table cannot fit the terminal (auto); views meant to be read whole print as records wherever a table would cut them (explain rules; context diff when it would cut a difference), whatever the setting (--wide keeps the table). set format table|json|ndjson|csv|tsv: the format of commands given none that take it (a command without that flag, or without rows, prints its table view; --json, --csv… on a command win). set pager on|off: long output through the pager (pager on|off is the same). --save also keeps the current settings for this user in $XDG_CONFIG_HOME/sxk/display, read when sxk starts.",
            arguments: [ArgumentSpec("NAME", kind: .choice(DisplaySettings.names), optional: true, summary: "The setting"),
                        ArgumentSpec("VALUE", kind: .provider(DisplaySettings.valueProvider), optional: true,
                                     summary: "Its new value: expanded auto|on|off, format table|json|ndjson|csv|tsv, pager on|off")],
            flags: [FlagSpec("save", summary: "Also keep the settings for this user (the config folder)")]
                + objectOutput(json: "Print the settings as one JSON object"),
            examples: ["set", "set expanded auto", "set --save format json"])

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            await shell.runSet(command, io: io)
        }
    }
}

extension Shell {
    /// `set [--save] [NAME VALUE]`: lists the display settings, or changes one; `--save` keeps them.
    /// The listing is data (stdout); a change is confirmed on stderr.
    func runSet(_ command: ParsedCommand, io: CommandIO) async -> Int32 {
        let words = command.positionals
        if words.count == 1 {
            errors.error("set \(words[0]) needs a value (now: \(display.value(words[0])))")
            return ExitStatus.usage
        }
        if words.count == 2 {
            do { try display.set(words[0], words[1]) } catch {
                errors.error(error)
                return ExitStatus.usage
            }
        }
        if command.has("save") {
            do { try display.save() } catch {
                errors.error(error)
                return ExitStatus.failure
            }
        }
        if words.isEmpty {
            // The listing is data: `name value` lines, or one JSON object with the global --json.
            let display = self.display
            let status = await render(command, io: io) { _ in
                var output = CommandOutput(data: .object(JSONObject(DisplaySettings.names.map { (key: $0, value: .string(display.value($0))) })))
                for line in display.lines { output.line(line) }
                return output
            }
            if status != 0 { return status }
        } else {
            io.errors.note("\(words[0]) \(display.value(words[0]))" + (command.has("save") ? " (saved)" : ""))
        }
        if command.has("save") && words.isEmpty, let path = display.path { io.errors.note("saved to \(path)") }
        return 0
    }
}
