import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP/1.1 over a plain TCP socket, for `http://` base URLs (the sandbox, a backend on loopback,
/// or `--insecure-http`). URLSession on Linux costs about 0.4 ms of thread hops per request and
/// libcurl's set-up at the first one; this transport writes and reads on one worker thread and
/// keeps connections alive, so a piped session runs at the server's pace. `https://` never comes
/// here (see `DefaultTransport`): TLS stays with URLSession.
///
/// The same guarantees as `URLSessionTransport`: the timeout is a **total** deadline per request
/// (connect, send, every byte of the answer), cancellation closes the connection at once, a
/// redirect to another origin is refused before anything is sent there, and a body cut off after
/// the head fails with what arrived.
public final class PlainHTTPTransport: HTTPTransport, @unchecked Sendable {
    /// Total time allowed per request; nil means the request's own `timeout`.
    public let totalTimeout: TimeInterval?
    /// Idle connections kept per origin.
    public let maxIdlePerOrigin: Int
    /// The largest response body read; past it the request fails with `.bodyTooLarge` (same limit as URLSession's).
    public let maxBodyBytes: Int
    static let maxRedirects = 10
    static let maxHeadBytes = 64 * 1024

    private let lock = NSLock()
    private var idle: [String: [PlainConnection]] = [:]
    private let queue = DispatchQueue(label: "sxk.http.plain", attributes: .concurrent)

    public init(totalTimeout: TimeInterval? = nil, maxIdlePerOrigin: Int = 6, maxBodyBytes: Int = URLSessionTransport.defaultMaxBodyBytes) {
        self.totalTimeout = totalTimeout
        self.maxIdlePerOrigin = maxIdlePerOrigin
        self.maxBodyBytes = maxBodyBytes
    }

    deinit {
        for connections in idle.values { for connection in connections { connection.close() } }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let cancel = CancelSwitch()
        let seconds = totalTimeout ?? request.timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                queue.async {
                    do { continuation.resume(returning: try self.perform(request, cancel: cancel)) }
                    catch let failure as PlainConnection.Failure { continuation.resume(throwing: failure.transportError(seconds: seconds)) }
                    catch { continuation.resume(throwing: error) }
                }
            }
        } onCancel: {
            cancel.fire()
        }
    }

    /// Sends the request and follows same-origin redirects as URLSession does.
    func perform(_ request: HTTPRequest, cancel: CancelSwitch) throws -> HTTPResponse {
        let seconds = totalTimeout ?? request.timeout
        let deadline = Deadline(seconds: seconds)
        let origin = Origin(request.url)
        var current = request
        var redirects = 0
        while true {
            let response = try exchange(current, deadline: deadline, cancel: cancel)
            guard [301, 302, 303, 307, 308].contains(response.status), redirects < Self.maxRedirects,
                  let location = response.headers["Location"],
                  let target = URL(string: location, relativeTo: current.url)?.absoluteURL
            else { return response }
            guard Origin(target) == origin else { throw TransportError.redirectRefused(location: Origin(target).description) }
            redirects += 1
            if response.status == 303 || (response.status <= 302 && current.method == "POST") {
                current.method = "GET"
                current.body = []
            }
            current.url = target
        }
    }

    /// One request/response on a kept-alive or new connection. A kept-alive connection the server
    /// closed meanwhile fails before any byte of an answer: that one attempt is retried on a new one.
    private func exchange(_ request: HTTPRequest, deadline: Deadline, cancel: CancelSwitch) throws -> HTTPResponse {
        guard let host = request.url.host, !host.isEmpty else { throw TransportError.network(.other("unsupported URL")) }
        let port = request.url.port ?? 80
        let key = "\(host.lowercased()):\(port)"
        let bytes = try Self.encode(request, host: host, port: port)
        var retried = false
        while true {
            let reused = takeIdle(key)
            let connection = try reused ?? PlainConnection.connect(host: host, port: port, deadline: deadline, cancel: cancel)
            do {
                try cancel.attach(connection)
                defer { cancel.detach() }
                try connection.write(bytes, deadline: deadline, cancel: cancel)
                let (response, keepAlive) = try connection.readResponse(method: request.method, limit: maxBodyBytes, deadline: deadline, cancel: cancel)
                // Detached before the connection is pooled: a late cancel of this request must not shut
                // down the connection after another request took it (nor pool one it already shut down).
                cancel.detach()
                if keepAlive && !cancel.isFired { putIdle(key, connection) } else { connection.close() }
                return response
            } catch PlainConnection.Failure.staleBeforeResponse where reused != nil && !retried {
                connection.close()
                retried = true
            } catch {
                connection.close()
                throw error
            }
        }
    }

    private func takeIdle(_ key: String) -> PlainConnection? {
        while let connection = lock.withLock({ idle[key]?.popLast() }) {
            if connection.isReusable { return connection }
            connection.close()
        }
        return nil
    }

    private func putIdle(_ key: String, _ connection: PlainConnection) {
        let kept = lock.withLock { () -> Bool in
            guard idle[key, default: []].count < maxIdlePerOrigin else { return false }
            idle[key, default: []].append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// The request head and body as bytes. Header fields holding CR or LF are refused (they
    /// would let a value smuggle another header or request onto the wire).
    static func encode(_ request: HTTPRequest, host: String, port: Int) throws -> [UInt8] {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        let hostName = host.contains(":") ? "[\(host)]" : host
        var head = "\(request.method) \(target) HTTP/1.1\r\nHost: \(port == 80 ? hostName : "\(hostName):\(port)")\r\n"
        let managed: Set<String> = ["host", "content-length", "connection", "transfer-encoding"]
        for field in request.headers where !managed.contains(field.name.lowercased()) {
            // Scalars, not Characters: "\r\n" is one Character and would slip past a Character test.
            guard !field.name.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ":" }),
                  !field.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" })
            else { throw TransportError.network(.other("header field '\(String(field.name.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }))' holds a line break")) }
            head += "\(field.name): \(field.value)\r\n"
        }
        if !request.body.isEmpty || request.method != "GET" { head += "Content-Length: \(request.body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + request.body
    }
}

