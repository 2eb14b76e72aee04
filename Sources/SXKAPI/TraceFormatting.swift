import FoundationEssentials
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
    /// The request's path and query as the request line shows them (redacted there): calls in flight
    /// together (pages, identities) answer in any order, and the query says which request an answer
    /// belongs to. The path alone when the URL is not kept (no trace).
    var target: String {
        guard let scheme = url.range(ofBytes: "://"), let slash = url[scheme.upperBound...].firstIndex(of: "/") else { return path }
        return String(url[slash...])
    }

    public var description: String {
        let ms = NumberText.milliseconds(elapsedMs)
        let safe = TerminalText.sanitize
        guard let status else { return "< \(safe(method)) \(safe(target)) failed after \(ms): \(safe(failure ?? "no response"))" }
        var head = "< \(status) \(safe(method)) \(safe(target)) \(ms)"
        if let metrics { head += " (\(metrics.connectionSummary))" }
        var lines = [head]
        lines += headers.fields.map { "< \(safe($0.name)): \(safe($0.value))" }
        if !bodyExcerpt.isEmpty { lines.append("< \(safe(bodyExcerpt))") }
        return lines.joined(separator: "\n")
    }
}

extension TransferMetrics {
    /// `h2, reused connection` or `http/1.1, new connection, TLS 8.1 ms` (TLS only when a handshake
    /// was made: a reused or plain connection has none).
    public var connectionSummary: String {
        var parts = [httpVersion, keptConnection ? (connectionReused ? "kept connection" : "kept connection, opened now")
                                                 : connectionReused ? "reused connection" : "new connection"]
        if let tls = tlsHandshakeMs { parts.append("TLS " + NumberText.milliseconds(tls)) }
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
        func ms(_ from: Double, _ to: Double) -> String { NumberText.fixed(max(0, to - from) * 1000, digits: 1) }
        let reused = connectionReused
        let dns = reused ? "–" : ms(0, dnsDone)
        let connect = reused ? "–" : ms(dnsDone, connected)
        let tls = tlsHandshakeMs.map { NumberText.fixed($0, digits: 1) } ?? "–"
        return "dns \(dns)  connect \(connect)  tls \(tls)  first byte \(ms(tlsDone, firstByte))  total \(ms(0, total)) ms"
    }
}
