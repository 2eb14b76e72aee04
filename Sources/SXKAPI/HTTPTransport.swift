import FoundationEssentials
import SXKCore

/// Ordered HTTP header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [HTTPField]

    public init(_ fields: [HTTPField] = []) { self.fields = fields }
    public init(_ pairs: [(String, String)]) { self.fields = pairs.map { HTTPField(name: $0.0, value: $0.1) } }

    /// First value for `name` (case-insensitive); setting replaces every field of that name.
    public subscript(name: String) -> String? {
        get { fields.first { Self.sameName($0.name, name) }?.value }
        set {
            let index = fields.firstIndex { Self.sameName($0.name, name) }
            fields.removeAll { Self.sameName($0.name, name) }
            if let newValue { fields.insert(HTTPField(name: name, value: newValue), at: Swift.min(index ?? fields.count, fields.count)) }
        }
    }

    public mutating func append(_ name: String, _ value: String) { fields.append(HTTPField(name: name, value: value)) }

    /// Field names are ASCII tokens: compare bytes, folding A–Z, without Foundation's locale machinery.
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }
    public func makeIterator() -> IndexingIterator<[HTTPField]> { fields.makeIterator() }
}

public struct HTTPField: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) { self.name = name; self.value = value }
}

/// One request as bytes on the wire will carry it.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var url: URL
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var timeout: TimeInterval
    /// Values this request carries under secret names (the tokens, a password, a secret-named query
    /// value or header), never sent as such: what records the answer masks them in it.
    public var secrets: [String] = []
    /// Whether it carries a secret the user gave for it (a password, a secret-named value typed into
    /// `get`/`post`), not only the session's token: such a request is never handed to the connection
    /// holder, whose memory outlives the one-shot (`KeptConnectionTransport`).
    public var carriesTypedSecret = false

    public init(method: String, url: URL, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], timeout: TimeInterval = APIConfiguration.defaultTimeout) {
        self.method = method; self.url = url; self.headers = headers; self.body = body; self.timeout = timeout
    }
}

/// One response: status, headers and the body exactly as received.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// How the transfer went on the wire (protocol, reuse, phase times); nil from transports that
    /// cannot tell (test closures).
    public var metrics: TransferMetrics?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], metrics: TransferMetrics? = nil) {
        self.status = status; self.headers = headers; self.body = body; self.metrics = metrics
    }

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), text: String) {
        self.init(status: status, headers: headers, body: Array(text.utf8))
    }
}

/// The wire facts of one transfer, for `--trace`, `timing on` and HAR export. Times are seconds
/// from the start of the transfer (libcurl's `CURLINFO_*_TIME_T` convention: each is cumulative,
/// so `tlsDone >= connected >= dnsDone`); a phase that did not happen (a reused connection has no
/// DNS, connect or TLS) has the previous phase's time.
public struct TransferMetrics: Sendable, Equatable {
    /// "h2", "http/1.1" or "http/1.0".
    public var httpVersion: String
    /// True when the request went over a connection that was already open.
    public var connectionReused: Bool
    /// The peer's address and port as connected, e.g. "127.0.0.1:8443".
    public var remoteAddress: String?
    public var dnsDone: Double
    public var connected: Double
    /// When the TLS handshake finished (equal to `connected` for plain http or a reused connection).
    public var tlsDone: Double
    /// When the first byte of the response arrived.
    public var firstByte: Double
    public var total: Double
    /// Bytes of the request as sent (head and body) and of the response body as decoded.
    public var requestBytes: Int
    public var responseBodyBytes: Int
    /// True when the request went through the profile's connection holder (`KeptConnection`):
    /// the other fields are the holder's transfer.
    public var keptConnection = false

