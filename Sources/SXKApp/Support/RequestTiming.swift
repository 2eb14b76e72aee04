import SXKCore

/// One request's line under `time:` while `timing on`: what it was, how it ended and, when the
/// transport measured them, its phases (`TransferMetrics.phaseSummary`).
enum RequestTiming {
    /// `GET /api/app/config 200  dns 0.2  connect 0.4  tls –  first byte 20.3  total 21.0 ms  (http/1.1, new connection)`;
    /// without metrics only the total the shell measured.
    static func line(_ entry: RecordedRequest, secrets: [String]) -> String {
        let what = "\(entry.method) \(Redaction.redact(entry.pathAndQuery, secrets: secrets)) \(entry.outcome)"
        if let metrics = entry.response?.metrics {
            return "\(what)  \(metrics.phaseSummary)  (\(metrics.connectionSummary))"
        }
        let total = entry.elapsedMs.map(NumberText.milliseconds) ?? "…"
        return "\(what)  total \(total)"
    }
}
