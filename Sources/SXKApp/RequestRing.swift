import Foundation
import SXKAPI
import SXKCore

/// One request as the shell sent it, kept for `curl`. The body's secret members (a login's password)
/// and secret query parameters are `***` before it is kept; the token header is kept in memory only,
/// for `curl --reveal-token`.
struct RecordedRequest: Sendable {
    /// Numbers count from 1 since the shell started; `curl --list` shows them.
    let number: Int
    let time: Date
    let method: String
    /// The full URL, secret query values masked.
    let url: String
    let headers: [HTTPField]
    /// The JSON body, compact, secret members masked; nil when the request had none.
    let body: String?
    /// A body that was not JSON is not kept (its secrets could not be found to mask them).
    let bodyOmitted: Bool
    var status: Int?
    var failure: String?
    var elapsedMs: Double?

    /// The `token` header sent, if any.
    var token: String? { headers.first { $0.name.lowercased() == "token" }?.value }

    /// The path and query, for lists.
    var pathAndQuery: String {
        guard let scheme = url.range(of: "://"), let slash = url[scheme.upperBound...].firstIndex(of: "/") else { return url }
        return String(url[slash...])
    }

    /// `200`, `network: connection refused`, `…` while in flight.
    var outcome: String {
        if let status { return String(status) }
        return failure ?? "…"
    }
}

/// The last requests of this shell (memory only), fed by the transport every request goes through.
final class RequestRing: @unchecked Sendable {
    static let capacity = 20

    private let lock = NSLock()
    private var entries: [RecordedRequest] = []
    private var nextNumber = 1

    /// Keeps `request` (masked as `RecordedRequest` says) and returns its number.
    @discardableResult
    func record(_ request: HTTPRequest, time: Date = Date()) -> Int {
        var body: String?
        var omitted = false
        if !request.body.isEmpty {
            if let value = try? JSONParser.parse(request.body) {
                body = JSONWriter.string(Redaction.redact(value))
            } else {
                omitted = true
            }
        }
        let url = RequestRing.maskQuery(request.url.absoluteString)
        return lock.withLock {
            let number = nextNumber
            nextNumber += 1
            entries.append(RecordedRequest(
                number: number, time: time, method: request.method, url: url, headers: request.headers.fields,
                body: body, bodyOmitted: omitted))
            if entries.count > RequestRing.capacity { entries.removeFirst(entries.count - RequestRing.capacity) }
            return number
        }
    }

    /// Notes how request `number` ended.
    func finish(_ number: Int, status: Int?, failure: String?, elapsedMs: Double) {
        lock.withLock {
            guard let i = entries.firstIndex(where: { $0.number == number }) else { return }
            entries[i].status = status
            entries[i].failure = failure
            entries[i].elapsedMs = elapsedMs
        }
    }

    /// Oldest first.
    var all: [RecordedRequest] { lock.withLock { entries } }

    /// Query values of secret-named parameters (`password=…`, `token=…`) become `***`.
    static func maskQuery(_ url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let pairs = url[url.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let raw = String(parts[0])
            let name = raw.contains("%") ? raw.removingPercentEncoding ?? raw : raw
            if parts.count == 2, Redaction.isSecretKey(name) { return "\(parts[0])=***" }
            return String(pair)
        }
        return String(url[...q]) + pairs.joined(separator: "&")
    }

    /// A failure's one line for `curl --list` (no URL, no secret).
    static func describe(_ error: any Error) -> String {
        if let e = error as? TransportError {
            switch e {
            case .cancelled: return "cancelled"
            case .network(let failure): return failure.description
            case .redirectRefused: return "redirect refused"
            case .truncatedBody(let status, _): return "\(status), body cut off"
            case .bodyTooLarge(let status, let limit): return "\(status), body over the \(limit >> 20) MiB limit"
            case .plainHTTPRefused: return "plain http off loopback refused"
            }
        }
        if error is CancellationError { return "cancelled" }
        return "failed"
    }
}
