import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Connections kept for the next process, as ssh's ControlPersist keeps one.
///
/// With a persist time set, a one-shot sends its requests through a small holder process of the same
/// user, found by a unix socket in the profile's 0700 state folder. The holder runs the same libcurl
/// transport as any sxk, so its connections (TLS done) stay open between one-shots, and a later one
/// pays one round trip instead of TCP, TLS and the request. The holder:
/// - serves only peers of its own uid (`SO_PEERCRED`), and only a client of the same build and the
///   same proxy and trust environment (the hello says which; anything else is refused);
/// - holds nothing but connections: no token, no file; the socket it listens on is made by the
///   one-shot that starts it and handed over as a descriptor;
/// - exits once it has been idle for its persist time, or when asked to (`SXK_PERSIST=0`).
///
/// Whatever goes wrong on the way to it — no socket, a stale one, a full or stuck one, a holder of another
/// build, one that dies mid-request — the request is sent directly by this process, and only `--trace`
/// says so. A request is taken on in two steps: the holder says `sending` (ready) and sends nothing until
/// the client answers `go`, so a client that gave up waiting can send directly without the request going
/// twice. The one exception: a holder that ends after the client's `go` may have sent the request, so only
/// one that is safe to repeat (`GET`, `HEAD`) is sent again; any other is an error.
public enum KeptConnection {
    /// The socket's name in the profile's state folder.
    public static let socketName = "connections.sock"
    /// The argument that makes `sxk` a holder (never typed by a person: the one-shot passes it).
    public static let holderArgument = "__hold-connections"
    static let magic: [UInt8] = Array("SXKH".utf8)
    static let protocolVersion: UInt32 = 3
    /// Versions whose holders read only their own stop frame: `stopHolder` sends theirs too.
    static let olderVersions: [UInt32] = [2]
    /// The client's frame that lets the holder send the request it said `sending` to.
    static let go: [UInt8] = Array("go".utf8)
    /// How long a client waits for the holder's first answer (`sending`, or a refusal), which a holder
    /// that is not stuck gives at once; past it the request goes directly.
    static let answerWait = 3.0

    /// The environment variables that change what libcurl, OpenSSL or the resolver do for a request:
    /// proxies, CA files, OpenSSL's configuration (protocol floor, providers), the TLS key log (a file
    /// the holder would write for every client), and host aliases. The holder keeps its starter's.
    static let identityVariables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
                                    "SSL_CERT_FILE", "SSL_CERT_DIR", "OPENSSL_CONF", "OPENSSL_MODULES", "OPENSSL_ENGINES", "SSLKEYLOGFILE",
                                    "HOSTALIASES", "LOCALDOMAIN", "RES_OPTIONS"]

    /// The variables of `identityVariables` that name a file or folder read or written as given (the
    /// CA variables are not: `TrustStore.resolve` makes them absolute before libcurl sees them).
    static let pathVariables = ["OPENSSL_CONF", "OPENSSL_MODULES", "OPENSSL_ENGINES", "SSLKEYLOGFILE", "HOSTALIASES"]

    /// The first of `pathVariables` set to a relative path, which the holder (running in `/`) would
    /// read or write elsewhere; nil when there is none.
    public static func relativePathVariable(_ environment: [String: String]) -> String? {
        for name in pathVariables {
            guard let value = environment[name], !value.isEmpty else { continue }
            if value.split(separator: ":").contains(where: { !$0.hasPrefix("/") }) { return name }
        }
        return nil
    }

    /// What a client and a holder must share to talk: the build (version and the executable's size and
    /// time) and every environment variable in `identityVariables`.
    public static func identity(version: String, environment: [String: String]) -> String {
        var st = stat()
        let exe = stat("/proc/self/exe", &st) == 0 ? "\(st.st_size).\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)" : "?"
        let keys = identityVariables
        // Appended one by one: `joined` on an array of strings goes through the standard library's
        // generic code, whose first use looks across every conformance record of the binary.
        var identity = "\(version)/\(protocolVersion)/\(exe)/"
        for (i, key) in keys.enumerated() { identity += (i == 0 ? "" : "\u{1}") + key + "=" + (environment[key] ?? "") }
        return identity
    }
}

// MARK: - Frames

