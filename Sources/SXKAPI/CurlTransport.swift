import FoundationEssentials
import SXKCore

/// The one transport, for `http://` and `https://`: libcurl through `CurlEngine` (one multi
/// handle on one thread for the whole process, so connections, TLS sessions, DNS answers and
/// the CA store are reused by every request; HTTP/2 where the server offers it by ALPN).
///
/// Guarantees, the same on both schemes:
/// - the timeout is a **total** deadline per request (`CURLOPT_TIMEOUT_MS`): connect, TLS, head,
///   body and trailers, so a one-byte drip, endless 1xx answers or endless trailers stop there;
/// - cancelling the task (Ctrl-C) aborts the transfer at once;
/// - the body limit counts **decoded** bytes (libcurl decodes gzip/deflate/br/zstd before the
///   write callback); past it the transfer is aborted, so a compression bomb never fills memory;
///   head, 1xx answers and trailers together are bounded by `maxHeadBytes`;
/// - redirects are followed here, not by libcurl (it would send our `token` header along):
///   same origin only, anything else fails with `.redirectRefused` before a byte goes there;
/// - a header value holding CR or LF is refused before sending;
/// - a loopback backend (the sandbox, a local TLS terminator) is reached directly, never through a
///   proxy; others use the proxies libcurl reads from `http_proxy` / `https_proxy` / `all_proxy` /
///   `no_proxy`, and a failure at the proxy names the proxy (`ProxyChoice`);
/// - every socket is opened close-on-exec, so no child inherits a connection;
/// - plain `http://` connects only to a loopback **address**, checked on the resolved address
///   before the socket is opened (unless `allowPlainHTTPOffLoopback`, i.e. `--insecure-http`).
///   Through a proxy the check applies to the proxy's address, where the plain bytes go; the
///   target's name is checked by `APIConfiguration` as before.
/// - TLS is always verified; `trust` says which CAs.
public struct CurlTransport: HTTPTransport {
    /// 32 MiB: the largest real answer, an order page, is kilobytes.
    public static let defaultMaxBodyBytes = 32 << 20
    /// Bound on the bytes of one response's head, its 1xx answers and its trailers together.
    public static let maxHeadBytes = 64 << 10
    static let maxRedirects = 10
    /// Longer timeouts (`--timeout 1e11`) wait this long (about 31 years): libcurl takes milliseconds in a long.
    static let longestTimeout: TimeInterval = 1e9

    /// Which CAs TLS trusts, worked out on the first request (it reads the certificate folders), so
    /// a start that sends nothing does no trust I/O.
    public var trust: TrustStore { trustSource.value }
    private let trustSource: LazyTrust
    public let allowPlainHTTPOffLoopback: Bool
    /// Total time allowed per request; nil means the request's own `timeout`.
    public let totalTimeout: TimeInterval?
    public let maxBodyBytes: Int
    /// `CURLOPT_RESOLVE` entries (`host:port:address`): lets tests give a name an address without DNS.
    let resolve: [String]
    /// Seconds after which a connection is not used again, whatever its use (`CURLOPT_MAXLIFETIME_CONN`);
    /// nil: as long as the server keeps it. The connection holder sets it (`ConnectionHolder`).
    let connectionLifetime: Int?

    public init(
        trust: TrustStore = .system(), allowPlainHTTPOffLoopback: Bool = false, totalTimeout: TimeInterval? = nil,
        maxBodyBytes: Int = CurlTransport.defaultMaxBodyBytes
    ) {
        self.init(trust: trust, allowPlainHTTPOffLoopback: allowPlainHTTPOffLoopback, totalTimeout: totalTimeout,
                  maxBodyBytes: maxBodyBytes, resolve: [])
    }

    /// The trust is resolved by `trust` on the first request (the app passes `TrustStore.resolve`).
    public init(resolvingTrust: @escaping @Sendable () -> TrustStore, allowPlainHTTPOffLoopback: Bool = false) {
        self.init(source: LazyTrust(resolvingTrust), allowPlainHTTPOffLoopback: allowPlainHTTPOffLoopback, totalTimeout: nil,
                  maxBodyBytes: CurlTransport.defaultMaxBodyBytes, resolve: [])
    }

    init(trust: TrustStore, allowPlainHTTPOffLoopback: Bool, totalTimeout: TimeInterval?, maxBodyBytes: Int, resolve: [String],
         connectionLifetime: Int? = nil) {
        self.init(source: LazyTrust { trust }, allowPlainHTTPOffLoopback: allowPlainHTTPOffLoopback, totalTimeout: totalTimeout,
                  maxBodyBytes: maxBodyBytes, resolve: resolve, connectionLifetime: connectionLifetime)
    }

