import FoundationEssentials
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
    /// Bytes of the body as sent (before masking), for HAR's `bodySize`.
    let bodySize: Int
    var status: Int?
    var failure: String?
    var elapsedMs: Double?
    /// What came back, for `har save` and `timing on`; nil while in flight or when nothing came.
    var response: RecordedResponse?

    /// The `token` header sent, if any.
    var token: String? { headers.first { $0.name.lowercased() == "token" }?.value }

    /// The path and query, for lists.
    var pathAndQuery: String {
        guard let scheme = url.firstRange(of: "://"), let slash = url[scheme.upperBound...].firstIndex(of: "/") else { return url }
        return String(url[slash...])
    }

    /// `200`, `network: connection refused`, `…` while in flight.
    var outcome: String {
        if let status { return String(status) }
        return failure ?? "…"
    }
}

/// The answer to a recorded request, bounded: headers, the head of the body, the wire metrics.
struct RecordedResponse: Sendable {
    let headers: [HTTPField]
    /// At most `RequestRing.bodyKeptLimit` bytes of the body as received. What the request carried under
    /// a secret name (a password) is already `***` here and in `headers` (it is never kept); the token and secret
    /// members are masked when the body is written out (`HARExport`), as `--trace` masks them.
    let bodyHead: [UInt8]
    /// The whole body's size in bytes.
    let bodySize: Int
    let metrics: TransferMetrics?
}

/// The last requests of this shell (memory only), fed by the transport every request goes through.
final class RequestRing: @unchecked Sendable {
    static let capacity = 20
    /// How many entries `--har` keeps, so a script's whole run fits (bounded like everything else).
    static let harCapacity = 1000
    /// Bytes of each response body shown (HAR `content.text`, cut beyond).
    static let bodyHeadLimit = 16 << 10
    /// Bytes kept: what is shown and room for a token that starts before the cut, so the token is
    /// masked before the text is cut there (`Redaction.excerpt`), not left half shown.
    static let bodyKeptLimit = bodyHeadLimit + 4096

    private let lock = Lock()
    private var entries: [RecordedRequest] = []
    private var nextNumber = 1
    private var limit = RequestRing.capacity

    /// Keeps at least `count` entries from now on (`--har`: every request of the run).
    func keep(atLeast count: Int) { lock.withLock { limit = max(limit, count) } }

    /// Keeps `request` (masked as `RecordedRequest` says) and returns its number.
    @discardableResult
    func record(_ request: HTTPRequest, time: Date = Date()) -> Int { begin(request, time: time).number }

    /// Like `record`, and also returns the secret values the request carries (its `secrets`, a
    /// login's password), for `finish` to mask in the response before it is kept; the caller holds
    /// them for that call only.
    func begin(_ request: HTTPRequest, time: Date = Date()) -> (number: Int, bodySecrets: [String]) {
        var body: String?
        var omitted = false
        var secrets = request.secrets
        // What the request carried under a secret name is masked under any other name it was sent
        // under too (`note=` beside `password=`), as the trace masks it: `curl N` and HAR show this.
        let sent = request.secrets.filter(SecretMemory.keeps)
        func masked(_ text: String) -> String { sent.isEmpty ? text : Redaction.redact(text, secrets: sent) }
        if !request.body.isEmpty {
            if let value = try? JSONParser.parse(request.body) {
                body = masked(JSONWriter.string(Redaction.redact(value)))
                secrets += SecretScrubber.secretValues(in: value)
            } else {
                omitted = true
            }
        }
        let url = masked(RequestRing.maskQuery(request.url.absoluteString))
        let number = lock.withLock {
            let number = nextNumber
            nextNumber += 1
            entries.append(RecordedRequest(
                number: number, time: time, method: request.method, url: url, headers: request.headers.fields,
                body: body, bodyOmitted: omitted, bodySize: request.body.count))
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
            return number
        }
        return (number, secrets)
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

    /// Notes the answer to request `number`: status, bounded body head (`bodySecrets` masked), metrics.
    func finish(_ number: Int, response: HTTPResponse, bodySecrets: [String], elapsedMs: Double) {
        var head = response.body.count > RequestRing.bodyKeptLimit ? Array(response.body.prefix(RequestRing.bodyKeptLimit)) : response.body
        var headers = response.headers.fields
        // And what the answer itself carries under a secret name (a new token), wherever else it shows.
        let bodySecrets = bodySecrets + Redaction.secretMemberValues(head)
        if !bodySecrets.isEmpty {
            head = Array(Redaction.redact(String(decoding: head, as: UTF8.self), secrets: bodySecrets).utf8)
            // A server may echo them in a header too (a `Location`, a debug field).
            headers = headers.map { HTTPField(name: Redaction.redact($0.name, secrets: bodySecrets), value: Redaction.redact($0.value, secrets: bodySecrets)) }
        }
        let kept = RecordedResponse(headers: headers, bodyHead: head, bodySize: response.body.count, metrics: response.metrics)
        lock.withLock {
            guard let i = entries.lastIndex(where: { $0.number == number }) else { return }
            entries[i].status = response.status
            entries[i].failure = nil
            entries[i].elapsedMs = elapsedMs
            entries[i].response = kept
        }
    }

    /// The number the next request will get (for "the requests of this command").
    var nextRequestNumber: Int { lock.withLock { nextNumber } }

    /// Oldest first.
    var all: [RecordedRequest] { lock.withLock { entries } }

    /// Query values of secret-named parameters (`password=…`, `token=…`) become `***`.
    static func maskQuery(_ url: String) -> String { Redaction.maskedQuery(url) }

    /// A failure's one line for `curl --list` (no URL, no secret).
    static func describe(_ error: any Error) -> String {
        if let e = error as? TransportError {
            switch e {
            case .cancelled: return "cancelled"
            case .network(let failure): return failure.description
            case .redirectRefused: return "redirect refused"
            case .tooManyRedirects: return "too many redirects"
            case .unreadable(let reason): return "answer not readable as HTTP (\(reason))"
            case .truncatedBody(let status, _): return "\(status), body cut off"
            case .bodyTooLarge(let status, let limit): return "\(status), body over the \(limit >> 20) MiB limit"
            case .plainHTTPRefused: return "plain http off loopback refused"
            case .proxyRefused: return "plain http to a proxy off loopback refused"
            }
        }
        if error is CancellationError { return "cancelled" }
        return "failed"
    }
}