/// When a request must give up: an absolute monotonic time, so every wait shares one budget.
struct Deadline {
    let seconds: TimeInterval
    let end: UInt64

    /// Longer budgets (`--timeout 1e11`) wait this long: about 31 years, far inside UInt64 nanoseconds.
    static let longest: TimeInterval = 1e9

    init(seconds: TimeInterval) {
        self.seconds = seconds
        // `min` before the conversion: UInt64(_:) traps on a value past UInt64.max (or infinity).
        let bounded = seconds.isNaN ? 0 : min(max(0, seconds), Self.longest)
        end = DispatchTime.now().uptimeNanoseconds &+ UInt64(bounded * 1_000_000_000)
    }

    /// Milliseconds left for `poll`, at least 0.
    var remainingMilliseconds: Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        guard end > now else { return 0 }
        return Int32(min(UInt64(Int32.max), (end - now + 999_999) / 1_000_000))
    }
}

/// Lets a task's cancellation reach a worker blocked in `poll`: firing shuts the socket down,
/// which wakes the poll at once and tells the server the request is abandoned.
final class CancelSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    private var connection: PlainConnection?

    var isFired: Bool { lock.withLock { fired } }

    func fire() {
        let current = lock.withLock { () -> PlainConnection? in
            fired = true
            return connection
        }
        current?.shutdown()
    }

    /// Registers the connection in use; throws when cancellation came first.
    func attach(_ connection: PlainConnection) throws {
        let wasFired = lock.withLock { () -> Bool in
            self.connection = connection
            return fired
        }
        if wasFired { throw PlainConnection.Failure.cancelled }
    }

    func detach() { lock.withLock { connection = nil } }
}