    public init(
        httpVersion: String, connectionReused: Bool, remoteAddress: String? = nil, dnsDone: Double, connected: Double,
        tlsDone: Double, firstByte: Double, total: Double, requestBytes: Int = 0, responseBodyBytes: Int = 0
    ) {
        self.httpVersion = httpVersion; self.connectionReused = connectionReused; self.remoteAddress = remoteAddress
        self.dnsDone = dnsDone; self.connected = connected; self.tlsDone = tlsDone; self.firstByte = firstByte
        self.total = total; self.requestBytes = requestBytes; self.responseBodyBytes = responseBodyBytes
    }
}

/// Sends bytes and returns bytes; the client above it knows nothing of libcurl (tests swap it).
public protocol HTTPTransport: Sendable {
    /// Throws `TransportError` for failures it understands; anything else is reported as a network failure.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Why a request got no usable response. The client wraps it once into `APIError` with method and path.
public enum TransportError: Error, Sendable, Equatable, Codable {
    case network(NetworkFailure)
    case cancelled
    /// A redirect to another origin (scheme, host or port) was refused so the token would not follow it.
    case redirectRefused(location: String)
    /// Still redirected after `count` redirects (a loop): stopped there.
    case tooManyRedirects(count: Int)
    /// The status and head arrived, then the connection closed before the whole body: what arrived is kept.
    case truncatedBody(status: Int, received: [UInt8])
    /// An answer that cannot be read as HTTP (a malformed head, a head, 1xx answers or trailers over
    /// the limit, a Content-Encoding that cannot be decoded): the server's fault, not the network's.
    case unreadable(reason: String)
    /// The body (announced or received) passed `limit` bytes; reading stopped there.
    case bodyTooLarge(status: Int, limit: Int)
    /// Plain http whose host resolved to `address`, off loopback, without `--insecure-http`: nothing was sent.
    case plainHTTPRefused(host: String, address: String)
    /// The same through a proxy: the proxy (from the environment) resolved to `address`, off loopback.
    case proxyRefused(proxy: String, address: String)
}

/// What kind of network failure happened, so the message can say which.
public enum NetworkFailure: Sendable, Equatable, Codable, CustomStringConvertible {
    case timedOut(seconds: Double)
    case connectionRefused
    case hostNotFound
    case unreachable(String)
    case connectionLost
    case tls(String)
    /// Certificate verification failed; verification is never turned off.
    case certificate(CertificateProblem)
    case other(String)

    public var description: String {
        switch self {
        case .timedOut(let s): return "timed out after \(JSONWriterFormat.seconds(s)) s"
        case .connectionRefused: return "connection refused"
        case .hostNotFound: return "host not found"
        case .unreachable(let detail): return "network unreachable (\(detail))"
        case .connectionLost: return "connection lost"
        case .tls(let detail): return "TLS failure (\(detail))"
        case .certificate(let problem): return "TLS: \(problem)"
        case .other(let detail): return detail
        }
    }
}

/// Why the server's certificate was refused, from OpenSSL's verify result (one line says which).
public enum CertificateProblem: Sendable, Equatable, Codable, CustomStringConvertible {
    case selfSigned
    case expired
    case notYetValid
    case wrongName(host: String)
    case unknownCA
    case other(String)

    public var description: String {
        switch self {
        case .selfSigned: return "server certificate is self-signed (not trusted)"
        case .expired: return "server certificate has expired"
        case .notYetValid: return "server certificate is not valid yet"
        case .wrongName(let host): return "server certificate is not for \(host)"
        case .unknownCA: return "server certificate is signed by an unknown CA (a private CA needs --cacert)"
        case .other(let detail): return "server certificate refused (\(detail))"
        }
    }
}

enum JSONWriterFormat {
    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? String(Int(s)) : NumberText.fixed(s, digits: 1)
    }
}

/// A transport backed by a closure, for unit tests and for wrapping another transport.
public struct ClosureTransport: HTTPTransport {
    private let handler: @Sendable (HTTPRequest) async throws -> HTTPResponse

    public init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) { self.handler = handler }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await handler(request) }
}
