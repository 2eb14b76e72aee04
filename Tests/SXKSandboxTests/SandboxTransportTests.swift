import Foundation
import Glibc
import SXKCore
import XCTest
@testable import SXKSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class SandboxTransportTests: SandboxTestCase {
    func testKeepAliveServesSeveralRequestsOnOneConnection() throws {
        let client = try RawHTTPClient(port: port)
        for _ in 0..<5 {
            let response = try client.request("GET", "/api/app/config")
            XCTAssertEqual(response.code, 100000)
            XCTAssertEqual(response.header("Connection"), "keep-alive")
        }
        // Two pipelined requests in one write are answered in order.
        client.send(RawHTTPClient.requestText("GET", "/api/app/config") + RawHTTPClient.requestText("GET", "/nope"))
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertEqual(try client.readResponse().status, 404)
        // Connection: close is honoured.
        let closing = try client.request("GET", "/api/app/config")
        XCTAssertEqual(closing.status, 200)
        client.send(RawHTTPClient.requestText("GET", "/api/app/config", extraHeaders: ["Connection: close"]))
        XCTAssertEqual(try client.readResponse().header("Connection"), "close")
        XCTAssertTrue(client.readsEOF())
    }

    func testChunkedRequestBody() throws {
        let client = try RawHTTPClient(port: port)
        let body = #"{"username":"13800000001","password":"sandbox123"}"#
        let bytes = Array(body.utf8)
        var text = "POST /api/app/v9/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        text += String(10, radix: 16) + "\r\n" + String(decoding: bytes[0..<10], as: UTF8.self) + "\r\n"
        text += String(bytes.count - 10, radix: 16) + ";ext=1\r\n" + String(decoding: bytes[10...], as: UTF8.self) + "\r\n0\r\n\r\n"
        // Split across writes to exercise partial reads.
        let all = Array(text.utf8)
        client.send(Array(all[0..<40]))
        usleep(20_000)
        client.send(Array(all[40...]))
        let response = try client.readResponse()
        XCTAssertEqual(response.code, 100000, response.text)
        XCTAssertEqual(response.data?[field: "accounts"]?.arrayValue?.count, 1)
        // The connection stays usable afterwards.
        XCTAssertEqual(try client.request("GET", "/api/app/config").code, 100000)
    }

    func testExpectContinueAndSizeLimits() throws {
        let client = try RawHTTPClient(port: port)
        client.send("POST /api/app/v9/login HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        let interim = try client.readResponse()
        XCTAssertEqual(interim.status, 100)
        client.send("{}")
        XCTAssertEqual(try client.readResponse().code, 100400)

        let big = try RawHTTPClient(port: port)
        big.send("POST /api/app/v9/login HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 << 20)\r\n\r\n")
        XCTAssertEqual(try big.readResponse().status, 413)
        let headers = try RawHTTPClient(port: port)
        headers.send("GET /api/app/config HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 40_000))\r\n\r\n")
        XCTAssertEqual(try headers.readResponse().status, 431)
        let garbage = try RawHTTPClient(port: port)
        garbage.send("NONSENSE\r\n\r\n")
        XCTAssertEqual(try garbage.readResponse().status, 400)
    }

    func testConcurrentConnections() throws {
        let port = self.port
        let failures = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do {
                let client = try RawHTTPClient(port: port)
                for _ in 0..<20 where try client.request("GET", "/api/app/config").code != 100000 { failures.increment() }
            } catch { failures.increment() }
        }
        XCTAssertEqual(failures.value, 0)
    }

    func testURLSessionTalksToTheSandbox() async throws {
        var request = URLRequest(url: server.baseURL!.appendingPathComponent("api/app/v9/login"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"username":"13800000003","password":"sandbox123"}"#.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        let json = try JSONParser.parse(Array(data))
        XCTAssertEqual(json[field: "data"]?[field: "accounts"]?.arrayValue?.first?[field: "userId"]?.intValue, 3001)
    }

    func testStopClosesThePortAndOpenConnections() throws {
        let port = self.port
        let idle = try RawHTTPClient(port: port)
        XCTAssertEqual(try idle.request("GET", "/api/app/config").code, 100000)
        server.injectFault(path: "/api/app/config", kind: .hang)
        let hanging = try RawHTTPClient(port: port)
        hanging.send(RawHTTPClient.requestText("GET", "/api/app/config"))
        waitUntil { self.server.pendingFaults.isEmpty }
        let started = Date()
        server.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertTrue(idle.readsEOF())
        XCTAssertTrue(hanging.readsEOF())
        XCTAssertThrowsError(try RawHTTPClient(port: port))
        XCTAssertNil(server.baseURL)
    }

    func testHostsOtherThanLoopbackAreRefused() {
        for host in ["0.0.0.0", "192.168.1.10", "example.com"] {
            XCTAssertThrowsError(try SandboxServer(config: SandboxConfig(host: host)).start()) { error in
                XCTAssertEqual(error as? SandboxError, .nonLoopbackHost(host))
            }
        }
        XCTAssertThrowsError(try SandboxServer(config: SandboxConfig(ordersPerRole: 0)).start())
    }

    func testIPv6Loopback() throws {
        let v6 = SandboxServer(config: SandboxConfig(host: "::1"))
        let url: URL
        // Skips only where the kernel has no ::1 (IPv6 disabled); this machine has it, so CI runs it.
        do { url = try v6.start() } catch { throw XCTSkip("no IPv6 loopback here: \(error)") }
        defer { v6.stop() }
        XCTAssertEqual(url.host, "::1")
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(v6.port!).bigEndian)
        address.sin6_addr = in6addr_loopback
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        XCTAssertEqual(result, 0)
    }

    /// Polls `condition` until it holds or 5 s pass.
    func waitUntil(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            if Date() > deadline { XCTFail("condition not met in 5 s", file: file, line: line); return }
            usleep(5_000)
        }
    }
}

/// A thread-safe counter for concurrent test bodies.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
