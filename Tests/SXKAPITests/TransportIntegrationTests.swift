import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

/// The transports over real loopback HTTP (our own raw-socket server). This class runs every
/// shared case on URLSessionTransport; `PlainTransportIntegrationTests` runs them on PlainHTTPTransport.
class TransportIntegrationTests: XCTestCase {
    /// What a transport's `timeout` measures on an answer that keeps trickling.
    enum TimeoutSemantics {
        /// Time without data (URLSession's session timeout on Linux); the request's own is the total.
        case idle
        /// The whole request, from connect to the last byte.
        case total
    }

    /// The transport under test, made for a given timeout (and total deadline, when set).
    func makeTransport(timeout: TimeInterval, totalTimeout: TimeInterval? = nil,
                       maxBodyBytes: Int = URLSessionTransport.defaultMaxBodyBytes) -> any HTTPTransport {
        URLSessionTransport(timeout: timeout, totalTimeout: totalTimeout, maxBodyBytes: maxBodyBytes)
    }

    /// What the timeout given to `makeTransport` measures.
    var timeoutSemantics: TimeoutSemantics { .idle }

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
        XCTAssertEqual(received[0].header("token"), Fixture.sentinelToken)
        XCTAssertEqual(received[0].header("X-APP-VERSION"), "9.0.0")
        XCTAssertEqual(received[0].header("X-OS-TYPE"), "iOS")
        XCTAssertEqual(received[0].header("Accept"), "application/json")
        XCTAssertNil(received[0].header("Cookie"))
        XCTAssertEqual(server.connectionCount, 1, "the second request reuses the kept-alive connection")
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

    /// The finding documented on `URLSessionTransport`: its timeout is an idle timeout. The plain
    /// transport's is total: a trickle that never pauses for 1 s still fails at 1 s.
    func testRequestTimeoutIsIdleOrTotalAsDocumented() async throws {
        // 8 bytes, one every 0.4 s: 3.2 s in total, never 1 s without data.
        let server = try LoopbackTestServer { _ in .trickle(count: 8, interval: 0.4) }
        defer { server.stop() }
        let url = server.url.appendingPathComponent("slow")
        switch timeoutSemantics {
        case .idle:
            // Idle timeout 1 s; the request's own (total) timeout 30 s.
            let start = Date()
            let response = try await makeTransport(timeout: 1).send(HTTPRequest(method: "GET", url: url, timeout: 30))
            XCTAssertEqual(response.body.count, 8)
            XCTAssertGreaterThan(Date().timeIntervalSince(start), 3.0, "a total timeout would have fired at 1 s")
        case .total:
            let elapsed = await timeToTimeout(makeTransport(timeout: 1), HTTPRequest(method: "GET", url: url, timeout: 1), seconds: 1)
            XCTAssertGreaterThan(elapsed, 0.9)
            XCTAssertLessThan(elapsed, 2.0)
        }
    }

    /// One session serves every `--timeout`: the request's own timeout wins over the session's default.
    func testPerRequestTimeoutOverridesTheSessionDefault() async throws {
        let server = try LoopbackTestServer { _ in .hang }
        defer { server.stop() }
        let elapsed = await timeToTimeout(
            makeTransport(timeout: 20), HTTPRequest(method: "GET", url: server.url.appendingPathComponent("hang"), timeout: 1), seconds: 1)
        XCTAssertLessThan(elapsed, 3)
    }

    /// Linux ignores `timeoutIntervalForResource`; the transport's own total deadline bounds a
    /// trickle, whatever the request's own timeout.
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
        XCTAssertLessThan(elapsed, 1.0, "cancellation took \(elapsed) s (the REPL wants < 0.25 s; 1 s leaves room for a loaded machine)")
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
        XCTAssertLessThan(elapsed, 1.0, "cancellation during connect took \(elapsed) s")
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

/// Every shared case again on `PlainHTTPTransport`, plus what only a hand-written HTTP/1.1 client
/// must get right: chunked bodies, interim 1xx answers, a kept-alive connection the server closed,
/// and header values that would split the request.
final class PlainTransportIntegrationTests: TransportIntegrationTests {
    override func makeTransport(timeout: TimeInterval, totalTimeout: TimeInterval? = nil,
                                maxBodyBytes: Int = URLSessionTransport.defaultMaxBodyBytes) -> any HTTPTransport {
        PlainHTTPTransport(totalTimeout: totalTimeout, maxBodyBytes: maxBodyBytes)
    }

    override var timeoutSemantics: TimeoutSemantics { .total }

