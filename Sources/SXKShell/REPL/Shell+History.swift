import Foundation
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

    func showHistory(_ records: [HistoryEntry], _ command: ParsedCommand, io: CommandIO) -> Int32 {
        var shown = records.enumerated().map { (number: $0.offset + 1, entry: $0.element) }
        if command.has("here") {
            guard let here = host.historyContext() else {
                errors.error("history --here: this shell has no profile or scope to compare with")
                return ExitStatus.usage
            }
            shown = shown.filter { $0.entry.context?.sameScope(as: here) ?? false }
        }
        if let n = command.positionals.first.flatMap({ Int($0) }) { shown = Array(shown.suffix(max(0, n))) }
        // A stored context holds server text (scenic and store names): masked and escaped like any.
        let renderer = Renderer(io: io, format: OutputFormat(), secrets: host.secrets)
        if command.has("json") || io.options.json {
            io.json.print(renderer.shape(.array(shown.map { item in
                // A line of this session may hold a secret word (it stays out of the file, not out of recall).
                var o: JSONObject = ["n": .int(item.number), "line": .string(Redaction.scrubText(item.entry.line))]
                if let c = item.entry.context {
                    o["profile"] = .string(c.profile)
                    o["env"] = c.environment.map { .string($0) } ?? .null
                    o["role"] = c.role.map { .string($0) } ?? .null
                    o["scenicId"] = c.scenicId.map { .string($0) } ?? .null
                    o["scenicName"] = c.scenicName.map { .string($0) } ?? .null
                    o["storeId"] = c.storeId.map { .string($0) } ?? .null
                    o["at"] = c.time.map { .string(LocalTime.iso(Date(timeIntervalSince1970: TimeInterval($0)))) } ?? .null
                }
                return .object(o)
            })))
            return ExitStatus.ok
        }
        let width = String(records.count).count
        // The scope column appears once any shown line has a context (old files have none).
        let labels = shown.map { $0.entry.context.map { renderer.text($0.label) } }
        let scopeWidth = labels.contains { $0 != nil } ? labels.map { TextWidth.width($0 ?? "-") }.max() ?? 1 : 0
        for (item, label) in zip(shown, labels) {
            var line = TextWidth.pad(String(item.number), to: width, alignRight: true) + "  "
            if scopeWidth > 0 { line += TextWidth.pad(label ?? "-", to: scopeWidth) + "  " }
            io.stdout.line(line + renderer.text(Redaction.scrubText(item.entry.line)))
        }
        return ExitStatus.ok
    }
}
