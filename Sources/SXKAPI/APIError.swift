import SXKCore

/// The request a failure belongs to: method, path and, once known, the HTTP status.
public struct RequestLabel: Sendable, Equatable, CustomStringConvertible {
    public var method: String
    public var path: String
    public var status: Int?

    public init(method: String, path: String, status: Int? = nil) {
        self.method = method; self.path = path; self.status = status
    }

    public var description: String { "\(method) \(path)" }
}

/// What ended the session: an expiry code in the envelope with the server's message, or the answer's
/// HTTP 401. Kept apart so a view that shows the code and the message (`compare`) reads them as
/// fields; `description` is the one line every message quotes.
public struct ExpiryCause: Sendable, Equatable, CustomStringConvertible {
    /// The envelope's code as sent (one of `APIConfiguration.authExpiredCodes`); nil when no code said it.
    public var code: String?
    /// The server's message beside the code (empty when it sent none); without a code, what ended the
    /// session (`HTTP 401`).
    public var message: String

    public init(code: String?, message: String) {
        self.code = code; self.message = message
    }

    /// An answer with HTTP status 401.
    public static let http401 = ExpiryCause(code: nil, message: "HTTP 401")

    /// `code 100401: 登录已过期`, `code 100401` without a message, `HTTP 401`.
    public var description: String {
        guard let code else { return message }
        return "code \(code)\(message.isEmpty ? "" : ": \(message)")"
    }
}

/// Every failure of the API layer, wrapped once, with a one-line message naming method and path.
/// No case ever carries a token or password: excerpts are redacted before they are stored.
public enum APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The envelope's code was not 100000. `code` is the code's text as sent (number or string).
    case serverCode(code: String, msg: String, request: RequestLabel)
    /// HTTP 401 or a code in `authExpiredCodes`; `cause` says which.
    case sessionExpired(ExpiryCause, request: RequestLabel)
    /// A non-2xx status whose body is JSON but not an envelope.
    case http(status: Int, excerpt: String, request: RequestLabel)
    /// A body that is not JSON: empty, HTML, cut off. `excerpt` is at most the first 200 bytes, redacted.
    case notJSON(status: Int, reason: String, excerpt: String, request: RequestLabel)
    /// The data lacked a required field or had a type no tolerance rule reads.
    case decoding(FieldError, request: RequestLabel)
    case network(NetworkFailure, request: RequestLabel)
    case cancelled(request: RequestLabel)
    /// Plain http to a non-loopback host without `insecureHTTP`.
    case insecureURL(url: String)
    /// A base URL or environment name that cannot be used.
    case invalidURL(String, reason: String)
    /// A request sxk will not send as asked (a path without `/`, a URL past the length servers take).
    case invalidRequest(reason: String, request: RequestLabel)
    case redirectRefused(location: String, request: RequestLabel)
    case tooManyRedirects(count: Int, request: RequestLabel)
    /// An answer that cannot be read as HTTP (`TransportError.unreadable`): bad data from the server (1).
    case unreadable(reason: String, request: RequestLabel)

    /// Server and URL text (code, msg, excerpts, locations) is quoted through `TerminalText.sanitize`:
    /// this line reaches a terminal, and a hostile server controls those parts.
    public var description: String {
        let q = TerminalText.sanitize
        switch self {
        case .serverCode(let code, let msg, let r):
            return "\(q(r.description)): server error \(q(code))\(msg.isEmpty ? "" : ": \(q(msg))")"
        case .sessionExpired(let cause, let r):
            return "\(q(r.description)): session expired (\(q(cause.description))); log in again"
        case .http(let status, let excerpt, let r):
            return "\(q(r.description)): HTTP \(status)\(excerpt.isEmpty ? "" : ": \(q(excerpt))")"
        case .notJSON(let status, let reason, let excerpt, let r):
            return "\(q(r.description)): HTTP \(status), \(q(reason))\(excerpt.isEmpty ? "" : ": \(q(excerpt))")"
        case .decoding(let error, let r):
            return "\(q(r.description)): unexpected response: \(q(error.description))"
        case .network(let failure, let r):
            return "\(q(r.description)): \(q(failure.description))"
        case .cancelled(let r):
            return "\(q(r.description)): cancelled"
        case .insecureURL(let url):
            return "refusing plain http to a non-loopback host (\(q(url))); use https or --insecure-http"
        case .invalidURL(let text, let reason):
            // The user's own input, but a password or token in it is no less one on a shared screen.
            return "invalid base URL '\(q(Redaction.shownURL(text)))': \(q(reason))"
        case .invalidRequest(let reason, let r):
            return "\(q(r.description)): \(q(reason))"
        case .redirectRefused(let location, let r):
            return "\(q(r.description)): refused a redirect to another origin (\(q(location)))"
        case .unreadable(let reason, let r):
            return "\(q(r.description)): the answer could not be read as HTTP (\(q(reason)))"
        case .tooManyRedirects(let count, let r):
            return "\(q(r.description)): still redirected after \(count) redirects (a redirect loop?)"
        }
    }

    public var kind: APIErrorKind {
        switch self {
        case .serverCode: return .server
        case .sessionExpired: return .sessionExpired
        case .http: return .http
        case .notJSON, .unreadable: return .notJSON
        case .decoding: return .decoding
        case .network: return .network
        case .cancelled: return .cancelled
        case .insecureURL, .invalidURL, .invalidRequest: return .configuration
        case .redirectRefused, .tooManyRedirects: return .redirect
        }
    }

    /// The request the error belongs to, when there was one.
    public var request: RequestLabel? {
        switch self {
        case .serverCode(_, _, let r), .sessionExpired(_, let r), .http(_, _, let r), .notJSON(_, _, _, let r),
            .decoding(_, let r), .network(_, let r), .cancelled(let r), .redirectRefused(_, let r), .tooManyRedirects(_, let r), .invalidRequest(_, let r), .unreadable(_, let r):
            return r
        case .insecureURL, .invalidURL: return nil
        }
    }

    /// The numeric server code of `.serverCode`, when it is a number.
    public var serverCode: Int? {
        if case .serverCode(let code, _, _) = self { return Int(code) }
        return nil
    }
}

/// Coarse classes of `APIError`, for exit codes and for deciding whether a session survives.
public enum APIErrorKind: String, Sendable, Equatable, CaseIterable {
    case server, sessionExpired, http, notJSON, decoding, network, cancelled, configuration, redirect

    /// network → 4, session expired → 3, cancelled → 130, a base URL or environment the user gave
    /// that cannot be used → 2 (a usage error: a bad value), everything else → 1.
    public var exitCode: Int32 {
        switch self {
        case .network: return 4
        case .sessionExpired: return 3
        case .cancelled: return 130
        case .configuration: return 2
        default: return 1
        }
    }
}
