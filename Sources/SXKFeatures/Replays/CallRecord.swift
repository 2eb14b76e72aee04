import FoundationEssentials
import SXKCore

/// One backend call a facade made: method, path, how long it took, and ok or the error line.
/// `startMs`/`endMs` are offsets from the start of the operation, so overlapping calls are visible.
public struct CallRecord: Sendable, Equatable {
    public var method: String
    public var path: String
    public var startMs: Double
    public var endMs: Double
    public var ok: Bool
    public var error: String?

    public init(method: String, path: String, startMs: Double, endMs: Double, ok: Bool, error: String? = nil) {
        self.method = method; self.path = path; self.startMs = startMs; self.endMs = endMs; self.ok = ok; self.error = error
    }

    public var ms: Double { endMs - startMs }

    public var json: JSONValue {
        var o: JSONObject = [
            "method": .string(method), "path": .string(path),
            "startMs": .decimal(startMs, digits: 1), "endMs": .decimal(endMs, digits: 1),
            "ms": .decimal(ms, digits: 1), "ok": .bool(ok),
        ]
        if let error { o["error"] = .string(error) }
        return .object(o)
    }

    /// True when the two calls were in flight at the same time.
    public func overlaps(_ other: CallRecord) -> Bool {
        startMs < other.endMs && other.startMs < endMs
    }
}

/// Times calls against one origin so their records share a time axis.
struct CallTimer: Sendable {
    let origin = ContinuousClock.now

    func offsetMs() -> Double {
        (ContinuousClock.now - origin).milliseconds
    }

    /// Runs `body`, returning its value and the record of the call (the error is rethrown after recording).
    func record<T>(_ method: String, _ path: String, into sink: CallSink?, _ body: () async throws -> T) async throws -> T {
        let start = offsetMs()
        do {
            let value = try await body()
            sink?.append(CallRecord(method: method, path: path, startMs: start, endMs: offsetMs(), ok: true))
            return value
        } catch {
            sink?.append(CallRecord(method: method, path: path, startMs: start, endMs: offsetMs(), ok: false, error: "\(error)"))
            throw error
        }
    }
}

/// A thread-safe list of call records filled by concurrent calls.
final class CallSink: @unchecked Sendable {
    private let lock = Lock()
    private var items: [CallRecord] = []

    func append(_ record: CallRecord) { lock.withLock { items.append(record) } }
    /// In the order the calls ended.
    var records: [CallRecord] { lock.withLock { items } }

    /// In request order, for calls sent together: by where each call's path (its query left out) is in
    /// `paths`; calls to the same path (the pages of one list) as they ended; a path not listed last.
    func records(inOrderOf paths: [String]) -> [CallRecord] {
        let ended = records
        func rank(_ record: CallRecord) -> Int {
            let path = record.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? record.path
            return paths.firstIndex(of: path) ?? paths.count
        }
        return ended.indices.sorted { a, b in (rank(ended[a]), a) < (rank(ended[b]), b) }.map { ended[$0] }
    }
    func drain() -> [CallRecord] { lock.withLock { defer { items = [] }; return items } }
}
