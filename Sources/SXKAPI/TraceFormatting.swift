import Foundation

/// The text `--trace` prints (to stderr): curl-like `>` lines for a request, `<` lines for its answer.
/// Everything in it was already redacted by the client.
extension TraceRequest: CustomStringConvertible {
    public var description: String {
        var lines = ["> \(method) \(url)"]
        lines += headers.fields.map { "> \($0.name): \($0.value)" }
        if !bodyExcerpt.isEmpty { lines.append("> \(bodyExcerpt)") }
        return lines.joined(separator: "\n")
    }
}

extension TraceResponse: CustomStringConvertible {
    public var description: String {
        let ms = String(format: "%.1f ms", elapsedMs)
        guard let status else { return "< \(method) \(path) failed after \(ms): \(failure ?? "no response")" }
        var lines = ["< \(status) \(method) \(path) \(ms)"]
        lines += headers.fields.map { "< \($0.name): \($0.value)" }
        if !bodyExcerpt.isEmpty { lines.append("< \(bodyExcerpt)") }
        return lines.joined(separator: "\n")
    }
}
