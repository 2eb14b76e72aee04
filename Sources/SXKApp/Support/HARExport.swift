import FoundationEssentials
import SXKAPI
import SXKCore

/// The requests of `RequestRing` as an HTTP Archive 1.2 document (the format browser devtools,
/// Charles and Postman import). Every header, URL and body goes through `SecretScrubber`, the
/// functions `--trace` uses: the token header, passwords and secret members are `***`, and so is
/// any known token echoed in a body or header.
enum HARExport {
    /// Characters of a response body written as `content.text` (the kept head is cut there).
    static let textLimit = RequestRing.bodyHeadLimit

    /// The whole document; `secrets` are the tokens this shell holds (each entry's own token header
    /// is added to them).
    static func document(_ entries: [RecordedRequest], secrets: [String], version: String) -> JSONValue {
        let log: JSONObject = [
            "version": "1.2",
            "creator": .object(["name": "sxk", "version": .string(version)]),
            "pages": [],
            "entries": .array(entries.map { entry($0, secrets: secrets + [$0.token].compactMap { $0 }) }),
        ]
        return .object(["log": .object(log)])
    }

    static func entry(_ e: RecordedRequest, secrets: [String]) -> JSONValue {
        let metrics = e.response?.metrics
        let timings = HARTimings(metrics: metrics, elapsedMs: e.elapsedMs ?? 0)
        let version = httpVersion(metrics)
        var request: JSONObject = [
            "method": .string(e.method),
            "url": .string(SecretScrubber.url(e.url, secrets: secrets)),
            "httpVersion": .string(version),
            "cookies": [],
            "headers": headers(e.headers, secrets: secrets),
            "queryString": queryString(SecretScrubber.url(e.url, secrets: secrets)),
            "headersSize": -1,
            "bodySize": .int(e.bodySize),
        ]
        if let body = e.body {
            request["postData"] = .object([
                "mimeType": .string(e.headers.first { $0.name.lowercased() == "content-type" }?.value ?? "application/json"),
                "text": .string(SecretScrubber.traceBody(Array(body.utf8), limit: textLimit, secrets: secrets)),
            ])
        } else if e.bodyOmitted {
            request["comment"] = "the body was not JSON and is not kept"
        }
        var object: JSONObject = [
            "startedDateTime": .string(isoTime(e.time)),
            "time": .double(timings.total),
            "request": .object(request),
            "response": response(e, version: version, secrets: secrets),
            "cache": .object(JSONObject()),
            "timings": timings.json,
        ]
        if let address = metrics?.remoteAddress.flatMap(hostPart) { object["serverIPAddress"] = .string(address) }
        if let failure = e.failure { object["comment"] = .string(failure) }
        return .object(object)
    }

    private static func response(_ e: RecordedRequest, version: String, secrets: [String]) -> JSONValue {
        let r = e.response
        let responseHeaders = r?.headers ?? []
        let mime = responseHeaders.first { $0.name.lowercased() == "content-type" }?.value ?? ""
        var content: JSONObject = ["size": .int(r?.bodySize ?? 0), "mimeType": .string(mime)]
        if let r, !r.bodyHead.isEmpty {
            content["text"] = .string(SecretScrubber.traceBody(r.bodyHead, limit: textLimit, secrets: secrets))
            // The size received: the head kept may be shorter for its masked secrets.
            if r.bodySize > textLimit {
                content["comment"] = .string("text is the first \(textLimit) of \(r.bodySize) bytes")
            }
        }
        let location = responseHeaders.first { $0.name.lowercased() == "location" }?.value ?? ""
        return .object([
            "status": .int(e.status ?? 0),
            "statusText": .string(statusText(e.status)),
            "httpVersion": .string(version),
            "cookies": [],
            "headers": headers(responseHeaders, secrets: secrets),
            "content": .object(content),
            "redirectURL": .string(SecretScrubber.url(location, secrets: secrets)),
            "headersSize": -1,
            "bodySize": .int(r?.bodySize ?? -1),
        ])
    }

    private static func headers(_ fields: [HTTPField], secrets: [String]) -> JSONValue {
        .array(SecretScrubber.headers(HTTPHeaders(fields), secrets: secrets).fields.map {
            .object(["name": .string($0.name), "value": .string($0.value)])
        })
    }

    /// `name=value` pairs of the (already masked) URL, percent-decoded.
    static func queryString(_ url: String) -> JSONValue {
        guard let query = QueryText.split(Substring(url)).query else { return [] }
        func decode(_ s: Substring) -> String { Redaction.percentDecodedExactly(s) ?? String(s) }
        return .array(QueryText.pairs(query).map { pair in
            .object(["name": .string(decode(pair.name)), "value": .string(pair.value.map(decode) ?? "")])
        })
    }

    /// `HTTP/2`, `HTTP/1.1`; empty when the transport did not say.
    static func httpVersion(_ metrics: TransferMetrics?) -> String {
        guard let v = metrics?.httpVersion else { return "" }
        return v == "h2" ? "HTTP/2" : v.uppercased()
    }

    /// `127.0.0.1` of `127.0.0.1:8443`, `::1` of `[::1]:8443`.
    static func hostPart(_ address: String) -> String? {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        if address.filter({ $0 == ":" }).count == 1, let colon = address.firstIndex(of: ":") { return String(address[..<colon]) }
        return address.isEmpty ? nil : address
    }

    /// ISO 8601 in UTC to the millisecond, as HAR viewers expect: `2026-12-01T02:00:00.250Z`.
    static func isoTime(_ date: Date) -> String {
        let millis = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = CivilDate.floorDiv(millis, 1000)
        return String(LocalTime.iso(Date(timeIntervalSince1970: TimeInterval(seconds)), zone: .fixed(secondsEast: 0)).dropLast(6))
            + "." + NumberText.padded(millis - seconds * 1000, width: 3) + "Z"
    }

    /// The reason phrase of the common statuses (the transports do not keep the server's own).
    static func statusText(_ status: Int?) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Payload Too Large"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}

/// HAR `timings` in milliseconds from the transport's cumulative phase times; -1 for a phase that
/// is unknown or did not happen (a reused connection has no dns, connect or ssl). HAR counts `ssl`
/// inside `connect` too, and `time` is the sum of the non-negative phases.
struct HARTimings: Equatable {
    var blocked = -1.0, dns = -1.0, connect = -1.0, ssl = -1.0, send = 0.0, wait = 0.0, receive = 0.0

    init(metrics: TransferMetrics?, elapsedMs: Double) {
        guard let m = metrics else {
            // Without metrics only the whole exchange is known: it is all waiting.
            wait = Self.round(max(0, elapsedMs))
            return
        }
        func span(_ from: Double, _ to: Double) -> Double { Self.round(max(0, to - from) * 1000) }
        if !m.connectionReused {
            dns = span(0, m.dnsDone)
            connect = span(m.dnsDone, m.tlsDone)
            if m.tlsDone > m.connected { ssl = span(m.connected, m.tlsDone) }
        }
        wait = span(m.tlsDone, m.firstByte)
        receive = span(m.firstByte, m.total)
    }

    var total: Double { Self.round([blocked, dns, connect, send, wait, receive].filter { $0 > 0 }.reduce(0, +)) }

    var json: JSONValue {
        .object([
            "blocked": .double(blocked), "dns": .double(dns), "connect": .double(connect), "ssl": .double(ssl),
            "send": .double(send), "wait": .double(wait), "receive": .double(receive),
        ])
    }

    private static func round(_ ms: Double) -> Double { (ms * 1000).rounded() / 1000 }
}
