import Foundation
import SXKCore
@testable import SXKAPI

/// Records observer calls for assertions.
final class RecordingObserver: APIObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var _requests: [TraceRequest] = []
    private var _responses: [TraceResponse] = []
    private var _expiries: [SessionExpiry] = []
    private var _warnings: [String] = []
    private var _activities: [RequestActivity] = []

    var requests: [TraceRequest] { lock.withLock { _requests } }
    var responses: [TraceResponse] { lock.withLock { _responses } }
    var expiries: [SessionExpiry] { lock.withLock { _expiries } }
    var warnings: [String] { lock.withLock { _warnings } }
    var activities: [RequestActivity] { lock.withLock { _activities } }

    func requestWillSend(_ request: TraceRequest) { lock.withLock { _requests.append(request) } }
    func responseReceived(_ response: TraceResponse) { lock.withLock { _responses.append(response) } }
    func sessionExpired(_ event: SessionExpiry) { lock.withLock { _expiries.append(event) } }
    func warning(_ message: String) { lock.withLock { _warnings.append(message) } }
    func requestStarted(_ activity: RequestActivity) { lock.withLock { _activities.append(activity) } }

    /// Everything recorded, as text, to search for leaked secrets.
    var allText: String {
        lock.withLock {
            (_requests.map { "\($0)" } + _responses.map { "\($0)" } + _expiries.map { "\($0)" } + _warnings
                + _activities.map(\.label)).joined(separator: "\n")
        }
    }
}

/// A mutable value shared with `@Sendable` closures in tests.
final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
    func mutate(_ f: (inout Value) -> Void) { lock.withLock { f(&_value) } }
}

enum Fixture {
    static let sentinelToken = "SENTINEL-TOKEN-7f3a9c2e5b1d"
    static let sentinelTempToken = "SENTINEL-TEMP-4e8b1a6c0d2f"
    static let sentinelPassword = "SENTINEL-PW-93jf02kd"

    static func envelope(_ data: String, code: String = "100000", msg: String = "\"success\"") -> String {
        "{\"code\":\(code),\"msg\":\(msg),\"data\":\(data)}"
    }

    static func ok(_ data: String) -> HTTPResponse { HTTPResponse(status: 200, text: envelope(data)) }

    /// A client over a closure transport that records every request it sends.
    static func client(
        observer: RecordingObserver = RecordingObserver(), token: String? = Fixture.sentinelToken,
        configuration: APIConfiguration = APIConfiguration(environment: .custom(URL(string: "https://api.example.test")!)),
        sent: Box<[HTTPRequest]> = Box([]), reply: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) -> APIClient {
        APIClient(configuration: configuration, transport: ClosureTransport { request in
            sent.mutate { $0.append(request) }
            return try await reply(request)
        }, observer: observer, tokenProvider: { token })
    }

    /// The APIError a call throws, nil when it succeeds (any other error fails the test by becoming nil-safe text).
    static func expectError<T>(_ body: () async throws -> T) async -> APIError? {
        do {
            _ = try await body()
            return nil
        } catch let error as APIError {
            return error
        } catch {
            return .network(.other("non-API error \(error)"), request: RequestLabel(method: "?", path: "?"))
        }
    }
}
