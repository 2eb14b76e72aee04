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
}