/// Length-prefixed fields, little-endian: what goes over the holder's socket.
struct FrameWriter {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func i64(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func f64(_ v: Double) { i64(Int64(bitPattern: v.bitPattern)) }
    mutating func blob(_ b: [UInt8]) { u32(UInt32(b.count)); bytes += b }
    mutating func string(_ s: String) { blob(Array(s.utf8)) }
    mutating func optional(_ s: String?) { u8(s == nil ? 0 : 1); string(s ?? "") }
    mutating func headers(_ h: HTTPHeaders) {
        u32(UInt32(h.fields.count))
        for f in h.fields { string(f.name); string(f.value) }
    }
}

struct FrameReader {
    struct Short: Error {}
    let bytes: [UInt8]
    var at = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
        guard n >= 0, bytes.count - at >= n else { throw Short() }
        defer { at += n }
        return bytes[at..<(at + n)]
    }
    mutating func u8() throws -> UInt8 { try take(1).first! }
    mutating func u32() throws -> UInt32 { try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    mutating func i64() throws -> Int64 { Int64(bitPattern: try take(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }
    mutating func f64() throws -> Double { Double(bitPattern: UInt64(bitPattern: try i64())) }
    mutating func blob() throws -> [UInt8] { Array(try take(Int(try u32()))) }
    mutating func string() throws -> String { String(decoding: try blob(), as: UTF8.self) }
    mutating func optional() throws -> String? { let has = try u8(); let s = try string(); return has == 1 ? s : nil }
    mutating func headers() throws -> HTTPHeaders {
        let n = Int(try u32())
        // As many fields as a head can hold (each takes at least eight bytes here): the frame's own
        // length already bounds what this reads.
        guard n <= CurlTransport.maxHeadBytes else { throw Short() }
        var fields: [HTTPField] = []
        for _ in 0..<n { fields.append(HTTPField(name: try string(), value: try string())) }
        return HTTPHeaders(fields)
    }
}

/// One request to the holder: the hello, the transport's options and the request itself.
struct HeldRequest {
    enum Kind: UInt8 { case send = 1, stop = 2 }
    var kind: Kind
    var identity: String
    var request: HTTPRequest
    var caFile: String?
    var caDirectory: String?
    var allowPlainHTTPOffLoopback: Bool
    var totalTimeout: Double?
    var maxBodyBytes: Int

    func encoded() -> [UInt8] {
        var w = FrameWriter()
        w.bytes += KeptConnection.magic
        w.u32(KeptConnection.protocolVersion)
        w.u8(kind.rawValue)
        w.string(identity)
        w.string(request.method)
        w.string(request.url.absoluteString)
        w.headers(request.headers)
        w.blob(request.body)
        w.f64(request.timeout)
        w.optional(caFile)
        w.optional(caDirectory)
        w.u8(allowPlainHTTPOffLoopback ? 1 : 0)
        w.u8(totalTimeout == nil ? 0 : 1)
        w.f64(totalTimeout ?? 0)
        w.i64(Int64(maxBodyBytes))
        return w.bytes
    }

    /// nil when the bytes are not this protocol (another build, garbage). A stop is read from any version
    /// (its layout, the magic, a version, the kind, has not changed): any sxk of this user can stop a holder.
    static func decode(_ bytes: [UInt8]) -> (kind: Kind, identity: String, rest: FrameReader)? {
        var r = FrameReader(bytes)
        guard (try? r.take(4)).map(Array.init) == KeptConnection.magic, let version = try? r.u32(),
              let kind = (try? r.u8()).flatMap(Kind.init(rawValue:)) else { return nil }
        if kind == .stop { return (kind, "", r) }
        guard version == KeptConnection.protocolVersion, let identity = try? r.string() else { return nil }
        return (kind, identity, r)
    }

    static func decodeSend(kind: Kind, identity: String, _ r: inout FrameReader) throws -> HeldRequest {
        let method = try r.string()
        guard let url = URL(string: try r.string()) else { throw FrameReader.Short() }
        let headers = try r.headers()
        let body = try r.blob()
        let timeout = try r.f64()
        let caFile = try r.optional(), caDirectory = try r.optional()
        let plain = try r.u8() == 1
        let hasTotal = try r.u8() == 1
        let total = try r.f64()
        let maxBody = Int(try r.i64())
        return HeldRequest(kind: kind, identity: identity, request: HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: timeout),
                           caFile: caFile, caDirectory: caDirectory, allowPlainHTTPOffLoopback: plain,
                           totalTimeout: hasTotal ? total : nil, maxBodyBytes: maxBody)
    }
}

/// The holder's answer: a response, the transport's error, or a refusal (the client then goes direct).
/// Before a request it takes on, the holder sends `sending` and waits for the client's `go`: from that
/// `go` on, the request may have reached the server.
enum HeldAnswer {
    case response(HTTPResponse)
    case failure(TransportError)
    case refused(String)
    case sending

    func encoded() -> [UInt8] {
        var w = FrameWriter()
        switch self {
        case .response(let r):
            w.u8(0)
            w.u32(UInt32(clamping: r.status))
            w.headers(r.headers)
            w.blob(r.body)
            if let m = r.metrics {
                w.u8(1)
                w.string(m.httpVersion); w.u8(m.connectionReused ? 1 : 0); w.optional(m.remoteAddress)
                for t in [m.dnsDone, m.connected, m.tlsDone, m.firstByte, m.total] { w.f64(t) }
                w.i64(Int64(m.requestBytes)); w.i64(Int64(m.responseBodyBytes))
            } else {
                w.u8(0)
            }
        case .failure(let error):
            w.u8(1)
            w.blob((try? JSONEncoder().encode(error)).map(Array.init) ?? [])
        case .refused(let why):
            w.u8(2)
            w.string(why)
        case .sending:
            w.u8(3)
        }
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> HeldAnswer {
        var r = FrameReader(bytes)
        switch try r.u8() {
        case 0:
            let status = Int(try r.u32())
            let headers = try r.headers()
            let body = try r.blob()
            var metrics: TransferMetrics?
            if try r.u8() == 1 {
                let version = try r.string(), reused = try r.u8() == 1, address = try r.optional()
                let t = try (0..<5).map { _ in try r.f64() }
                let sent = Int(try r.i64()), received = Int(try r.i64())
                metrics = TransferMetrics(httpVersion: version, connectionReused: reused, remoteAddress: address, dnsDone: t[0], connected: t[1],
                                          tlsDone: t[2], firstByte: t[3], total: t[4], requestBytes: sent, responseBodyBytes: received)
                metrics?.keptConnection = true
            }
            return .response(HTTPResponse(status: status, headers: headers, body: body, metrics: metrics))
        case 1:
            let error = try JSONDecoder().decode(TransportError.self, from: Data(try r.blob()))
            return .failure(error)
        case 2:
            return .refused(try r.string())
        case 3:
            return .sending
        default:
            throw FrameReader.Short()
        }
    }
}

// MARK: - Sockets

/// Unix-socket I/O with a cancel descriptor: every wait is a `poll` on the socket and the cancel pipe, so
/// Ctrl-C ends a request to the holder at once. Deadlines are on the monotonic clock (`now`).
enum HolderSocket {
    /// How long a frame arriving at a client may pause past the client's deadline (`readFrame`).
    static let progressGrace = 1.0

    /// Seconds on the monotonic clock: a wall clock set back or forward moves no deadline.
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The system's error number, when a call failed.
        var code: Int32 = 0
        init(_ d: String, code: Int32 = 0) { description = d; self.code = code }
        static func errno(_ what: String) -> Failure {
            let code = Glibc.errno
            return Failure("\(what): \(String(cString: strerror(code)))", code: code)
        }
        /// A listener is there but its queue is full: a live holder, not a stale socket.
        var isBusy: Bool { code == EAGAIN }
    }

    /// A `sockaddr_un` for `path`; a path too long for one goes through the folder's descriptor
    /// (`/proc/self/fd/N/name`), which `folderFD` must hold open meanwhile.
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T? {
        var folderFD: Int32 = -1
        defer { if folderFD >= 0 { close(folderFD) } }
        var target = path
        if path.utf8.count >= 100 {
            let folder = PathText.folder(of: path)
            folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folderFD >= 0 else { return nil }
            target = "/proc/self/fd/\(folderFD)/" + PathText.name(of: path)
        }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(target.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Never waits: a unix socket whose listener's queue is full (a holder that stopped taking clients)
    /// fails at once with `EAGAIN` instead of blocking until someone takes the connection.
    static func connect(_ path: String) throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .errno("socket") }
        let rc = withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard rc == 0 else {
            let e = Failure.errno("connect")
            close(fd)
            throw e
        }
        return fd
    }

    /// A listening socket bound at `path` (fails when one is there already).
    static func listen(_ path: String) throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .errno("socket") }
        let rc = withAddress(path) { Glibc.bind(fd, $0, $1) }
        guard rc == 0, Glibc.listen(fd, 64) == 0 else {
            let e = Failure.errno("bind")
            close(fd)
            throw e
        }
        return fd
    }

