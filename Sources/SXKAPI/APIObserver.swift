import FoundationEssentials

/// A request about to be sent, already redacted (token and passwords are `***`), for `--trace`.
public struct TraceRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    public var path: String
    public var headers: HTTPHeaders
    public var bodyExcerpt: String
}

/// A response (or failure) of a traced request, already redacted.
public struct TraceResponse: Sendable, Equatable {
    public var method: String
    public var url: String
    public var path: String
    /// nil when no response arrived (network failure, cancellation).
    public var status: Int?
    public var elapsedMs: Double
    public var headers: HTTPHeaders
    public var bodyExcerpt: String
    /// Set when no response arrived.
    public var failure: String?
    /// Protocol, connection reuse and phase times, when the transport reports them.
    public var metrics: TransferMetrics? = nil
}

/// One session-expiry event, reported once however many requests in flight saw it.
public struct SessionExpiry: Sendable, Equatable {
    public var request: RequestLabel
    public var cause: ExpiryCause
    /// The cause as every message quotes it.
    public var reason: String { cause.description }
    /// Counts expiry events since the client was made (1 for the first).
    public var generation: Int
}

/// A request on the wire, for a "waiting for …" line: method and path only — no query, body or
/// headers, which may hold secrets. `id` tells concurrent requests apart.
public struct RequestActivity: Sendable, Equatable {
    public var id: UInt64
    public var method: String
    public var path: String

    public init(id: UInt64, method: String, path: String) {
        self.id = id
        self.method = method
        // A raw `get /x?token=…` keeps its query in the path: cut it.
        self.path = String(path.prefix { $0 != "?" && $0 != "#" })
    }

    public var label: String { method + " " + path }
}

/// Hooks the shell sets at init for `--trace`, warnings and the session-expired signal.
/// Calls come from whichever task made the request; implementations must be thread-safe.
public protocol APIObserver: Sendable {
    /// Whether the trace hooks want records now; building them (redacted excerpts) costs a second
    /// parse of every body, so the client skips it when this is false.
    var isTracing: Bool { get }
    func requestWillSend(_ request: TraceRequest)
    func responseReceived(_ response: TraceResponse)
    func sessionExpired(_ event: SessionExpiry)
    /// E.g. the per-request warning for plain http to a remote host.
    func warning(_ message: String)
    /// The transport got the request / the request ended (answer, failure or cancellation); called
    /// whether or not tracing is on, so they must stay cheap.
    func requestStarted(_ activity: RequestActivity)
    func requestFinished(_ activity: RequestActivity)
}

extension APIObserver {
    public var isTracing: Bool { true }
    public func requestWillSend(_ request: TraceRequest) {}
    public func responseReceived(_ response: TraceResponse) {}
    public func sessionExpired(_ event: SessionExpiry) {}
    public func warning(_ message: String) {}
    public func requestStarted(_ activity: RequestActivity) {}
    public func requestFinished(_ activity: RequestActivity) {}
}

/// An observer made of optional closures, for callers that prefer not to declare a type.
public struct ClosureObserver: APIObserver {
    public var onRequest: (@Sendable (TraceRequest) -> Void)?
    public var onResponse: (@Sendable (TraceResponse) -> Void)?
    public var onSessionExpired: (@Sendable (SessionExpiry) -> Void)?
    public var onWarning: (@Sendable (String) -> Void)?

    public init(
        onRequest: (@Sendable (TraceRequest) -> Void)? = nil, onResponse: (@Sendable (TraceResponse) -> Void)? = nil,
        onSessionExpired: (@Sendable (SessionExpiry) -> Void)? = nil, onWarning: (@Sendable (String) -> Void)? = nil
    ) {
        self.onRequest = onRequest; self.onResponse = onResponse
        self.onSessionExpired = onSessionExpired; self.onWarning = onWarning
    }

    public func requestWillSend(_ request: TraceRequest) { onRequest?(request) }
    public func responseReceived(_ response: TraceResponse) { onResponse?(response) }
    public func sessionExpired(_ event: SessionExpiry) { onSessionExpired?(event) }
    public func warning(_ message: String) { onWarning?(message) }
}

/// The observer that ignores everything.
public struct SilentObserver: APIObserver {
    public init() {}
    public var isTracing: Bool { false }
}
