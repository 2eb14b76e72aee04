import SXKCore

/// One parsed HTTP request as the sandbox sees it (header names lower-cased, query decoded).
struct HTTPRequest: Sendable {
    var method: String
    var path: String
    var rawQuery: String
    var query: [(name: String, value: String)]
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var keepAlive: Bool

    func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }

    /// A query parameter by camelCase name, also found under its snake_case spelling.
    func param(_ camelName: String) -> String? {
        if let hit = query.first(where: { $0.name == camelName }) { return hit.value }
        let snake = JSONObject.snakeCase(camelName)
        return query.first { $0.name == snake }?.value
    }

    /// Splits `a=1&b=%E4%B8%AD+x` into decoded pairs.
    static func parseQuery(_ raw: String) -> [(name: String, value: String)] {
        QueryText.pairs(Substring(raw)).map { (percentDecode($0.name), $0.value.map(percentDecode) ?? "") }
    }

    static func percentDecode(_ text: Substring) -> String { Redaction.percentDecoded(text) }
}

/// An answer to write back; the fault modes bend how it is written.
struct HTTPResponse: Sendable {
    enum Delivery: Sendable {
        case normal
        /// Send the head (with the full Content-Length) and only this many body bytes, then close.
        case truncated(Int)
        /// Never answer; wait for the client to close or the server to stop.
        case hang
        /// Send the body's bytes alone, no status line or head, then close: an answer that is not HTTP.
        case raw
    }

    var status: Int
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var close = false
    var delivery: Delivery = .normal

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: JSONWriter.bytes(value))
    }

    /// The contract envelope `{"code","msg","data"}`.
    static func envelope(code: Int, msg: String, data: JSONValue = .null, status: Int = 200) -> HTTPResponse {
        json(.object(["code": .int(code), "msg": .string(msg), "data": data]), status: status)
    }

    static func success(_ data: JSONValue) -> HTTPResponse { envelope(code: SandboxCode.success, msg: "success", data: data) }

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 302: return "Found"
        case 400: return "Bad Request"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Payload Too Large"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }

    /// Status line and headers, with Content-Length and Connection added.
    func head(keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\n"
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        text += "Content-Length: \(body.count)\r\n"
        text += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }
}

/// Business codes the sandbox answers with (the envelope's `code`: 100000 success; the error codes are the sandbox's choice).
public enum SandboxCode {
    public static let success = 100000
    public static let badCredentials = 100010
    public static let badRequest = 100400
    public static let authExpired = 100401
    public static let forbidden = 100403
    public static let notFound = 100404
    public static let methodNotAllowed = 100405
    public static let tooLarge = 100413
    public static let serverError = 100500
}
