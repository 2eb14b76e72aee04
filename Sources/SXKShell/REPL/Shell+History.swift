import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `history [N] [--here] [--json]`: lines with where each ran.
extension Shell {
    /// Where a line typed now runs, stamped with the time; nil when the host keeps no context.
    func currentContext() -> HistoryContext? {
        guard var context = host.historyContext() else { return nil }
        context.time = Int(Date().timeIntervalSince1970)
        return context
    }

    /// A recalled line as `history` lists it: each word that carries a secret by the history filter's
    /// rule (`SecretWord`: `password=…`, `X-Api-Key:…`, a secret JSON member) or holds a live token,
    /// however it was quoted, shown masked in place; the rest as typed.
    static func shownLine(_ line: String, secrets: [String], specs: [CommandSpec] = []) -> String {
        guard let commands = try? Tokenizer.tokenize(line, lenient: true) else { return Redaction.scrubText(line) }
        var bytes = Array(line.utf8)
        let unplaced = Set(commands.flatMap { unplacedWords($0, specs: specs) })
        for token in commands.flatMap({ $0 }).reversed() where token.output == nil && token.end <= bytes.count {
            // A word a password-reading command takes no place for (`login PHONE PASSWORD`): masked whole.
            let masked = unplaced.contains(token.start) ? "***" : Redaction.redact(Redaction.maskWord(token.text), secrets: secrets)
            guard masked != token.text else { continue }
            bytes.replaceSubrange(token.start..<token.end, with: Array(Tokenizer.quote(masked).utf8))
        }
        return Redaction.scrubText(String(decoding: bytes, as: UTF8.self))
    }

    /// Where the words start that a command reading a password (`neverInHistory`: login, switch-account)
    /// has no place for: its positionals past its arguments, and a word that cannot be the argument it
    /// stands for (`ArgumentSpec.typedInPlace`), which its errors do not echo either.
    static func unplacedWords(_ command: [Token], specs: [CommandSpec]) -> [Int] {
        guard let head = command.first, !head.quoted,
              let spec = specs.first(where: { $0.name == head.text || $0.aliases.contains(head.text) }), spec.neverInHistory,
              !spec.arguments.contains(where: \.isVariadic) else { return [] }
        var out: [Int] = []
        var positional = 0, afterDashes = false, skipValue = false
        for token in command.dropFirst() where token.output == nil {
            if skipValue { skipValue = false; continue }
            if !afterDashes, token.text == "--" { afterDashes = true; continue }
            if !afterDashes, token.text.hasPrefix("-"), token.text.count > 1 {
                // A flag that takes a value takes the next word (`--account 2`), unless given `--name=value`.
                let name = token.text.hasPrefix("--") ? String(token.text.dropFirst(2)) : ""
                if !name.contains("="), let flag = spec.flags.first(where: { $0.name == name }), !flag.isSwitch { skipValue = true }
                continue
            }
            // A word that is one variable reference (`$a`, `${a}`) is not a password typed in place; one
            // that only holds a `$` (`Pa$$w0rd`) may be.
            let reference: Bool
            if token.parts.count == 1, case .variable = token.parts[0] { reference = true } else { reference = false }
            if positional >= spec.arguments.count || (!reference && spec.arguments[positional].typedInPlace?.mayShow(token.text) == false) {
                out.append(token.start)
            }
            positional += 1
        }
        return out
    }

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