    /// The process id and uid at the other end, as the kernel took them at connect/listen time.
    static func peer(_ fd: Int32) -> (pid: pid_t, uid: uid_t)? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
        var cred: (Int32, UInt32, UInt32) = (0, 0, 0)
        var len = socklen_t(MemoryLayout.size(ofValue: cred))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 else { return nil }
        return (cred.0, cred.1)
    }

    /// Waits until `fd` is ready for `events` or `cancel` is readable; false when cancelled. Past the
    /// deadline what is there already still counts: a process suspended past it (Ctrl-Z, a laptop
    /// asleep) reads the answer that arrived meanwhile instead of taking the request for lost.
    static func wait(_ fd: Int32, _ events: Int16, cancel: Int32, deadline: Double) throws(Failure) -> Bool {
        while true {
            var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: cancel, events: Int16(POLLIN), revents: 0)]
            let left = deadline - now()
            let rc = poll(&fds, nfds_t(cancel >= 0 ? 2 : 1), left > 0 ? Int32(min(left * 1000 + 1, 1e9)) : 0)
            if rc < 0 { if errno == EINTR { continue }; throw .errno("poll") }
            if cancel >= 0 && fds[1].revents != 0 { return false }
            if fds[0].revents != 0 { return true }
            if left <= 0 { throw Failure("timed out") }
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], cancel: Int32 = -1, deadline: Double) throws(Failure) -> Bool {
        var framed = FrameWriter()
        framed.blob(bytes)
        var at = 0
        let all = framed.bytes
        while at < all.count {
            guard try wait(fd, Int16(POLLOUT), cancel: cancel, deadline: deadline) else { return false }
            let n = all.withUnsafeBytes { send(fd, $0.baseAddress! + at, all.count - at, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; throw .errno("send") }
            at += n
        }
        return true
    }

    /// One length-prefixed frame; nil when cancelled. `limit` bounds what a peer can make us hold, and the
    /// buffer grows as bytes come, so a length alone makes no one hold memory. With a `grace` (the client's
    /// `progressGrace`; the holder's reads have none), a frame still arriving past the deadline is read on
    /// while each part comes within it: an answer larger than the socket's buffer is written as the reader
    /// drains it, so a reader suspended past its deadline (Ctrl-Z) finds only its first part waiting.
    static func readFrame(_ fd: Int32, cancel: Int32 = -1, deadline: Double, limit: Int, grace: Double = 0) throws(Failure) -> [UInt8]? {
        var deadline = deadline
        func read(_ count: Int) throws(Failure) -> [UInt8]? {
            var out: [UInt8] = []
            out.reserveCapacity(min(count, 1 << 20))
            var chunk = [UInt8](repeating: 0, count: min(max(count, 1), 256 << 10))
            while out.count < count {
                guard try wait(fd, Int16(POLLIN), cancel: cancel, deadline: deadline) else { return nil }
                let want = min(chunk.count, count - out.count)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, want, 0) }
                if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; throw .errno("recv") }
                if n == 0 { throw Failure("the holder closed the connection") }
                out += chunk[..<n]
                if grace > 0 { deadline = max(deadline, now() + grace) }
            }
            return out
        }
        guard let head = try read(4) else { return nil }
        let length = Int(head.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard length <= limit else { throw Failure("frame of \(length) bytes") }
        return try read(length)
    }
}