    func testChunkedBodyWithExtensionsAndTrailersIsJoined() async throws {
        let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\n6\r\n:\"é\"}\r\n0\r\nX-Trailer: 1\r\n\r\n"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: false) }
        defer { server.stop() }
        let transport = PlainHTTPTransport()
        for _ in 0..<2 {
            let response = try await transport.send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("c")))
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "{\"a\":\"é\"}")
        }
        XCTAssertEqual(server.connectionCount, 1, "a chunked answer leaves the connection reusable")
    }

    func testChunkedBodyPastTheLimitIsRefused() async throws {
        let chunk = String(repeating: "x", count: 3000)
        let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nbb8\r\n\(chunk)\r\nbb8\r\n\(chunk)\r\n0\r\n\r\n"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: false) }
        defer { server.stop() }
        do {
            _ = try await PlainHTTPTransport(maxBodyBytes: 4 << 10).send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("c")))
            XCTFail("expected a refusal")
        } catch let error as TransportError {
            XCTAssertEqual(error, .bodyTooLarge(status: 200, limit: 4 << 10))
        }
        let ok = try await PlainHTTPTransport(maxBodyBytes: 8 << 10).send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("c")))
        XCTAssertEqual(ok.body.count, 6000)
    }

    func testInterimContinueIsSkipped() async throws {
        let wire = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: false) }
        defer { server.stop() }
        let response = try await PlainHTTPTransport().send(HTTPRequest(method: "POST", url: server.url.appendingPathComponent("p"), body: Array("{}".utf8)))
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.body, Array("{}".utf8))
    }

    /// The server answers with keep-alive semantics, then closes: the next request must not fail
    /// but go out once more on a new connection.
    func testKeptAliveConnectionClosedByTheServerIsRetriedOnce() async throws {
        let wire = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: true) }
        defer { server.stop() }
        let transport = PlainHTTPTransport()
        for _ in 0..<3 {
            let response = try await transport.send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("k")))
            XCTAssertEqual(response.status, 200)
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTAssertEqual(server.requests.count, 3)
        XCTAssertEqual(server.connectionCount, 3)
    }

    func testBodyUntilCloseWithoutLength() async throws {
        let wire = "HTTP/1.0 200 OK\r\n\r\n{\"old\":true}"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: true) }
        defer { server.stop() }
        let response = try await PlainHTTPTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("o")))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "{\"old\":true}")
    }

    func testGarbageInsteadOfHTTPIsABadResponse() async throws {
        let server = try LoopbackTestServer { _ in .raw(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8), close: true) }
        defer { server.stop() }
        do {
            _ = try await PlainHTTPTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("g")))
            XCTFail("expected a failure")
        } catch let error as TransportError {
            guard case .network(.other(let why)) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(why.hasPrefix("bad server response"), why)
        }
    }

    func testHeaderValueWithALineBreakIsRefusedBeforeSending() async throws {
        let server = try LoopbackTestServer { _ in .json("{}") }
        defer { server.stop() }
        var request = HTTPRequest(method: "GET", url: server.url.appendingPathComponent("h"))
        request.headers.append("token", "abc\r\nX-Evil: 1")
        do {
            _ = try await PlainHTTPTransport().send(request)
            XCTFail("expected a refusal")
        } catch let error as TransportError {
            guard case .network(.other(let why)) = error else { return XCTFail("got \(error)") }
            XCTAssertFalse(why.contains("abc"), "the value (maybe a token) must not reach the message")
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testQueryAndEscapedPathGoOutAsWritten() async throws {
        let server = try LoopbackTestServer { _ in .json("{}") }
        defer { server.stop() }
        let url = URL(string: "\(server.url.absoluteString)/api/a%20b?keyword=%E8%A5%BF&page=2")!
        _ = try await PlainHTTPTransport().send(HTTPRequest(method: "GET", url: url))
        XCTAssertEqual(server.requests.first?.target, "/api/a%20b?keyword=%E8%A5%BF&page=2")
        XCTAssertEqual(server.requests.first?.header("Host"), "127.0.0.1:\(server.port)")
    }

    /// A huge `--timeout` (accepted by the option parser: positive and finite) is a long wait, not a
    /// trap converting it to nanoseconds.
    func testHugeTimeoutIsALongDeadlineNotACrash() async throws {
        XCTAssertEqual(Deadline(seconds: 1e11).remainingMilliseconds, Int32.max)
        XCTAssertEqual(Deadline(seconds: .infinity).remainingMilliseconds, Int32.max)
        XCTAssertEqual(Deadline(seconds: -1).remainingMilliseconds, 0)
        let server = try LoopbackTestServer { _ in .json("{}") }
        defer { server.stop() }
        let response = try await PlainHTTPTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("t"), timeout: 1e300))
        XCTAssertEqual(response.status, 200)
    }

    func testRoutingPlainForHTTPURLSessionForHTTPSAndProxies() {
        let http = URL(string: "http://127.0.0.1:8080/x")!
        let https = URL(string: "https://api.example.com/x")!
        XCTAssertTrue(DefaultTransport(timeout: 5, environment: [:]).usesPlain(http))
        XCTAssertFalse(DefaultTransport(timeout: 5, environment: [:]).usesPlain(https))
        XCTAssertFalse(DefaultTransport(timeout: 5, environment: ["SXK_HTTP_TRANSPORT": "urlsession"]).usesPlain(http))
        XCTAssertFalse(DefaultTransport(timeout: 5, environment: ["http_proxy": "http://proxy:3128"]).usesPlain(http))
        XCTAssertTrue(DefaultTransport(timeout: 5, environment: ["http_proxy": "http://proxy:3128", "no_proxy": "localhost,127.0.0.1"]).usesPlain(http))
        XCTAssertFalse(DefaultTransport(timeout: 5, environment: ["HTTP_PROXY": "http://proxy:3128"]).usesPlain(http) == false,
                       "uppercase HTTP_PROXY is ignored for http:// (as libcurl does, httpoxy)")
    }
}
