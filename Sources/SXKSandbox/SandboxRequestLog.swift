import Foundation
import SXKCore

/// One request the sandbox received (passwords in JSON bodies are replaced by `***`).
public struct SandboxRequestRecord: Sendable {
    public let method: String
    public let path: String
    public let rawQuery: String
    public let query: [(name: String, value: String)]
    /// Header names lower-cased, in arrival order; includes `token`.
    public let headers: [(name: String, value: String)]
    public let body: String
    public let time: Date

    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }

    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    var json: JSONValue {
        .object([
            "method": .string(method),
            "path": .string(path),
            "query": .string(rawQuery),
            "params": .object(JSONObject(query.map { ($0.name, JSONValue.string($0.value)) })),
            "headers": .object(JSONObject(headers.map { ($0.name, JSONValue.string($0.value)) })),
            "body": .string(body),
            "time": .string(ShanghaiCalendar.timestamp(unix: Int(time.timeIntervalSince1970))),
        ])
    }
}

/// The bounded log of contract requests (control requests under `/__sandbox/` are not logged).
final class SandboxRequestLog: @unchecked Sendable {
    static let capacity = 10_000
    private let lock = NSLock()
    private var records: [SandboxRequestRecord] = []

    func append(_ request: HTTPRequest, time: Date) {
        var body = String(decoding: request.body, as: UTF8.self)
        if !request.body.isEmpty, let parsed = try? JSONParser.parse(request.body) {
            body = JSONWriter.string(Redaction.redact(parsed))
        }
        let record = SandboxRequestRecord(
            method: request.method, path: request.path, rawQuery: request.rawQuery, query: request.query,
            headers: request.headers, body: body, time: time)
        lock.withLock {
            if records.count >= SandboxRequestLog.capacity { records.removeFirst(records.count / 10) }
            records.append(record)
        }
    }

    var all: [SandboxRequestRecord] { lock.withLock { records } }
    func reset() { lock.withLock { records.removeAll() } }
}
