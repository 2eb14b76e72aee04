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
        var head = "< \(status) \(method) \(path) \(ms)"
        if let metrics { head += " (\(metrics.connectionSummary))" }
        var lines = [head]
        lines += headers.fields.map { "< \($0.name): \($0.value)" }
        if !bodyExcerpt.isEmpty { lines.append("< \(bodyExcerpt)") }
        return lines.joined(separator: "\n")
    }
}

extension TransferMetrics {
    /// `h2, reused connection` or `http/1.1, new connection, TLS 8.1 ms` (TLS only when a handshake
    /// was made: a reused or plain connection has none).
    public var connectionSummary: String {
        var parts = [httpVersion, connectionReused ? "reused connection" : "new connection"]
        if let tls = tlsHandshakeMs { parts.append("TLS " + String(format: "%.1f ms", tls)) }
        return parts.joined(separator: ", ")
    }

    /// Milliseconds of the TLS handshake, nil when there was none.
    public var tlsHandshakeMs: Double? {
        let ms = (tlsDone - connected) * 1000
        return !connectionReused && ms > 0 ? ms : nil
    }

    /// `dns 0.2  connect 0.4  tls 8.1  first byte 20.3  total 21.0 ms`: each phase's own length
    /// (the metrics are cumulative), a phase that did not happen as `–`.
    public var phaseSummary: String {
        func ms(_ from: Double, _ to: Double) -> String { String(format: "%.1f", max(0, to - from) * 1000) }
        let reused = connectionReused
        let dns = reused ? "–" : ms(0, dnsDone)
        let connect = reused ? "–" : ms(dnsDone, connected)
        let tls = tlsHandshakeMs.map { String(format: "%.1f", $0) } ?? "–"
        return "dns \(dns)  connect \(connect)  tls \(tls)  first byte \(ms(tlsDone, firstByte))  total \(ms(0, total)) ms"
    }
}
