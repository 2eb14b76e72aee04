import FoundationEssentials
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
    /// Wall time the request was read and the time its answer was ready (nil while it is handled):
    /// what shows that two calls were in flight at once, whatever the sandbox's own clock says.
    public let arrived: Date
    public internal(set) var answered: Date?
    var sequence = 0

    /// True when both requests were being handled at some common moment.
    public func overlaps(_ other: SandboxRequestRecord) -> Bool {
        guard let end = answered, let otherEnd = other.answered else { return false }
        return arrived < otherEnd && other.arrived < end
    }

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
            "arrivedMs": .double((arrived.timeIntervalSince1970 * 1_000_000).rounded() / 1000),
            "answeredMs": answered.map { .double(($0.timeIntervalSince1970 * 1_000_000).rounded() / 1000) } ?? .null,
        ])
    }
}

/// The bounded log of contract requests (control requests under `/__sandbox/` are not logged).
final class SandboxRequestLog: @unchecked Sendable {
    static let capacity = 10_000
    private let lock = Lock()
    private var records: [SandboxRequestRecord] = []
    private var nextSequence = 0

    /// Logs a request as it arrives; `answered(_:)` with the returned number marks its answer.
    @discardableResult
    func append(_ request: HTTPRequest, time: Date) -> Int {
        let arrived = Date()
        var body = String(decoding: request.body, as: UTF8.self)
        if !request.body.isEmpty, let parsed = try? JSONParser.parse(request.body) {
            body = JSONWriter.string(Redaction.redact(parsed))
        }
        var record = SandboxRequestRecord(
            method: request.method, path: request.path, rawQuery: request.rawQuery, query: request.query,
            headers: request.headers, body: body, time: time, arrived: arrived)
        return lock.withLock {
            if records.count >= SandboxRequestLog.capacity { records.removeFirst(records.count / 10) }
            record.sequence = nextSequence
            nextSequence += 1
            records.append(record)
            return record.sequence
        }
    }

    func answered(_ sequence: Int) {
        let now = Date()
        lock.withLock {
            // Recent requests are at the end; one that aged out of the log is not marked.
            if let i = records.lastIndex(where: { $0.sequence == sequence }) { records[i].answered = now }
        }
    }

    var all: [SandboxRequestRecord] { lock.withLock { records } }
    func reset() { lock.withLock { records.removeAll() } }
}
