import SXKCore

/// A successful envelope as received: what `--raw` (body) and `--json` (data) show.
public struct APIResponse: Sendable, Equatable {
    public var method: String
    public var path: String
    /// The full URL with query, as sent.
    public var url: String
    public var status: Int
    /// The envelope code's text as sent (`100000` or `"100000"`).
    public var code: String
    public var msg: String
    /// `data` exactly as received (key order and number text kept); `.null` when absent.
    public var data: JSONValue
    /// The whole envelope, parsed.
    public var envelope: JSONValue
    /// The body bytes as received.
    public var body: [UInt8]
    public var headers: HTTPHeaders
    public var elapsedMs: Double

    public init(
        method: String, path: String, url: String, status: Int, code: String, msg: String, data: JSONValue,
        envelope: JSONValue, body: [UInt8], headers: HTTPHeaders = HTTPHeaders(), elapsedMs: Double
    ) {
        self.method = method; self.path = path; self.url = url; self.status = status; self.code = code
        self.msg = msg; self.data = data; self.envelope = envelope; self.body = body; self.headers = headers
        self.elapsedMs = elapsedMs
    }

    /// The body as text (UTF-8, invalid bytes replaced), for `--raw`.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A typed value and the response it was read from.
public struct APIResult<Value: Sendable>: Sendable {
    public var value: Value
    public var response: APIResponse

    public init(value: Value, response: APIResponse) { self.value = value; self.response = response }
}
