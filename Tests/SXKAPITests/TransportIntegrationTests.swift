import Foundation
import Synchronization
import XCTest
import SXKCore
@testable import SXKAPI

/// The transport over real loopback HTTP (our own raw-socket server): `CurlTransport`, the one
/// transport for http and https (the https cases are in `HTTPSTransportTests`).
final class TransportIntegrationTests: XCTestCase {
    /// The transport under test, made for a given total deadline and body limit.
    func makeTransport(timeout: TimeInterval, totalTimeout: TimeInterval? = nil,
                       maxBodyBytes: Int = CurlTransport.defaultMaxBodyBytes) -> any HTTPTransport {
        CurlTransport(totalTimeout: totalTimeout, maxBodyBytes: maxBodyBytes)
    }

    /// Sends `request`, expects it to time out (after `seconds`, when given) and gives the time it took.
    func timeToTimeout(_ transport: any HTTPTransport, _ request: HTTPRequest, seconds: TimeInterval? = nil,
                       file: StaticString = #filePath, line: UInt = #line) async -> TimeInterval {
        let start = Date()
        do {
            _ = try await transport.send(request)
            XCTFail("expected a timeout", file: file, line: line)
        } catch let error as TransportError {
            if let seconds {
                XCTAssertEqual(error, .network(.timedOut(seconds: seconds)), file: file, line: line)
            } else if case .network(.timedOut) = error {
            } else {
                XCTFail("got \(error)", file: file, line: line)
            }
        } catch {
            XCTFail("got \(error)", file: file, line: line)
        }
        return Date().timeIntervalSince(start)
    }

    func client(_ server: LoopbackTestServer, timeout: TimeInterval = 5, observer: RecordingObserver = RecordingObserver(), token: String? = Fixture.sentinelToken) -> APIClient {
        let config = APIConfiguration(environment: .custom(server.url), timeout: timeout)
        return APIClient(configuration: config, transport: makeTransport(timeout: timeout), observer: observer, tokenProvider: { token })
    }

    func testRoundTripHeadersAndKeepAlive() async throws {
        let server = try LoopbackTestServer { _ in .json(Fixture.envelope("{\"enableRegister\":1}")) }
        defer { server.stop() }
        let api = AccountAPI(client: client(server))
        let first = try await api.config()
        XCTAssertEqual(first.value.enableRegister, true)
        _ = try await api.config()
        let received = server.requests
        XCTAssertEqual(received.count, 2)
        XCTAssertEqual(received[0].target, "/api/app/config")
        XCTAssertNil(received[0].header("token"), "the login page's config goes without the session's token")
        XCTAssertEqual(received[0].header("X-APP-VERSION"), "9.0.0")
        XCTAssertEqual(received[0].header("X-OS-TYPE"), "iOS")
        XCTAssertEqual(received[0].header("Accept"), "application/json")
        XCTAssertNil(received[0].header("Cookie"))
        XCTAssertEqual(server.connectionCount, 1, "the second request reuses the kept-alive connection")
    }

    /// A transport with a connection lifetime (the connection holder's) opens a new connection once the
    /// kept one is older than that, however recently it was used.
    func testAConnectionIsNotUsedPastItsLifetime() async throws {
        let server = try LoopbackTestServer { _ in .json(Fixture.envelope("{}")) }
        defer { server.stop() }
        let transport = CurlTransport(trust: .system(), allowPlainHTTPOffLoopback: false, totalTimeout: nil,
                                      maxBodyBytes: CurlTransport.defaultMaxBodyBytes, resolve: [], connectionLifetime: 1)
        let url = server.url.appendingPathComponent("api/app/config")
        _ = try await transport.send(HTTPRequest(method: "GET", url: url))
        _ = try await transport.send(HTTPRequest(method: "GET", url: url))
        XCTAssertEqual(server.connectionCount, 1, "a young connection is used again")
        // libcurl compares whole seconds, and only a greater age counts: 2 s past a lifetime of 1.
        try await Task.sleep(nanoseconds: 2_200_000_000)
        _ = try await transport.send(HTTPRequest(method: "GET", url: url))
        XCTAssertEqual(server.connectionCount, 2, "a connection past its lifetime was used again")
    }

