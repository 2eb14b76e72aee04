import FoundationEssentials
import SXKCore

/// How a sandbox server is set up: where it listens, which data it generates, which faults it injects.
public struct SandboxConfig: Sendable {
    /// Loopback host only: `127.0.0.1` (default), `::1` or `localhost`.
    public var host: String
    /// 0 picks an ephemeral port; read the bound one from `SandboxServer.port`.
    public var port: Int
    /// Seed of every generated value (orders, amounts, names).
    public var seed: UInt64
    /// Orders per order scope (a photographer, a scenic area or a store), 1…1,000,000.
    public var ordersPerRole: Int
    /// Delay before every contract answer, in milliseconds.
    public var latencyMs: Int
    /// Share of contract requests (0…1) answered with HTTP 502 and an HTML body.
    public var failRate: Double
    /// Lifetime of formal tokens in seconds; nil means they never expire.
    public var tokenTTL: TimeInterval?
    /// The instant orders end at (they spread over the 90 days before it); nil = the clock's now at `init`.
    public var referenceDate: Date?
    /// Time source for token expiry, location reports and the default reference date.
    public var clock: any WallClock
    /// Largest accepted request body and header block, in bytes.
    public var maxBodyBytes: Int
    public var maxHeaderBytes: Int
    /// Most simultaneous connections; more are answered 503 and closed.
    public var maxConnections: Int
    /// Keep-alive connections idle this long are closed.
    public var idleTimeout: TimeInterval
    /// Answers carry terminal escapes in names, texts, messages and a header, and `userinfo` echoes
    /// the caller's token (see `SandboxHostile`).
    public var hostile: Bool
    /// How answers spell their members, numbers, booleans and message (`SandboxSpelling`).
    public var spelling: SandboxSpelling
    /// Keeps formal tokens across runs (nil: they live as long as the server).
    public var tokenKeeper: (any SandboxTokenKeeper)?

    public init(
        host: String = "127.0.0.1", port: Int = 0, seed: UInt64 = 42, ordersPerRole: Int = 2000,
        latencyMs: Int = 0, failRate: Double = 0, tokenTTL: TimeInterval? = nil, referenceDate: Date? = nil,
        clock: any WallClock = SystemClock(), maxBodyBytes: Int = 1 << 20, maxHeaderBytes: Int = 32 * 1024,
        maxConnections: Int = 256, idleTimeout: TimeInterval = 120, hostile: Bool = false,
        spelling: SandboxSpelling = .camel,
        tokenKeeper: (any SandboxTokenKeeper)? = nil
    ) {
        self.host = host
        self.port = port
        self.seed = seed
        self.ordersPerRole = ordersPerRole
        self.latencyMs = latencyMs
        self.failRate = failRate
        self.tokenTTL = tokenTTL
        self.referenceDate = referenceDate
        self.clock = clock
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.hostile = hostile
        self.spelling = spelling
        self.tokenKeeper = tokenKeeper
    }

    /// The checks `SandboxServer.start()` applies, as one error.
    func validate() throws(SandboxError) {
        guard SandboxConfig.isLoopback(host) else { throw .nonLoopbackHost(host) }
        guard (0...65535).contains(port) else { throw .invalidConfig("port \(port) is out of range 0…65535") }
        guard (1...1_000_000).contains(ordersPerRole) else {
            throw .invalidConfig("ordersPerRole \(ordersPerRole) is out of range 1…1000000")
        }
        guard latencyMs >= 0 else { throw .invalidConfig("latency must not be negative") }
        guard failRate >= 0, failRate <= 1 else { throw .invalidConfig("fail rate \(failRate) is out of range 0…1") }
        if let tokenTTL, tokenTTL <= 0 { throw .invalidConfig("token TTL must be positive") }
    }

    /// Only loopback names are served: the sandbox holds demo passwords and must not face a network.
    public static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased())
    }
}
