import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Builtins {
    /// `history [N] [--here]`: the lines typed, each with the profile, role, scenic area and store it ran in.
    enum History: ParsedBuiltin {
        static let spec = CommandSpec("history", summary: "Show the command history with where each line ran",
            discussion: "Each line remembers the profile, role, scenic area and store it ran in (shown as in the prompt). Saved after each command; never saved: lines starting with a space, login and switch-account lines (both may ask for a password), lines with a secret-named item or the live token, and usage errors.",
            arguments: [ArgumentSpec("N", kind: .int, optional: true, summary: "Show only the last N lines")],
            flags: [FlagSpec("here", summary: "Only lines run in this profile, role, scenic area and store")]
                + output(json: "Print the lines and their context as JSON"),
            examples: ["history 20", "history --here", "history --csv"])

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            if let text = command.positionals.first, let n = Int(text), n < 1 {
                shell.errors.error("history N shows the last N lines: N is 1 or more (got \(n))")
                return ExitStatus.usage
            }
            // Without libedit the file cannot be read: said, not listed as an empty history.
            if let path = shell.historyPath, access(path, F_OK) == 0, let why = Libedit.loadError {
                shell.errors.warning("the history file is not read: \(why)")
            }
            let records = shell.lineReader?.historyRecords ?? shell.history?.records ?? HistoryStore.readEntries(path: shell.historyPath ?? "")
            return await shell.showHistory(records, command, io: io)
        }
    }
}

extension Shell {
    /// A stored id as a number when it is one; as stored otherwise.
    static func idValue(_ text: String) -> JSONValue { Int(text).map { .int($0) } ?? .string(text) }

    /// The columns of `history --csv`/`--tsv`: the members of `history --json`.
    static let historyColumns = ["n", "line", "profile", "env", "role", "scenicId", "scenicName", "storeId", "at"].map { OutputColumn($0) }

    func showHistory(_ records: [HistoryEntry], _ command: ParsedCommand, io: CommandIO) async -> Int32 {
        var shown = records.enumerated().map { (number: $0.offset + 1, entry: $0.element) }
        if command.has("here") {
            guard let here = host.historyContext() else {
                errors.error("history --here: this shell has no profile or scope to compare with")
                return ExitStatus.usage
            }
            shown = shown.filter { $0.entry.context?.sameScope(as: here) ?? false }
        }
        if let n = command.positionals.first.flatMap({ Int($0) }) { shown = Array(shown.suffix(max(0, n))) }
        let secrets = host.secrets
        return await render(command, io: io) { _ in
            // A line may hold a secret word (it stays out of the file, not out of recall).
            let lines = shown.map { Self.shownLine($0.entry.line, secrets: secrets, specs: specs) }
            let rows: [JSONValue] = zip(shown, lines).map { item, line in
                var o: JSONObject = ["n": .int(item.number), "line": .string(line)]
                if let c = item.entry.context {
                    o["profile"] = .string(c.profile)
                    o["env"] = c.environment.map { .string($0) } ?? .null
                    o["role"] = c.role.map { .string($0) } ?? .null
                    // Ids as every other command gives them: numbers (kept as text in the file).
                    o["scenicId"] = c.scenicId.map(Self.idValue) ?? .null
                    o["scenicName"] = c.scenicName.map { .string($0) } ?? .null
                    o["storeId"] = c.storeId.map(Self.idValue) ?? .null
                    o["at"] = c.time.map { .string(LocalTime.iso(Date(timeIntervalSince1970: TimeInterval($0)))) } ?? .null
                }
                return .object(o)
            }
            var output = CommandOutput(data: .array(rows))
            output.rows = OutputTable(columns: Self.historyColumns, rows: rows)
            // The numbered lines are the view. A stored context holds server text (scenic and store
            // names): the label is made inert before it is measured, so the padding fits what is shown.
            let width = String(records.count).count  // numbers align over the whole history
            let labels = shown.map { $0.entry.context.map { Renderer.cell(Redaction.redact($0.label, secrets: secrets)) } }
            // The scope column appears once any shown line has a context (old files have none).
            let scopeWidth = labels.contains { $0 != nil } ? labels.map { TextWidth.width($0 ?? "-") }.max() ?? 1 : 0
            for ((item, line), label) in zip(zip(shown, lines), labels) {
                var text = TextWidth.pad(String(item.number), to: width, alignRight: true) + "  "
                if scopeWidth > 0 { text += TextWidth.pad(label ?? "-", to: scopeWidth) + "  " }
                output.line(text + line)
            }
            return output
        }
    }
}