    /// The app's concurrent pairs (userinfo ∥ role-permission at start, real-name ∥ bank-card) as the
    /// first requests to a plain-http origin: plain http cannot multiplex, so the second request takes
    /// a connection of its own at once instead of waiting behind the first.
    func testConcurrentPairOverPlainHTTPOverlapsOnTwoConnections() async throws {
        // Each answer waits (up to 5 s) until both requests are in: on a loaded machine the second
        // may start late, and it still must not wait behind the first.
        let arrived = Mutex(0)
        let server = try LoopbackTestServer { _ in
            arrived.withLock { $0 += 1 }
            let deadline = Date().addingTimeInterval(5)
            while arrived.withLock({ $0 }) < 2, Date() < deadline { usleep(5_000) }
            return .json(Fixture.envelope("{}"))
        }
        defer { server.stop() }
        let transport = makeTransport(timeout: 5)
        let url = server.url.appendingPathComponent("api/app/config")
        async let a = transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
        async let b = transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
        _ = try await (a, b)
        // Waiting behind the first would have reused its connection (one in all).
        XCTAssertEqual(server.connectionCount, 2, "the second request waited for the first one's connection")
    }

    /// The switch that keeps GnuTLS from initialising while libcurl loads (Sources/CCurl/sxk_curl.c)
    /// is gone again once libcurl is loaded, so no child process (the pager) inherits it.
    func testLoadingLibcurlLeavesNoVariableBehind() async throws {
        try XCTSkipIf(ProcessInfo.processInfo.environment["GNUTLS_NO_IMPLICIT_INIT"] != nil,
                      "GNUTLS_NO_IMPLICIT_INIT is set for this test run, so sxk leaves it as it is")
        let server = try LoopbackTestServer { _ in .json(Fixture.envelope("{}")) }
        defer { server.stop() }
        _ = try await AccountAPI(client: client(server)).config()
        XCTAssertNil(getenv("GNUTLS_NO_IMPLICIT_INIT"))
    }

