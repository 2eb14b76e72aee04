import FoundationEssentials

/// Everything the client needs to know about where and how to send requests.
public struct APIConfiguration: Sendable, Equatable {
    public var environment: APIEnvironment
    /// `X-APP-VERSION` header.
    public var appVersion: String
    /// `X-OS-TYPE` header.
    public var osType: String
    /// Per-request timeout in seconds: a total deadline (see `CurlTransport`).
    public var timeout: TimeInterval
    /// Envelope codes that mean the session is over (HTTP 401 always does). A short list, not a
    /// `Set`: a set's first use looks up `Hashable` across the binary's conformances (≈ 0.15 ms).
    public var authExpiredCodes: [Int]
    /// Allow plain http to a non-loopback host; every such request then warns through the observer.
    public var insecureHTTP: Bool

    public static let defaultAppVersion = "9.0.0"
    public static let defaultOSType = "iOS"
    public static let defaultTimeout: TimeInterval = 15
    public static let defaultAuthExpiredCodes: [Int] = [100401, 100402]
    public static let successCode = 100000

    public init(
        environment: APIEnvironment = .test, appVersion: String = APIConfiguration.defaultAppVersion,
        osType: String = APIConfiguration.defaultOSType, timeout: TimeInterval = APIConfiguration.defaultTimeout,
        authExpiredCodes: [Int] = APIConfiguration.defaultAuthExpiredCodes, insecureHTTP: Bool = false
    ) {
        self.environment = environment; self.appVersion = appVersion; self.osType = osType
        self.timeout = timeout; self.authExpiredCodes = authExpiredCodes; self.insecureHTTP = insecureHTTP
    }

    public var baseURL: URL { environment.baseURL }

    /// True when requests go over plain http to a host that is not loopback.
    public var isInsecureRemote: Bool {
        baseURL.scheme?.lowercased() == "http" && !APIEnvironment.isLoopback(host: baseURL.host)
    }

    /// Refuses plain http to a non-loopback host (unless `insecureHTTP`) and a non-positive timeout.
    public func validate() throws(APIError) {
        if isInsecureRemote && !insecureHTTP { throw APIError.insecureURL(url: baseURL.absoluteString) }
        guard timeout > 0, timeout.isFinite else {
            throw APIError.invalidURL(baseURL.absoluteString, reason: "timeout must be a positive number of seconds")
        }
    }
}