// MARK: - The client side

/// A transport that sends through the profile's holder and falls back to `direct` on anything that
/// goes wrong on the way; the first request of a process with no holder starts one.
public final class KeptConnectionTransport: HTTPTransport, @unchecked Sendable {
    public let direct: CurlTransport
    public let socketPath: String
    public let seconds: Double
    let identity: String
    let trace: @Sendable (String) -> Void
    private let lock = Lock()
    private var startedHolder = false

    /// `seconds` is the persist time; `trace` receives a line for each fallback (shown by `--trace` only).
    public init(direct: CurlTransport, socketPath: String, seconds: Double, identity: String, trace: @escaping @Sendable (String) -> Void) {
        self.direct = direct
        self.socketPath = socketPath
        self.seconds = seconds
        self.identity = identity
        self.trace = trace
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if Task.isCancelled { throw TransportError.cancelled }
        // A password (a login) or another secret typed for this request stays in this process, whose
        // memory ends with it; the holder's lives on for the persist time.
        if request.carriesTypedSecret {
            trace("* kept connection not used (the request carries a password or another secret given for it): sending directly")
            return try await direct.send(request)
        }
        let started = HolderSocket.now()
        switch await throughHolder(request) {
        case .answered(let response): return response
        case .failed(let error): throw error
        case .cancelled: throw TransportError.cancelled
        case .unavailable(let why):
            trace("* kept connection not used (\(why)): sending directly")
            // In the time left of the request's own: a stuck holder's wait is not added to it.
            return try await directly(request, left: request.timeout - (HolderSocket.now() - started))
        case .resend(let why, let left):
            trace("* kept connection lost after the holder took the request on (\(why)): \(request.method) sent again directly")
            return try await directly(request, left: left)
        case .lost(let why):
            trace("* kept connection lost after the holder took the request on (\(why)): \(request.method) not sent again")
            throw TransportError.network(.other(
                "the connection holder failed during the request (\(why)), which may have reached the server: not sent again"))
        }
    }

    /// `request` sent directly in the `left` seconds of its time; a timeout is said as the request's whole.
    private func directly(_ request: HTTPRequest, left: Double) async throws -> HTTPResponse {
        guard left > 0 else { throw TransportError.network(.timedOut(seconds: request.timeout)) }
        var again = request
        again.timeout = left
        do {
            return try await direct.send(again)
        } catch TransportError.network(.timedOut) {
            throw TransportError.network(.timedOut(seconds: request.timeout))
        }
    }

    enum Outcome {
        case answered(HTTPResponse)
        case failed(TransportError)
        case cancelled
        /// The holder never took the request on: sending it directly cannot send it twice.
        case unavailable(String)
        /// The holder took a request that is safe to repeat on and then failed: it goes again, directly, in
        /// the seconds left of its time.
        case resend(String, left: Double)
        /// The holder took a request that is not safe to repeat on and then failed: it may have been sent.
        case lost(String)
    }

    /// Requests that may be sent twice without harm (RFC 9110's safe methods the shell sends).
    static func isSafeToRepeat(_ method: String) -> Bool { ["GET", "HEAD"].contains(method.uppercased()) }

    private func held(_ request: HTTPRequest) -> HeldRequest {
        let trust = direct.trust
        return HeldRequest(kind: .send, identity: identity, request: request, caFile: trust.caFile, caDirectory: trust.caDirectory,
                           allowPlainHTTPOffLoopback: direct.allowPlainHTTPOffLoopback, totalTimeout: direct.totalTimeout,
                           maxBodyBytes: direct.maxBodyBytes)
    }

