import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

/// What the HTTP/1.1 wire can throw at the transport over plain http: chunked bodies, interim
/// 1xx answers, a kept-alive connection the server closed, old-style bodies, garbage, and header
/// values that would split the request.
final class TransportWireTests: XCTestCase {
    func testChunkedBodyWithExtensionsAndTrailersIsJoined() async throws {
        let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\n6\r\n:\"é\"}\r\n0\r\nX-Trailer: 1\r\n\r\n"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: false) }
        defer { server.stop() }
        let transport = CurlTransport()
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
            _ = try await CurlTransport(maxBodyBytes: 4 << 10).send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("c")))
            XCTFail("expected a refusal")
        } catch let error as TransportError {
            XCTAssertEqual(error, .bodyTooLarge(status: 200, limit: 4 << 10))
        }
        let ok = try await CurlTransport(maxBodyBytes: 8 << 10).send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("c")))
        XCTAssertEqual(ok.body.count, 6000)
    }

    /// A field value loses the spaces and tabs around it (HTTP's optional whitespace), byte by byte,
    /// and only those: a no-break space is part of the value.
    func testFieldValuesLoseTheSpacesAndTabsAroundThem() async throws {
        let wire = "HTTP/1.1 200 OK\r\nX-Padded: \t a b \t\r\nX-Bare:c\r\nX-Empty: \t \r\nX-Nbsp: \u{a0}d\u{a0}\r\nX-Mark: \u{301}e \r\nContent-Length: 2\r\n\r\n{}"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: false) }
        defer { server.stop() }
        let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("h")))
        XCTAssertEqual(response.headers["X-Padded"], "a b")
        XCTAssertEqual(response.headers["X-Bare"], "c")
        XCTAssertEqual(response.headers["X-Empty"], "")
        XCTAssertEqual(response.headers["X-Nbsp"], "\u{a0}d\u{a0}")
        // A space before a combining mark is one Character with it, and still a space on the wire.
        XCTAssertEqual(response.headers["X-Mark"], "\u{301}e")
    }

    func testInterimContinueIsSkipped() async throws {
        let wire = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: false) }
        defer { server.stop() }
        let response = try await CurlTransport().send(HTTPRequest(method: "POST", url: server.url.appendingPathComponent("p"), body: Array("{}".utf8)))
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.body, Array("{}".utf8))
    }

    /// The server answers with keep-alive semantics, then closes: the next request must not fail
    /// but go out once more on a new connection.
    func testKeptAliveConnectionClosedByTheServerIsRetriedOnce() async throws {
        let wire = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
        let server = try LoopbackTestServer { _ in .raw(Array(wire.utf8), close: true) }
        defer { server.stop() }
        let transport = CurlTransport()
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
        let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("o")))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "{\"old\":true}")
    }

    func testGarbageInsteadOfHTTPIsABadResponse() async throws {
        let server = try LoopbackTestServer { _ in .raw(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8), close: true) }
        defer { server.stop() }
        do {
            _ = try await CurlTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("g")))
            XCTFail("expected a failure")
        } catch let error as TransportError {
            // Not the network's fault: bad data from the server (exit 1, not 4).
            guard case .unreadable(let why) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(why.contains("HTTP/0.9") || why.contains("Weird server reply"), why)
        }
    }

    func testHeaderValueWithALineBreakIsRefusedBeforeSending() async throws {
        let server = try LoopbackTestServer { _ in .json("{}") }
        defer { server.stop() }
        var request = HTTPRequest(method: "GET", url: server.url.appendingPathComponent("h"))
        request.headers.append("token", "abc\r\nX-Evil: 1")
        do {
            _ = try await CurlTransport().send(request)
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
        _ = try await CurlTransport().send(HTTPRequest(method: "GET", url: url))
        XCTAssertEqual(server.requests.first?.target, "/api/a%20b?keyword=%E8%A5%BF&page=2")
        XCTAssertEqual(server.requests.first?.header("Host"), "127.0.0.1:\(server.port)")
    }

    /// A huge `--timeout` (accepted by the option parser: positive and finite) is a long wait, not a
    /// trap converting it to milliseconds.
    func testHugeTimeoutIsALongDeadlineNotACrash() async throws {
        let server = try LoopbackTestServer { _ in .json("{}") }
        defer { server.stop() }
        for timeout in [1e300, 1e11, .infinity] {
            let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("t"), timeout: timeout))
            XCTAssertEqual(response.status, 200)
        }
    }

    /// The wire facts other code shows (`--trace`, `timing on`, HAR): protocol, reuse, address, sizes.
    func testMetricsSayProtocolReuseAndSizes() async throws {
        let server = try LoopbackTestServer { _ in .json("{\"a\":1}") }
        defer { server.stop() }
        let transport = CurlTransport()
        let url = server.url.appendingPathComponent("m")
        let one = try await transport.send(HTTPRequest(method: "GET", url: url))
        let two = try await transport.send(HTTPRequest(method: "GET", url: url))
        let first = try XCTUnwrap(one.metrics)
        let second = try XCTUnwrap(two.metrics)
        XCTAssertEqual(first.httpVersion, "http/1.1")
        XCTAssertFalse(first.connectionReused)
        XCTAssertTrue(second.connectionReused)
        XCTAssertEqual(first.remoteAddress, "127.0.0.1:\(server.port)")
        XCTAssertEqual(first.responseBodyBytes, 7)
        XCTAssertGreaterThan(first.requestBytes, 20)
        XCTAssertTrue(first.dnsDone <= first.connected && first.connected <= first.tlsDone && first.tlsDone <= first.firstByte && first.firstByte <= first.total, "\(first)")
    }
}
