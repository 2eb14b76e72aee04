import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real transport: one ephemeral `URLSession` per shell (connections kept alive and reused),
/// no cookies, no cache, and a delegate that refuses redirects to another origin.
///
/// Tasks are delegate-driven (not completion-handler tasks) because on Linux the redirect
/// callback is only consulted for delegate-driven tasks; the body is collected in the delegate.
///
/// Timeouts (measured on Linux, Swift 6.3.1, see `TransportIntegrationTests`):
/// - the session's `timeoutIntervalForRequest` acts as an **idle** timeout: it fires only when no
///   bytes arrive for that long. A server trickling a byte every 0.4 s keeps a request alive under a
///   1 s idle timeout for as long as it trickles.
/// - `URLRequest.timeoutInterval` does **not** override the session's value (a 1 s request timeout
///   on a session made with 20 s waited 20 s).
/// - `timeoutIntervalForResource` is **not enforced** (a 1.5 s resource timeout let a 6 s trickle finish).
/// So this transport enforces the total itself: each request is cancelled and fails with
/// `.timedOut` once `totalTimeout` (default: the request's own `timeout`, i.e. `--timeout`) has
/// passed since it started. The idle timeout is fixed when the one session is made; a changed
/// `--timeout` takes effect through the total deadline.
///
/// Size: a body larger than `maxBodyBytes` (announced by Content-Length or counted while it arrives)
/// is not read further: the request fails with `.bodyTooLarge` instead of growing memory without bound.
///
/// Cancellation: cancelling the Swift task cancels the `URLSessionTask` (through
/// `withTaskCancellationHandler`), which closes the connection and fails with `.cancelled`.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession
    private let delegate: SessionDelegate
    public let requestTimeout: TimeInterval
    /// Total time allowed per request; nil means the request's own `timeout`.
    public let totalTimeout: TimeInterval?
    /// The largest response body read (32 MiB: the largest real answer, an order page, is kilobytes).
    public let maxBodyBytes: Int
    public static let defaultMaxBodyBytes = 32 << 20

    public init(timeout: TimeInterval = APIConfiguration.defaultTimeout, totalTimeout: TimeInterval? = nil,
                maxBodyBytes: Int = URLSessionTransport.defaultMaxBodyBytes) {
        requestTimeout = timeout
        self.totalTimeout = totalTimeout
        self.maxBodyBytes = maxBodyBytes
        let config = URLSessionConfiguration.ephemeral
        config.httpCookieStorage = nil
        config.httpShouldSetCookies = false
        config.httpCookieAcceptPolicy = .never
        config.urlCache = nil
        config.urlCredentialStorage = nil
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.timeoutIntervalForRequest = timeout
        // Not enforced on Linux; the total deadline is this transport's own timer (see above).
        config.timeoutIntervalForResource = 24 * 3600
        config.httpMaximumConnectionsPerHost = 6
        delegate = SessionDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "sxk.urlsession.delegate"
        session = URLSession(configuration: config, delegate: delegate, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    /// Removes `URLSessionDebug` and `URLSessionDebugLibcurl` from the environment: they make
    /// Foundation print every request with its headers, token included. Call at start, before any session exists.
    public static func scrubDebugEnvironment() {
        unsetenv("URLSessionDebug")
        unsetenv("URLSessionDebugLibcurl")
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if !request.body.isEmpty || request.method != "GET" { urlRequest.httpBody = Data(request.body) }
        let timeout = request.timeout
        let total = totalTimeout ?? request.timeout
        let handle = TaskHandle()
        try Task.checkCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let task = session.dataTask(with: urlRequest)
                delegate.register(task, origin: Origin(request.url), timeout: timeout, limit: maxBodyBytes, continuation: continuation)
                if handle.set(task) {
                    task.resume()
                    let delegate = self.delegate
                    DispatchQueue.global().asyncAfter(deadline: .now() + total) { [weak task] in
                        guard let task else { return }
                        if delegate.markTotalTimeout(task, seconds: total) { task.cancel() }
                    }
                }
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// Maps a URLError to the transport's failure kinds (nil for errors it does not know).
    static func map(_ error: URLError, timeout: TimeInterval) -> TransportError? {
        switch error.code {
        case .cancelled: return .cancelled
        case .timedOut: return .network(.timedOut(seconds: timeout))
        case .cannotConnectToHost: return .network(.connectionRefused)
        case .cannotFindHost, .dnsLookupFailed: return .network(.hostNotFound)
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed: return .network(.unreachable(error.code == .notConnectedToInternet ? "not connected" : "no data connection"))
        case .networkConnectionLost: return .network(.connectionLost)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return .network(.tls(tlsReason(error.code)))
        case .badServerResponse, .cannotParseResponse: return .network(.other("bad server response"))
        case .badURL, .unsupportedURL: return .network(.other("unsupported URL"))
        default: return nil
        }
    }

    private static func tlsReason(_ code: URLError.Code) -> String {
        switch code {
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid: return "certificate date invalid"
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot: return "certificate not trusted"
        case .clientCertificateRejected, .clientCertificateRequired: return "client certificate required"
        default: return "secure connection failed"
        }
    }
}

/// Scheme, host and port of a URL (default ports filled in) — redirects must keep all three.
struct Origin: Equatable, Sendable {
    var scheme: String
    var host: String
    var port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }
}

/// Links a Swift task's cancellation to the URLSessionTask, whichever comes first.
private final class TaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    /// Stores the task; false (and the task cancelled) if cancellation already happened.
    func set(_ task: URLSessionTask) -> Bool {
        let wasCancelled = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if wasCancelled { task.cancel() }
        return !wasCancelled
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionTask? in
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}

/// Collects each task's response and body and finishes its continuation exactly once.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Pending {
        var origin: Origin
        var timeout: TimeInterval
        var continuation: CheckedContinuation<HTTPResponse, any Error>
        var response: HTTPURLResponse?
        var body: [UInt8] = []
        var refusedRedirect: String?
        var totalTimeoutHit: TimeInterval?
        var limit: Int
        var tooLarge = false
    }

    private let lock = NSLock()
    private var pending: [Int: Pending] = [:]

    func register(_ task: URLSessionTask, origin: Origin, timeout: TimeInterval, limit: Int, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        lock.withLock { pending[task.taskIdentifier] = Pending(origin: origin, timeout: timeout, continuation: continuation, limit: limit) }
    }

    /// Marks a still-running task as over its total time; false when it already finished.
    func markTotalTimeout(_ task: URLSessionTask, seconds: TimeInterval) -> Bool {
        lock.withLock {
            guard pending[task.taskIdentifier] != nil else { return false }
            pending[task.taskIdentifier]?.totalTimeoutHit = seconds
            return true
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let announcedTooLarge: Bool = lock.withLock {
            let id = dataTask.taskIdentifier
            pending[id]?.response = response as? HTTPURLResponse
            guard let limit = pending[id]?.limit, response.expectedContentLength > Int64(limit) else { return false }
            pending[id]?.tooLarge = true
            return true
        }
        completionHandler(.allow)
        // On Linux the bytes may keep coming after cancel(); `didReceive data` drops them, and the
        // total timeout still bounds the request.
        if announcedTooLarge { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow: Bool = lock.withLock {
            let id = dataTask.taskIdentifier
            guard let count = pending[id]?.body.count, let limit = pending[id]?.limit else { return false }
            if pending[id]?.tooLarge == true { return false }  // cancelled already; drop what still comes
            if count + data.count > limit {
                pending[id]?.tooLarge = true
                pending[id]?.body = []
                return true
            }
            pending[id]?.body.append(contentsOf: data)
            return false
        }
        if overflow { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let sameOrigin: Bool = lock.withLock {
            guard let entry = pending[task.taskIdentifier], let target = request.url else { return false }
            if Origin(target) == entry.origin { return true }
            pending[task.taskIdentifier]?.refusedRedirect = Origin(target).description
            return false
        }
        if sameOrigin {
            completionHandler(request)
        } else {
            completionHandler(nil)
            task.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let seconds = entry.totalTimeoutHit {
            entry.continuation.resume(throwing: TransportError.network(.timedOut(seconds: seconds)))
            return
        }
        if entry.tooLarge {
            let status = entry.response?.statusCode ?? (task.response as? HTTPURLResponse)?.statusCode ?? 0
            entry.continuation.resume(throwing: TransportError.bodyTooLarge(status: status, limit: entry.limit))
            return
        }
        if let refused = entry.refusedRedirect {
            entry.continuation.resume(throwing: TransportError.redirectRefused(location: refused))
            return
        }
        if let error {
            let mapped = (error as? URLError).flatMap { URLSessionTransport.map($0, timeout: entry.timeout) }
            let isCancelOrTimeout: Bool
            switch mapped {
            case .cancelled?, .network(.timedOut)?: isCancelOrTimeout = true
            default: isCancelOrTimeout = false
            }
            if !isCancelOrTimeout, let http = entry.response {
                entry.continuation.resume(throwing: TransportError.truncatedBody(status: http.statusCode, received: entry.body))
                return
            }
            if let urlError = error as? URLError, let mapped = URLSessionTransport.map(urlError, timeout: entry.timeout) {
                entry.continuation.resume(throwing: mapped)
            } else {
                let nsError = error as NSError
                entry.continuation.resume(throwing: TransportError.network(.other("\(nsError.localizedDescription) (\(nsError.domain) \(nsError.code))")))
            }
            return
        }
        guard let http = entry.response ?? task.response as? HTTPURLResponse else {
            entry.continuation.resume(throwing: TransportError.network(.other("no HTTP response")))
            return
        }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            headers.append(String(describing: name), String(describing: value))
        }
        entry.continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: entry.body))
    }
}

extension Origin: CustomStringConvertible {
    var description: String { "\(scheme)://\(host):\(port)" }
}
