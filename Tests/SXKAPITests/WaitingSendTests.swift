import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

/// `CurlTransport.sendWaiting`, what the connection holder's workers send with: the same redirect
/// rule as `send` (one `RedirectChain`), and a transfer that ends when its caller says it is abandoned.
final class WaitingSendTests: XCTestCase {
    func testSameOriginRedirectsAreFollowedAndA303GoesOnAsAGet() throws {
        let server = try LoopbackTestServer { request in
            switch request.target {
            case "/start": return .respond(status: 303, headers: [("Location", "/next"), ("Content-Length", "0")], body: [])
            case "/next": return .json("{\"method\":\"\(request.method)\",\"body\":\(request.body.count)}")
            default: return .json("{}", status: 404)
            }
        }
        defer { server.stop() }
        let request = HTTPRequest(method: "POST", url: server.url.appendingPathComponent("start"), body: Array("{\"a\":1}".utf8))
        let response = try CurlTransport().sendWaiting(request) { false }
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "{\"method\":\"GET\",\"body\":0}")
        XCTAssertEqual(server.requests.map { "\($0.method) \($0.target)" }, ["POST /start", "GET /next"])
        // And the same answer from the task-based path.
        let viaTask = try waitFor { try await CurlTransport().send(request) }
        XCTAssertEqual(viaTask.body, response.body)
    }

    func testARedirectToAnotherOriginIsRefused() throws {
        let server = try LoopbackTestServer { _ in
            .respond(status: 302, headers: [("Location", "http://127.0.0.2:9/elsewhere"), ("Content-Length", "0")], body: [])
        }
        defer { server.stop() }
        XCTAssertThrowsError(try CurlTransport().sendWaiting(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("x"))) { false }) {
            XCTAssertEqual($0 as? TransportError, .redirectRefused(location: "http://127.0.0.2:9"))
        }
        XCTAssertEqual(server.requests.count, 1)
    }

    /// The holder's client went away: the transfer stops at the next 50 ms check, not at its timeout.
    func testAnAbandonedTransferEndsAsCancelled() throws {
        let server = try LoopbackTestServer { _ in .hang }
        defer { server.stop() }
        let started = Date()
        var asked = 0
        var request = HTTPRequest(method: "GET", url: server.url.appendingPathComponent("slow"))
        request.timeout = 30
        XCTAssertThrowsError(try CurlTransport().sendWaiting(request) {
            asked += 1
            return asked == 4
        }) {
            XCTAssertEqual($0 as? TransportError, .cancelled)
        }
        // Asked every 50 ms, not in a busy loop: four asks take three waits at least (a loaded
        // machine makes them longer, never shorter).
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.14, "asked without waiting between")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "ended by the check, not the 30 s timeout")
        XCTAssertEqual(asked, 4)
    }

    /// Runs an async call to its end from a synchronous test.
    private func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, Error>?
        Task {
            do { result = .success(try await body()) } catch { result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try result!.get()
    }
}
