import Foundation
import SXKCore

/// The text `--trace` prints (to stderr): curl-like `>` lines for a request, `<` lines for its answer.
/// Everything in it was already redacted by the client; every part the server or the URL controls is
/// passed through `TerminalText.sanitize`, since the trace goes to a terminal.
extension TraceRequest: CustomStringConvertible {
    public var description: String {
        let safe = TerminalText.sanitize
        var lines = ["> \(safe(method)) \(safe(url))"]
        lines += headers.fields.map { "> \(safe($0.name)): \(safe($0.value))" }
        if !bodyExcerpt.isEmpty { lines.append("> \(safe(bodyExcerpt))") }
        return lines.joined(separator: "\n")
    }
}

extension TraceResponse: CustomStringConvertible {
    public var description: String {
        let ms = String(format: "%.1f ms", elapsedMs)
        let safe = TerminalText.sanitize
        guard let status else { return "< \(safe(method)) \(safe(path)) failed after \(ms): \(safe(failure ?? "no response"))" }
        var lines = ["< \(status) \(safe(method)) \(safe(path)) \(ms)"]
        lines += headers.fields.map { "< \(safe($0.name)): \(safe($0.value))" }
        if !bodyExcerpt.isEmpty { lines.append("< \(safe(bodyExcerpt))") }
        return lines.joined(separator: "\n")
    }
}
