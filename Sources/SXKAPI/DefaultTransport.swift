import Foundation

/// The shell's transport: `PlainHTTPTransport` for `http://` (loopback or `--insecure-http`),
/// `URLSessionTransport` for `https://` and whenever a proxy applies to the request (libcurl
/// knows proxies; the plain transport does not). Each is made on its first request, so start-up
/// pays for neither, and kept for the life of the shell (connections reused across `env use`).
/// `SXK_HTTP_TRANSPORT=urlsession` sends everything through URLSession (to compare or debug).
public final class DefaultTransport: HTTPTransport, @unchecked Sendable {
    public enum Choice: String, Sendable { case automatic, urlsession }

    private let lock = NSLock()
    private let timeout: TimeInterval
    private let choice: Choice
    private let proxies: ProxyEnvironment
    private var plain: PlainHTTPTransport?
    private var secure: URLSessionTransport?

    public init(timeout: TimeInterval, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.timeout = timeout
        choice = Choice(rawValue: environment["SXK_HTTP_TRANSPORT"] ?? "") ?? .automatic
        proxies = ProxyEnvironment(environment)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if usesPlain(request.url) {
            let transport = lock.withLock { () -> PlainHTTPTransport in
                if let plain { return plain }
                let made = PlainHTTPTransport()
                plain = made
                return made
            }
            return try await transport.send(request)
        }
        let transport = lock.withLock { () -> URLSessionTransport in
            if let secure { return secure }
            let made = URLSessionTransport(timeout: timeout)
            secure = made
            return made
        }
        return try await transport.send(request)
    }

    func usesPlain(_ url: URL) -> Bool {
        guard choice == .automatic, url.scheme?.lowercased() == "http", let host = url.host else { return false }
        return !proxies.applies(toHost: host)
    }
}

/// The proxy variables libcurl honours for `http://` (lowercase `http_proxy`, `all_proxy` in either
/// case) and `no_proxy` exceptions, read once.
struct ProxyEnvironment: Sendable {
    let proxy: String?
    let exceptions: [String]

    init(_ environment: [String: String]) {
        let candidates = [environment["http_proxy"], environment["all_proxy"], environment["ALL_PROXY"]]
        proxy = candidates.compactMap { $0 }.first { !$0.isEmpty }
        exceptions = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    func applies(toHost host: String) -> Bool {
        guard proxy != nil else { return false }
        let host = host.lowercased()
        for exception in exceptions {
            if exception == "*" { return false }
            let suffix = exception.hasPrefix(".") ? String(exception.dropFirst()) : exception
            if host == suffix || host.hasSuffix("." + suffix) { return false }
        }
        return true
    }
}