    private init(source: LazyTrust, allowPlainHTTPOffLoopback: Bool, totalTimeout: TimeInterval?, maxBodyBytes: Int, resolve: [String],
                 connectionLifetime: Int? = nil) {
        self.trustSource = source
        self.allowPlainHTTPOffLoopback = allowPlainHTTPOffLoopback
        self.totalTimeout = totalTimeout
        self.maxBodyBytes = maxBodyBytes
        self.resolve = resolve
        self.connectionLifetime = connectionLifetime
    }

    /// Loads libcurl and starts the engine on a thread of its own, now: a one-shot that is about to send
    /// its first request overlaps that load (≈ 30 libraries and OpenSSL's set-up) with its own start
    /// instead of waiting for it at the request. Idempotent; a libcurl that cannot be loaded is reported
    /// by the request, as without this.
    public static func prepareEngine() {
        // The load runs on a plain C thread (CCurl): a Foundation thread began running its closure
        // 0.6-2 ms after the call. The engine is made on that same thread once the load is done, and
        // its loop runs there: a thread started here for it would wait in pthread_create for most of the
        // load (the loader holds glibc's TLS lock meanwhile), and hold up this one, the command's start.
        _ = CurlEngine.startLoading()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if Task.isCancelled { throw TransportError.cancelled }
        var chain = RedirectChain(request, seconds: totalTimeout ?? request.timeout)
        while true {
            let (current, left) = try chain.next()
            let response: HTTPResponse
            do {
                let engine = try CurlEngine.shared()
                response = try await CurlTransfer(request: current, seconds: left, options: self, engine: engine).run(on: engine)
            } catch TransportError.network(.timedOut) {
                throw chain.timedOut
            }
            if try !chain.follow(response) { return response }
        }
    }

    /// `send` for a plain thread that waits (the connection holder's workers): the same transfers and
    /// redirects, with no task; `abandoned` is asked every 50 ms and cancels the transfer when true.
    public func sendWaiting(_ request: HTTPRequest, abandoned: () -> Bool) throws(TransportError) -> HTTPResponse {
        var chain = RedirectChain(request, seconds: totalTimeout ?? request.timeout)
        while true {
            let (current, left) = try chain.next()
            let response: HTTPResponse
            do throws(TransportError) {
                let engine = try CurlEngine.shared()
                response = try CurlTransfer(request: current, seconds: left, options: self, engine: engine).runWaiting(on: engine, abandoned: abandoned)
            } catch {
                if case .network(.timedOut) = error { throw chain.timedOut }
                throw error
            }
            if try !chain.follow(response) { return response }
        }
    }
}

/// One request and the redirects it leads to: same origin only, at most `CurlTransport.maxRedirects`,
/// all within the one deadline; a 303 (and a 301/302 after a POST) goes on as a GET without a body.
struct RedirectChain {
    private let seconds: Double
    private let started = ContinuousClock.now
    private let origin: Origin
    private var current: HTTPRequest
    private var redirects = 0

    init(_ request: HTTPRequest, seconds: Double) {
        self.seconds = seconds
        origin = Origin(request.url)
        current = request
    }

    /// The whole chain's time ran out.
    var timedOut: TransportError { .network(.timedOut(seconds: seconds)) }

    /// The request to send now, with the time left for it.
    func next() throws(TransportError) -> (HTTPRequest, Double) {
        let left = seconds - (ContinuousClock.now - started).seconds
        guard left > 0 else { throw timedOut }
        return (current, left)
    }

    /// True when `response` is a redirect to follow (the next request is then ready); false when it is the answer.
    mutating func follow(_ response: HTTPResponse) throws(TransportError) -> Bool {
        guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["Location"],
              let target = URL(string: location, relativeTo: current.url)?.absoluteURL
        else { return false }
        // A redirect past the last one followed is a loop, said as one, not taken for the answer.
        guard redirects < CurlTransport.maxRedirects else { throw .tooManyRedirects(count: redirects) }
        guard Origin(target) == origin else { throw .redirectRefused(location: Origin(target).description) }
        redirects += 1
        if response.status == 303 || (response.status <= 302 && current.method == "POST") {
            current.method = "GET"
            current.body = []
        }
        current.url = target
        return true
    }
}

/// Scheme, host and port of a URL (default ports filled in) — redirects must keep all three.
struct Origin: Equatable, Sendable, CustomStringConvertible {
    var scheme: String
    var host: String
    var port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }

    var description: String { "\(scheme)://\(host):\(port)" }
}

/// A trust store worked out once, when first asked for.
private final class LazyTrust: @unchecked Sendable {
    private let lock = Lock()
    private var resolved: TrustStore?
    private let resolver: @Sendable () -> TrustStore

    init(_ resolver: @escaping @Sendable () -> TrustStore) { self.resolver = resolver }

    var value: TrustStore {
        lock.withLock {
            if let resolved { return resolved }
            let made = resolver()
            resolved = made
            return made
        }
    }
}
