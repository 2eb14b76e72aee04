import FoundationEssentials

/// Which backend the shell talks to: the two real environments, the embedded sandbox, or any base URL.
public enum APIEnvironment: Sendable, Equatable, CustomStringConvertible {
    case test
    case release
    /// The embedded loopback sandbox; its URL is known only once it has started.
    case sandbox(URL)
    /// Any base URL given with `--base-url` or `env use URL`.
    case custom(URL)

    public static let testURL = URL(string: "https://api-test.zhifly.cn")!
    public static let releaseURL = URL(string: "https://api.zhifly.cn")!

    /// The names `env use` accepts besides a URL (`sandbox` needs a running server, so the caller builds it).
    public static let names = ["test", "release", "sandbox"]

    public var name: String {
        switch self {
        case .test: return "test"
        case .release: return "release"
        case .sandbox: return "sandbox"
        case .custom: return "custom"
        }
    }

    public var baseURL: URL {
        switch self {
        case .test: return APIEnvironment.testURL
        case .release: return APIEnvironment.releaseURL
        case .sandbox(let url), .custom(let url): return url
        }
    }

    public var description: String { "\(name) (\(baseURL.absoluteString))" }

    /// Reads `test`, `release` or an `http(s)://host[:port][/prefix]` URL. `sandbox` is refused here
    /// because its URL comes from the running server (use `.sandbox(url)`).
    public static func parse(_ text: String) throws(APIError) -> APIEnvironment {
        let trimmed = text.trimming(\.isBlank)
        switch trimmed.lowercased() {
        case "test": return .test
        case "release", "prod", "production": return .release
        case "sandbox": throw APIError.invalidURL(trimmed, reason: "the sandbox URL is known only after the sandbox starts")
        default:
            // A word that is not a URL was meant as an environment's name: say which names there are.
            guard trimmed.contains("://") else {
                throw APIError.invalidURL(trimmed, reason: "is neither an environment (test, release; sandbox with --sandbox) nor an http(s)://host[:port] URL")
            }
            return .custom(try APIEnvironment.validatedBaseURL(trimmed))
        }
    }

    /// Checks that `text` is an absolute http(s) URL with a host and no query or fragment; drops a trailing `/`.
    public static func validatedBaseURL(_ text: String) throws(APIError) -> URL {
        guard !text.isEmpty else { throw APIError.invalidURL(text, reason: "is empty") }
        // Read from `URL`, not `URLComponents`: a component's host goes through ICU's IDNA, whose set-up
        // (its normaliser's data mapped) cost every start ≈ 0.13 ms for these checks.
        guard let parsed = URL(string: text), let scheme = parsed.scheme?.lowercased() else {
            throw APIError.invalidURL(text, reason: "is not a URL (expected test, release or http(s)://host[:port])")
        }
        guard scheme == "http" || scheme == "https" else {
            throw APIError.invalidURL(text, reason: "scheme '\(scheme)' is not http or https")
        }
        guard let host = parsed.host(percentEncoded: true), !host.isEmpty else { throw APIError.invalidURL(text, reason: "has no host") }
        // A port no socket has is refused here, with the other mistakes in the URL, not by libcurl at the first request.
        if let port = parsed.port, !(1...65535).contains(port) {
            throw APIError.invalidURL(text, reason: "has port \(port), outside 1–65535")
        }
        guard parsed.query(percentEncoded: true) == nil, parsed.fragment(percentEncoded: true) == nil else {
            throw APIError.invalidURL(text, reason: "must not have a query or fragment")
        }
        guard parsed.user(percentEncoded: true) == nil, parsed.password(percentEncoded: true) == nil else {
            throw APIError.invalidURL(text, reason: "must not carry a user name or password")
        }
        guard text.hasSuffix("/") else { return parsed }
        var cleaned = text
        while cleaned.hasSuffix("/") { cleaned.removeLast() }
        guard let url = URL(string: cleaned) else { throw APIError.invalidURL(text, reason: "is not a URL") }
        return url
    }

    /// True for 127.0.0.0/8, ::1 and localhost, the only hosts plain http is allowed for by default.
    public static func isLoopback(host: String?) -> Bool {
        guard var host = host?.lowercased() else { return false }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }
}
