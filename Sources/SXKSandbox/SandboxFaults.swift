import FoundationEssentials
import SXKCore

/// Ways the next requests to a path can misbehave (see `SandboxServer.injectFault`).
public enum SandboxFaultKind: String, Sendable, CaseIterable {
    /// HTTP 200, JSON content type, a body that is not valid JSON.
    case malformed
    /// HTTP 200 with an empty body.
    case empty
    /// The head announces the full length; half the body is sent, then the connection closes.
    case truncated
    /// HTTP 502 with an HTML page, as a gateway would answer.
    case html502
    /// HTTP 500 with a JSON envelope of code 100500.
    case status500
    /// No answer at all until the client closes or the server stops.
    case hang
    /// HTTP 302 to the fault's `location`.
    case redirect
    /// The real answer with a padding member added to the envelope: valid JSON of 10 MiB.
    case huge
    /// The same padded to 48 MiB, past any sane client's body limit (sxk reads at most 32 MiB).
    case oversized
    /// HTTP 200 with 100,000 nested `[` (and their `]`): valid JSON no bounded parser accepts.
    case deepNesting
    /// HTTP 401 with an empty body, as a gateway in front of the API answers an expired session.
    case status401
    /// A list endpoint that ignores the page asked for: page 1's answer, saying `page: 1`, whatever the page.
    case pageIgnored
    /// The real page without its `pageSize` and `page` members (both optional in the contract).
    case pageUnsized
    /// `data` an object without a `list`: no page at all.
    case pageWithoutList
    /// Page 1's rows for every page, with no `total` and no `page`: a list that never ends.
    case pagesEndless
    /// At most 10 rows a page whatever size is asked, and no `pageSize` in the answer: a server that
    /// serves fewer rows than asked and does not say its own page size.
    case pageCapped
    /// `data` an empty object: an answer that says nothing (a config with no keys).
    case dataEmpty
    /// A page whose `list` is `null` beside its `total`: an answer that contradicts itself.
    case listNull
    /// The real answer with its `token` empty (login, set-user): a token no client can send back.
    case tokenEmpty
    /// A set-user answer whose `user` is another account than the one asked for (its user id + 1).
    case userOther
    /// Bytes that are not HTTP (another service's banner), then the connection closes.
    case notHTTP

    /// Body size of `huge` and `oversized`.
    public var paddedSize: Int? {
        switch self {
        case .huge: return 10 << 20
        case .oversized: return 48 << 20
        default: return nil
        }
    }
}

/// A pending fault for one path (`*` matches every contract path).
public struct SandboxFault: Sendable, Equatable {
    public var path: String
    public var kind: SandboxFaultKind
    public var remaining: Int
    public var location: String?
    /// When set, only a request whose query holds this `name=value` pair (`page=3`) meets the fault.
    public var query: String?

    public init(path: String, kind: SandboxFaultKind, count: Int = 1, location: String? = nil, query: String? = nil) {
        self.path = path
        self.kind = kind
        self.remaining = count
        self.location = location
        self.query = query
    }

    func matches(path: String, rawQuery: String) -> Bool {
        guard self.path == path || self.path == "*" else { return false }
        guard let query else { return true }
        return rawQuery.split(separator: "&").contains { $0 == query }
    }
}

/// The queue of injected faults plus the random failure rate and latency, all changeable at run time.
final class SandboxFaultBook: @unchecked Sendable {
    private let lock = Lock()
    private var faults: [SandboxFault] = []
    private var rng: SeededGenerator
    private(set) var latencyMs: Int
    private(set) var failRate: Double

    init(seed: UInt64, latencyMs: Int, failRate: Double) {
        rng = SeededGenerator(seed: seed ^ 0xFA17)
        self.latencyMs = latencyMs
        self.failRate = failRate
    }

    func add(_ fault: SandboxFault) { lock.withLock { faults.append(fault) } }
    func clear() { lock.withLock { faults.removeAll() } }
    var pending: [SandboxFault] { lock.withLock { faults } }

    func setLatency(_ ms: Int) { lock.withLock { latencyMs = max(0, ms) } }
    func setFailRate(_ rate: Double) { lock.withLock { failRate = min(1, max(0, rate)) } }
    var latency: Int { lock.withLock { latencyMs } }

    /// Takes one use of the first fault matching `path` (and its query, when the fault names one), if any.
    func take(path: String, rawQuery: String = "") -> SandboxFault? {
        lock.withLock {
            guard let index = faults.firstIndex(where: { $0.matches(path: path, rawQuery: rawQuery) }) else { return nil }
            let fault = faults[index]
            faults[index].remaining -= 1
            if faults[index].remaining <= 0 { faults.remove(at: index) }
            return fault
        }
    }

    /// Whether this request should fail at random (HTTP 502).
    func rollFailure() -> Bool {
        lock.withLock {
            guard failRate > 0 else { return false }
            return Double(rng.next() >> 11) / Double(1 << 53) < failRate
        }
    }
}

/// A SplitMix64 stream, so random failures repeat for a given seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeedHash.mix(state)
    }
}