    func throughHolder(_ request: HTTPRequest) async -> Outcome {
        let frame = held(request).encoded()
        // A failure carries what arrived of a cut-off body, JSON-encoded (up to four bytes for each).
        let limit = 4 * direct.maxBodyBytes + CurlTransport.maxHeadBytes + (1 << 16)
        let path = socketPath, seconds = self.seconds
        let repeatable = Self.isSafeToRepeat(request.method)
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { return .unavailable("pipe: \(String(cString: strerror(errno)))") }
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (cancelRead, cancelWrite) = (pipeFDs[0], pipeFDs[1])
        defer { close(cancelRead); close(cancelWrite) }
        let start: @Sendable () -> Bool = { [weak self] in self?.startHolderOnce() ?? false }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Outcome, Never>) in
                // A thread of its own: the waits block, and the cooperative pool must not.
                let created = DetachedThread.start(name: "sxk.kept", stackSize: 256 << 10) {
                    done.resume(returning: Self.exchange(frame, repeatable: repeatable, path: path, cancel: cancelRead,
                                                         timeout: request.timeout, limit: limit, seconds: seconds, start: start))
                }
                if created != 0 { done.resume(returning: .unavailable("no thread for the exchange: \(String(cString: strerror(created)))")) }
            }
        } onCancel: {
            var one: UInt8 = 1
            _ = write(cancelWrite, &one, 1)
        }
    }

    /// Connects (starting a holder when there is none), sends, and reads the answer. `repeatable`: the
    /// request may be sent again directly even after the holder took it on.
    static func exchange(_ frame: [UInt8], repeatable: Bool, path: String, cancel: Int32, timeout: Double, limit: Int, seconds: Double,
                         start: () -> Bool) -> Outcome {
        let fd: Int32
        do {
            fd = try HolderSocket.connect(path)
        } catch {
            if error.isBusy { return .unavailable("the holder is not taking clients: \(error)") }
            guard start() else { return .unavailable("no holder: \(error)") }
            do { fd = try HolderSocket.connect(path) } catch { return .unavailable("holder just started: \(error)") }
        }
        defer { close(fd) }
        // Whoever listens there must be this user too.
        guard HolderSocket.peer(fd)?.uid == getuid() else { return .unavailable("the socket's listener is another user") }
        // A holder answers the request's frame at once (`sending` or a refusal); a stuck one is left after
        // `answerWait`, or a third of the request's time when that is shorter, so the direct request
        // still has the rest. Once it may send, the request has its own time (and the holder's reply some more).
        let started = HolderSocket.now()
        var deadline = started + min(timeout / 3, KeptConnection.answerWait)
        var takenOn = false
        // Past the client's `go`, a failure may follow a request that reached the server.
        func broken(_ why: String) -> Outcome {
            guard takenOn else { return .unavailable(why) }
            return repeatable ? .resend(why, left: started + timeout - HolderSocket.now()) : .lost(why)
        }
        do {
            guard try HolderSocket.writeAll(fd, frame, cancel: cancel, deadline: deadline) else { return .cancelled }
            while true {
                guard let bytes = try HolderSocket.readFrame(fd, cancel: cancel, deadline: deadline, limit: limit,
                                                             grace: HolderSocket.progressGrace) else { return .cancelled }
                switch try HeldAnswer.decode(bytes) {
                case .sending where !takenOn:
                    // The holder's transfer ends by the request's time; a second more for its answer to arrive.
                    deadline = HolderSocket.now() + timeout + 1
                    // Delivered or not at all (a failed send on a unix socket queues nothing): only a `go`
                    // the holder can read lets it send.
                    guard try HolderSocket.writeAll(fd, KeptConnection.go, cancel: cancel, deadline: deadline) else { return .cancelled }
                    takenOn = true
                case .sending: return broken("holder sent two starts")
                case .response(let response): return .answered(response)
                case .failure(let error): return .failed(error)
                // A holder refuses only before it has read a `go`: one that gave up waiting for it says so.
                case .refused(let why): return .unavailable("holder refused: \(why)")
                }
            }
        } catch {
            return broken("\(error)")
        }
    }

    /// Starts a holder on the socket path, once per process. A stale socket (no one listening) is
    /// removed first; a path another process bound meanwhile is left to it.
    func startHolderOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if startedHolder { return true }
        startedHolder = true
        return KeptConnection.startHolder(socketPath: socketPath, seconds: seconds)
    }

    /// Asks the holder on `socketPath` to exit (`SXK_PERSIST=0`); true when one answered. One that takes no
    /// clients (its queue is full) cannot be asked: its socket's name is removed, so no one-shot uses it
    /// (the holder leaves a name another holder took since alone, and exits when idle).
    public static func stopHolder(socketPath: String, identity: String) -> Bool {
        let fd: Int32
        do {
            fd = try HolderSocket.connect(socketPath)
        } catch {
            var st = stat()
            if error.isBusy, lstat(socketPath, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK { unlink(socketPath) }
            return false
        }
        // Only a listener of this user hears a stop (its frame carries the identity: the environment's proxies).
        guard HolderSocket.peer(fd)?.uid == getuid() else { close(fd); return false }
        close(fd)
        for version in [KeptConnection.protocolVersion] + KeptConnection.olderVersions {
            guard let fd = try? HolderSocket.connect(socketPath) else { return false }
            defer { close(fd) }
            guard HolderSocket.peer(fd)?.uid == getuid() else { return false }
            var stop = HeldRequest(kind: .stop, identity: identity, request: HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1/")!),
                                   caFile: nil, caDirectory: nil, allowPlainHTTPOffLoopback: false, totalTimeout: nil, maxBodyBytes: 0).encoded()
            // The version field follows the magic.
            withUnsafeBytes(of: version.littleEndian) { stop.replaceSubrange(4..<8, with: $0) }
            let deadline = HolderSocket.now() + 2
            guard (try? HolderSocket.writeAll(fd, stop, deadline: deadline)) == true else { return false }
            // A holder of another version closes without a word: try the next.
            if (try? HolderSocket.readFrame(fd, deadline: deadline, limit: 1 << 16)) != nil { return true }
            // No word at all in the time given (a stopped or hung holder): its name is removed, as for a
            // full queue, so later one-shots send directly instead of each waiting for it.
            if HolderSocket.now() >= deadline {
                var st = stat()
                if lstat(socketPath, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK { unlink(socketPath) }
                return false
            }
        }
        return false
    }
}

extension KeptConnection {
    /// Binds the socket and starts `sxk __hold-connections SECONDS PATH` with it as descriptor 3, in a
    /// session of its own, stdio on /dev/null. The holder is this very executable.
    static func startHolder(socketPath: String, seconds: Double) -> Bool {
        var listener: Int32
        do {
            listener = try HolderSocket.listen(socketPath)
        } catch {
            // Another one-shot may have just started a holder there: use it. One whose queue is full is
            // alive too: its socket is not stale.
            do {
                let fd = try HolderSocket.connect(socketPath)
                close(fd)
                return true
            } catch {
                if error.isBusy { return false }
            }
            // Something is at the path but nobody answered: a stale socket. Remove it once (only a
            // socket: never a file someone put there) and bind again.
            var st = stat()
            guard lstat(socketPath, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK, unlink(socketPath) == 0,
                  let again = try? HolderSocket.listen(socketPath) else { return false }
            listener = again
        }
        defer { close(listener) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, listener, 3)
        // Nothing else of this process goes along: a pipe the one-shot's caller reads to its end
        // (its stdout held open by the holder) would wait for the holder's idle exit.
        for fd in Descriptors.openDescriptors() where fd > 3 { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID: not in the shell's process group, so its Ctrl-C does not reach the holder.
        posix_spawnattr_setflags(&attributes, Int16(0x80))
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(0x80 | POSIX_SPAWN_SETSIGMASK))
        // The socket's path too: a long one is bound through this process's descriptor of its folder
        // (`HolderSocket.withAddress`), a name the holder cannot read back to remove it at exit.
        let args = ["sxk", holderArgument, String(seconds), socketPath]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, &argv, environ)
        if rc != 0 { unlink(socketPath); return false }
        return true
    }
}

// MARK: - The holder

/// `sxk __hold-connections SECONDS PATH`, listening on descriptor 3 (bound at PATH): answers requests
/// with one libcurl engine for its whole life, and exits once it has served none for SECONDS, or when
/// told to stop, once the requests it has taken on are answered.
public enum ConnectionHolder {
    /// Seconds a held connection is used for, however busy: a name whose address changed at its DNS
    /// server (no file here changed) reaches held one-shots within this and libcurl's DNS cache (60 s).
    static let connectionLifetime = 300
    public static func run(arguments: [String], identity: String) -> Int32 {
        guard arguments.count >= 4, let seconds = Double(arguments[2]), seconds > 0, seconds.isFinite,
              arguments[3].hasPrefix("/") else { return 2 }
        let listener: Int32 = 3
        var st = stat()
        guard fstat(listener, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK else { return 2 }
        _ = fcntl(listener, F_SETFD, FD_CLOEXEC)
        // Listening again makes the socket's credentials this process's (the one-shot that bound it
        // has exited): what a client checks, and how a test finds the holder.
        guard listen(listener, 64) == 0 else { return 2 }
        // No folder kept busy (a mount the one-shot ran in) for as long as it lives.
        _ = chdir("/")
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
        let holder = Holder(identity: identity, idle: seconds)
        return holder.serve(listener, path: arguments[3])
    }

    final class Holder: @unchecked Sendable {
        let identity: String
        let idle: Double
        let uid = getuid()
        private let lock = Lock()
        private var active = 0
        /// Requests taken on (the client was told `sending`) and not yet answered: what a stop waits for.
        private var inFlight = 0
        private var lastUse = HolderSocket.now()
        private var stopping = false
        private var transports: [String: CurlTransport] = [:]
        /// Each trust's files as this holder first used them: libcurl's CA cache, its TLS sessions and
        /// its connections are matched by the files' names, whatever options a request comes with.
        private var trustSignatures: [String: String] = [:]
        /// The resolver's files as they were when the holder started (`resolverStamp`).
        private let resolver = Holder.resolverStamp()

        init(identity: String, idle: Double) { self.identity = identity; self.idle = idle }

        /// The files that decide where a name leads (`/etc/hosts`, the resolver's configuration): a
        /// changed one (a host pointed at staging) ends the holder, whose connections and DNS cache
        /// lead where the names led before; a direct request and the next holder look them up again.
        static let resolverFiles = ["/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf"]

        static func resolverStamp() -> String {
            var stamp = ""
            for path in resolverFiles {
                var st = stat()
                stamp += stat(path, &st) == 0 ? "\(st.st_dev).\(st.st_ino).\(st.st_size).\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)/" : "-/"
            }
            return stamp
        }

        /// Told to stop by what changed under it: no client from now on, the requests taken on answered.
        private func stopForChange() {
            removeSocket()
            lock.withLock { stopping = true }
        }

        /// Serves each client on a thread kept ready (`Workers`). Only a request served counts as a use:
        /// clients it refuses (another build or environment) do not keep it alive.
        private lazy var workers = Workers { [unowned self] client in
            let served = handle(client)
            close(client)
            lock.withLock {
                active -= 1
                if served { lastUse = HolderSocket.now() }
            }
        }

        /// Where the listener is bound, and that socket's device and inode.
        private var socketName: (path: String, device: dev_t, inode: ino_t)?

        /// Removes the socket's name, unless another holder took it since: no client reaches this holder after.
        private func removeSocket() {
            lock.withLock {
                guard let name = socketName else { return }
                socketName = nil
                var st = stat()
                if stat(name.path, &st) == 0, st.st_dev == name.device, st.st_ino == name.inode { unlink(name.path) }
            }
        }

        /// `path`: where the listener is bound, removed at exit, or as soon as the holder is told to stop.
        func serve(_ listener: Int32, path: String) -> Int32 {
            workers.start()
            var st = stat()
            if stat(path, &st) == 0 { lock.withLock { socketName = (path, st.st_dev, st.st_ino) } }
            var listening = true
            while true {
                var fds = [pollfd(fd: listening ? listener : -1, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 1, listening ? 200 : 50)
                let (stop, busy, idleOver) = lock.withLock { () -> (Bool, Bool, Bool) in
                    (stopping, inFlight > 0, active == 0 && HolderSocket.now() - lastUse >= idle)
                }
                // Told to stop (its name is gone already, `handle`): no new client from now on, and the
                // requests taken on are answered; a client whose request was not taken on yet sees the
                // connection close and sends directly.
                if stop && listening {
                    close(listener)
                    listening = false
                }
                if (stop && !busy) || idleOver { break }
                guard listening, fds[0].revents & Int16(POLLIN) != 0 else { continue }
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                // Only the same user; anyone else is closed on without a byte.
                guard HolderSocket.peer(client)?.uid == uid else { close(client); continue }
                lock.withLock { active += 1 }
                if !workers.hand(client) {
                    // No thread to serve it: the client sees its connection close before the request was
                    // taken on, and sends it directly.
                    close(client)
                    lock.withLock { active -= 1 }
                }
            }
            // The socket goes with the holder, unless another holder took the name since.
            removeSocket()
            return 0
        }

        /// True when a request was taken on (answered, or failed on the way).
        @discardableResult
        func handle(_ client: Int32) -> Bool {
            let deadline = HolderSocket.now() + 10
            guard let bytes = try? HolderSocket.readFrame(client, deadline: deadline, limit: 64 << 20),
                  let hello = HeldRequest.decode(bytes) else { return false }
            // Any sxk of this user may stop it, whatever its build.
            if hello.kind == .stop {
                // The name goes first, while the listener is still open: no client is refused by a
                // listener that is closing (it would take the name for a stale socket and remove it),
                // and a one-shot after the stopping one starts a holder of its own.
                removeSocket()
                lock.withLock { stopping = true }
                _ = try? HolderSocket.writeAll(client, HeldAnswer.refused("stopping").encoded(), deadline: deadline)
                return false
            }
            guard hello.identity == identity else {
                _ = try? HolderSocket.writeAll(client, HeldAnswer.refused("another build or environment").encoded(), deadline: deadline)
                return false
            }
            var rest = hello.rest
            guard let held = try? HeldRequest.decodeSend(kind: hello.kind, identity: hello.identity, &rest) else { return false }
            guard Self.resolverStamp() == resolver else {
                stopForChange()
                _ = try? HolderSocket.writeAll(client, HeldAnswer.refused("the resolver's files changed: the holder stops").encoded(), deadline: deadline)
                return false
            }
            guard let transport = self.transport(for: held) else {
                stopForChange()
                _ = try? HolderSocket.writeAll(client, HeldAnswer.refused("the trusted certificates changed: the holder stops").encoded(), deadline: deadline)
                return false
            }
            // Counted before the client hears `sending`, so a stop cannot end the holder between the two.
            let taken = lock.withLock { () -> Bool in
                if stopping { return false }
                inFlight += 1
                return true
            }
            guard taken else {
                _ = try? HolderSocket.writeAll(client, HeldAnswer.refused("stopping").encoded(), deadline: deadline)
                return false
            }
            defer { lock.withLock { inFlight -= 1 } }
            // The client sends directly what the holder never took on: nothing goes out before its `go`
            // (a client that gave up waiting closes instead).
            guard (try? HolderSocket.writeAll(client, HeldAnswer.sending.encoded(), deadline: deadline)) == true else { return false }
            guard (try? HolderSocket.readFrame(client, deadline: deadline, limit: 16)) == KeptConnection.go else {
                // The client may still send its `go` into a closing socket: told, it knows nothing was sent.
                _ = try? HolderSocket.writeAll(client, HeldAnswer.refused("no go in time").encoded(), deadline: HolderSocket.now() + 1)
                return false
            }
            // This thread waits for the transfer itself; a client that goes away (Ctrl-C, killed)
            // cancels it here too.
            let answer: HeldAnswer
            do {
                answer = .response(try transport.sendWaiting(held.request) { Self.peerHungUp(client) })
            } catch {
                answer = .failure(error)
            }
            _ = try? HolderSocket.writeAll(client, answer.encoded(), deadline: HolderSocket.now() + 30)
            return true
        }

        /// True when the client closed its end (it sends nothing more after its request).
        static func peerHungUp(_ fd: Int32) -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) > 0 else { return false }
            if p.revents & Int16(POLLHUP | POLLERR) != 0 { return true }
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
        }

        /// The transport for `held`'s options; nil when its trusted files changed since this holder first
        /// used them, with these options or any others: its connections, TLS sessions and libcurl's cached
        /// CA store were checked against the old ones (the holder then stops).
        private func transport(for held: HeldRequest) -> CurlTransport? {
            let trust = TrustStore(caFile: held.caFile, caDirectory: held.caDirectory)
            let trustKey = (held.caFile ?? "-") + "\u{1}" + (held.caDirectory ?? "-")
            let key = [trustKey, held.allowPlainHTTPOffLoopback ? "1" : "0",
                       held.totalTimeout.map { "\($0)" } ?? "-", "\(held.maxBodyBytes)"].joined(separator: "\u{1}")
            let signature = trust.filesSignature
            return lock.withLock {
                if let first = trustSignatures[trustKey], first != signature { return nil }
                trustSignatures[trustKey] = signature
                if let t = transports[key] { return t }
                let made = CurlTransport(trust: trust, allowPlainHTTPOffLoopback: held.allowPlainHTTPOffLoopback,
                                         totalTimeout: held.totalTimeout, maxBodyBytes: held.maxBodyBytes, resolve: [],
                                         connectionLifetime: ConnectionHolder.connectionLifetime)
                transports[key] = made
                return made
            }
        }
    }

    /// The threads that serve clients, kept once started. A thread started for a client that has just
    /// connected waited for a CPU for up to 4 ms: that one-shot keeps both cores of a small machine busy
    /// with its own start. A ready thread takes the next client instead (one is started with the holder);
    /// another starts only when every one is busy.
    final class Workers: @unchecked Sendable {
        private let condition = Condition()
        private var waiting: [Int32] = []
        private var idle = 0
        private let serve: (Int32) -> Void
        /// `DetachedThread.start`; a test gives one that fails.
        private let startThread: (String, Int?, @escaping @Sendable () -> Void) -> Int32

        init(serve: @escaping (Int32) -> Void,
             startThread: @escaping (String, Int?, @escaping @Sendable () -> Void) -> Int32 = { DetachedThread.start(name: $0, stackSize: $1, $2) }) {
            self.serve = serve
            self.startThread = startThread
        }

        /// Gives `client` to a ready thread, or to a new one; false when no thread could be started and
        /// none took it meanwhile: it is the caller's again.
        func hand(_ client: Int32) -> Bool {
            condition.lock()
            waiting.append(client)
            // Threads still counted idle may have been woken for an earlier client already.
            let ready = idle >= waiting.count
            if ready { condition.signal() }
            condition.unlock()
            guard !ready, start() != 0 else { return true }
            condition.lock()
            defer { condition.unlock() }
            guard let index = waiting.firstIndex(of: client) else { return true }
            waiting.remove(at: index)
            return false
        }

        @discardableResult
        func start() -> Int32 {
            startThread("sxk.holder", 512 << 10) { [self] in
                condition.lock()
                while true {
                    while waiting.isEmpty {
                        idle += 1
                        condition.wait()
                        idle -= 1
                    }
                    let client = waiting.removeFirst()
                    condition.unlock()
                    serve(client)
                    condition.lock()
                }
            }
        }
    }

}