    func testPostBodyArrivesAsJSON() async throws {
        let server = try LoopbackTestServer { _ in .json(Fixture.envelope("{\"token\":\"t-123456789\",\"accounts\":[]}")) }
        defer { server.stop() }
        _ = try await AccountAPI(client: client(server, token: nil)).login(username: "13800000001", password: Fixture.sentinelPassword)
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "{\"username\":\"13800000001\",\"password\":\"\(Fixture.sentinelPassword)\"}")
        XCTAssertNil(request.header("token"))
        XCTAssertEqual(request.header("Content-Type"), "application/json")
    }

    /// A body past the transport's limit fails with one error naming the limit, whether the size was
    /// announced (Content-Length) or only found while reading (no length, body until close).
    func testBodyPastTheLimitIsRefused() async throws {
        let big = Array(Fixture.envelope("\"" + String(repeating: "x", count: 8_000) + "\"").utf8)
        for announced in [true, false] {
            let server = try LoopbackTestServer { _ in
                announced ? .respond(status: 200, headers: [("Content-Type", "application/json")], body: big) : .respondUntilClose(status: 200, body: big)
            }
            defer { server.stop() }
            let config = APIConfiguration(environment: .custom(server.url), timeout: 5)
            let small = APIClient(configuration: config, transport: makeTransport(timeout: 5, maxBodyBytes: 4 << 10), tokenProvider: { nil })
            let started = Date()
            let error = await Fixture.expectError { try await small.get("/api/app/config") }
            XCTAssertLessThan(Date().timeIntervalSince(started), 3, "announced \(announced)")
            guard case .notJSON(200, let reason, _, let label)? = error else { XCTFail("announced \(announced): got \(String(describing: error))"); continue }
            XCTAssertTrue(reason.contains("limit"), reason)
            XCTAssertEqual(label.path, "/api/app/config")
            // Under the limit the same body is read.
            let roomy = APIClient(configuration: config, transport: makeTransport(timeout: 5, maxBodyBytes: 64 << 10), tokenProvider: { nil })
            let ok = try await roomy.get("/api/app/config")
            XCTAssertEqual(ok.data.stringValue?.count, 8_000, "announced \(announced)")
        }
    }

    func testCrossOriginRedirectIsRefusedAndTokenNeverReachesSecondServer() async throws {
        let second = try LoopbackTestServer { _ in .json(Fixture.envelope("{}")) }
        defer { second.stop() }
        let target = "http://127.0.0.1:\(second.port)/api/app/config"
        let first = try LoopbackTestServer { _ in .respond(status: 302, headers: [("Location", target)], body: []) }
        defer { first.stop() }
        let error = await Fixture.expectError { try await self.client(first).get("/api/app/config") }
        guard case .redirectRefused(let location, let label)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(location.contains("\(second.port)"))
        XCTAssertEqual(label.path, "/api/app/config")
        // Give a wrongly followed redirect time to arrive before asserting it did not.
        try await Task.sleep(nanoseconds: 200_000_000)
        XCTAssertTrue(second.requests.allSatisfy { $0.header("token") == nil }, "token leaked to another origin")
        XCTAssertEqual(second.requests.count, 0)
        XCTAssertEqual(first.requests.first?.header("token"), Fixture.sentinelToken)
    }

    func testSameOriginRedirectIsFollowedWithToken() async throws {
        let server = try LoopbackTestServer { request in
            request.target.hasPrefix("/old") ? .respond(status: 302, headers: [("Location", "/api/app/config")], body: []) : .json(Fixture.envelope("{\"enableRegister\":true}"))
        }
        defer { server.stop() }
        let response = try await client(server).get("/old")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(server.requests.map(\.target), ["/old", "/api/app/config"])
        XCTAssertEqual(server.requests.last?.header("token"), Fixture.sentinelToken)
    }

    func testHangingServerTimesOut() async throws {
        let server = try LoopbackTestServer { _ in .hang }
        defer { server.stop() }
        let start = Date()
        let error = await Fixture.expectError { try await self.client(server, timeout: 1).get("/api/app/config") }
        let elapsed = Date().timeIntervalSince(start)
        guard case .network(.timedOut, _)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual(error?.kind.exitCode, 4)
        XCTAssertGreaterThan(elapsed, 0.9)
        XCTAssertLessThan(elapsed, 4)
    }

    /// The timeout is total: a trickle that never pauses for 1 s still fails at 1 s.
    func testRequestTimeoutIsTotal() async throws {
        // 8 bytes, one every 0.4 s: 3.2 s in total, never 1 s without data.
        let server = try LoopbackTestServer { _ in .trickle(count: 8, interval: 0.4) }
        defer { server.stop() }
        let url = server.url.appendingPathComponent("slow")
        let elapsed = await timeToTimeout(makeTransport(timeout: 1), HTTPRequest(method: "GET", url: url, timeout: 1), seconds: 1)
        XCTAssertGreaterThan(elapsed, 0.9)
        XCTAssertLessThan(elapsed, 2.0)
    }

    /// One session serves every `--timeout`: the request's own timeout wins over the session's default.
    func testPerRequestTimeoutOverridesTheSessionDefault() async throws {
        let server = try LoopbackTestServer { _ in .hang }
        defer { server.stop() }
        let elapsed = await timeToTimeout(
            makeTransport(timeout: 20), HTTPRequest(method: "GET", url: server.url.appendingPathComponent("hang"), timeout: 1), seconds: 1)
        XCTAssertLessThan(elapsed, 3)
    }

    /// The transport's own total deadline bounds a trickle, whatever the request's own timeout.
    func testTotalTimeoutBoundsATrickle() async throws {
        let server = try LoopbackTestServer { _ in .trickle(count: 20, interval: 0.3) }
        defer { server.stop() }
        let elapsed = await timeToTimeout(
            makeTransport(timeout: 1, totalTimeout: 1.5), HTTPRequest(method: "GET", url: server.url.appendingPathComponent("slow"), timeout: 30))
        XCTAssertGreaterThan(elapsed, 1.4)
        XCTAssertLessThan(elapsed, 2.5)
    }

    func testCancellingTheTaskCancelsTheRequestPromptly() async throws {
        let server = try LoopbackTestServer { _ in .hang }
        defer { server.stop() }
        let api = client(server, timeout: 10)
        let task = Task { () -> APIError? in
            await Fixture.expectError { try await api.get("/api/app/config") }
        }
        XCTAssertTrue(server.waitUntil { server.requests.count == 1 }, "request never reached the server")
        let start = Date()
        task.cancel()
        let error = await task.value
        let elapsed = Date().timeIntervalSince(start)
        guard case .cancelled(let label)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual(label.path, "/api/app/config")
        XCTAssertEqual(error?.kind.exitCode, 130)
        // Against a request that would hang for its whole 10 s: the REPL wants < 0.25 s; 3 s leaves
        // room for a loaded machine and still tells a cancellation from the timeout.
        XCTAssertLessThan(elapsed, 3.0, "cancellation took \(elapsed) s")
        XCTAssertTrue(server.waitUntil(timeout: 3) { server.closedByPeerWhileHanging == 1 }, "server never saw the connection close")
    }

    /// The total deadline covers the connect: a SYN nobody answers fails at the timeout.
    func testUnansweredConnectTimesOutAtTheDeadline() async throws {
        let listener = try UnansweredListener()
        let elapsed = await timeToTimeout(
            makeTransport(timeout: 1), HTTPRequest(method: "GET", url: listener.url.appendingPathComponent("c"), timeout: 1), seconds: 1)
        XCTAssertGreaterThan(elapsed, 0.9)
        XCTAssertLessThan(elapsed, 2.5)
    }

    /// Ctrl-C while the connection is still being made ends the request at once, not at the deadline.
    func testCancellingDuringAnUnansweredConnectIsPrompt() async throws {
        let listener = try UnansweredListener()
        let transport = makeTransport(timeout: 20)
        let url = listener.url.appendingPathComponent("c")
        let task = Task { try await transport.send(HTTPRequest(method: "GET", url: url, timeout: 20)) }
        // Let the worker reach its poll on the connecting socket (cancelling earlier is quick either way).
        try await Task.sleep(nanoseconds: 300_000_000)
        let start = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected a cancellation")
        } catch let error as TransportError {
            XCTAssertEqual(error, .cancelled)
        }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertLessThan(elapsed, 3.0, "cancellation during connect took \(elapsed) s (the deadline is 20 s)")
        withExtendedLifetime(listener) {}
    }

    func testBodyCutOffByTheServerIsNotJSONWithWhatArrived() async throws {
        let server = try LoopbackTestServer { _ in
            .respond(status: 200, headers: [("Content-Length", "400"), ("Connection", "close")], body: Array("{\"code\":100000,\"data\":{\"token\":\"\(Fixture.sentinelTempToken)\",\"accounts\":[".utf8))
        }
        defer { server.stop() }
        let error = await Fixture.expectError { try await self.client(server).post("/api/app/v9/login", body: ["username": "1"]) }
        guard case .notJSON(200, let reason, let excerpt, let label)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(reason.hasPrefix("body is cut off"), reason)
        XCTAssertTrue(excerpt.hasPrefix("{\"code\":100000"), excerpt)
        XCTAssertFalse(excerpt.contains(Fixture.sentinelTempToken))
        XCTAssertEqual(label.path, "/api/app/v9/login")
    }

    func testConnectionRefusedSaysSo() async throws {
        let server = try LoopbackTestServer { _ in .hang }
        let port = server.port
        server.stop()
        try await Task.sleep(nanoseconds: 50_000_000)
        let config = APIConfiguration(environment: .custom(URL(string: "http://127.0.0.1:\(port)")!), timeout: 3)
        let api = APIClient(configuration: config, transport: makeTransport(timeout: 3))
        let error = await Fixture.expectError { try await api.get("/api/app/config") }
        guard case .network(let failure, _)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual(failure, .connectionRefused)
        XCTAssertEqual(error?.description, "GET /api/app/config: connection refused")
    }
}
