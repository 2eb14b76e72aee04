import Foundation
import XCTest
@testable import SXKAPI

/// Answers built to exhaust a client: a compression bomb, lying Content-Length, endless 1xx
/// answers, endless trailers, a one-byte drip, and a name that resolves off loopback. Each must
/// end in one error, within the deadline, with memory bounded. `HTTPSTransportTests` runs the
/// ones a TLS terminator can carry over https.
final class HostileServerTests: XCTestCase {
    /// A gzip stream that never ends and decodes to 258 zero bytes per 13 bits: fixed-Huffman
    /// deflate, one literal then length-258/distance-1 copies forever (8 copies = 13 bytes).
    /// `prefix` is the gzip header and the stream's first bytes; `unit` repeats (a 1 MiB slice of
    /// it decodes to about 160 MiB).
    static let gzipBomb: (prefix: [UInt8], unit: [UInt8]) = {
        var bits: [Bool] = []
        func huffman(_ code: Int, _ count: Int) { for i in (0..<count).reversed() { bits.append(code >> i & 1 == 1) } }
        bits += [true, true, false]          // BFINAL=1, BTYPE=01 (fixed Huffman), LSB first
        huffman(0x30, 8)                      // literal 0x00
        for _ in 0..<16 { huffman(0xC5, 8); huffman(0, 5) }  // length 258 (code 285), distance 1
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: bits.count - 7, by: 8) {
            var byte: UInt8 = 0
            for i in 0..<8 where bits[start + i] { byte |= 1 << i }
            bytes.append(byte)
        }
        // From bit 16 on the symbols repeat every 104 bits = 13 bytes.
        let period = Array(bytes[2..<15])
        let unit = Array([[UInt8]](repeating: period, count: (1 << 20) / 13).joined())
        return ([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + bytes[0..<2], unit)
    }()

    static func bombAction() -> LoopbackTestServer.Action {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n"
        return .endless(head: Array(head.utf8) + gzipBomb.prefix, unit: gzipBomb.unit, interval: 0)
    }

    /// Resident memory of this process now, in bytes.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// Runs `body` while sampling resident memory every 2 ms; gives the peak growth over the start.
    static func peakGrowth(_ body: () async -> Void) async -> Int {
        let base = residentBytes()
        let peak = PeakSampler()
        let sampler = Thread { peak.run() }
        sampler.start()
        await body()
        return peak.stop() - base
    }

    /// A compression bomb stops at the decoded limit: one error, and memory grows by about the
    /// limit, not by what the stream would decode to (unbounded).
    func testGzipBombStopsAtTheDecodedLimitWithMemoryBounded() async throws {
        let server = try LoopbackTestServer { _ in Self.bombAction() }
        defer { server.stop() }
        try await Self.expectBombRefused(CurlTransport(), url: server.url.appendingPathComponent("bomb"))
    }

    static func expectBombRefused(_ transport: CurlTransport, url: URL, file: StaticString = #filePath, line: UInt = #line) async throws {
        var caught: (any Error)?
        let growth = await peakGrowth {
            do { _ = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: 20)) } catch { caught = error }
        }
        XCTAssertEqual(caught as? TransportError, .bodyTooLarge(status: 200, limit: CurlTransport.defaultMaxBodyBytes), file: file, line: line)
        print("gzip bomb: peak resident growth \(growth >> 20) MiB")
        // The limit is 32 MiB of decoded body; the array holding it may briefly be copied once.
        XCTAssertLessThan(growth, 100 << 20, "memory grew by \(growth >> 20) MiB", file: file, line: line)
    }

    func testContentLengthLies() async throws {
        // Announces more than it sends, then closes: cut off, with what arrived.
        let short = try LoopbackTestServer { _ in
            .raw(Array("HTTP/1.1 200 OK\r\nContent-Length: 400\r\nConnection: close\r\n\r\n{\"a\":".utf8), close: true)
        }
        defer { short.stop() }
        do {
            _ = try await CurlTransport().send(HTTPRequest(method: "GET", url: short.url.appendingPathComponent("s")))
            XCTFail("expected a cut-off body")
        } catch let error as TransportError {
            XCTAssertEqual(error, .truncatedBody(status: 200, received: Array("{\"a\":".utf8)))
        }
        // Announces a petabyte: refused from the head, nothing buffered.
        let huge = try LoopbackTestServer { _ in
            .endless(head: Array("HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n\r\n".utf8), unit: [UInt8](repeating: 0x20, count: 65536), interval: 0)
        }
        defer { huge.stop() }
        let growth = await Self.peakGrowth {
            do {
                _ = try await CurlTransport().send(HTTPRequest(method: "GET", url: huge.url.appendingPathComponent("h")))
                XCTFail("expected a refusal")
            } catch {
                XCTAssertEqual(error as? TransportError, .bodyTooLarge(status: 200, limit: CurlTransport.defaultMaxBodyBytes))
            }
        }
        XCTAssertLessThan(growth, 100 << 20)
        // Announces less than it sends: exactly the announced bytes are the body.
        let long = try LoopbackTestServer { _ in .raw(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}garbage-after-the-body".utf8), close: true) }
        defer { long.stop() }
        let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: long.url.appendingPathComponent("l")))
        XCTAssertEqual(response.body, Array("{}".utf8))
    }

    /// Endless interim answers: sent fast they pass the head limit at once; dripped they stop at the deadline.
    func testEndless1xxAnswersStop() async throws {
        let unit = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        let fast = try LoopbackTestServer { _ in .endless(head: [], unit: unit, interval: 0) }
        defer { fast.stop() }
        await Self.expectBoundedFailure(fast.url.appendingPathComponent("c"), seconds: 1)
        let slow = try LoopbackTestServer { _ in .endless(head: [], unit: unit, interval: 0.05) }
        defer { slow.stop() }
        await Self.expectBoundedFailure(slow.url.appendingPathComponent("c"), seconds: 1, expectTimeout: true)
    }

    func testEndlessTrailersStop() async throws {
        let head = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n".utf8)
        let unit = Array("X-Trailer: \(String(repeating: "t", count: 100))\r\n".utf8)
        let fast = try LoopbackTestServer { _ in .endless(head: head, unit: unit, interval: 0) }
        defer { fast.stop() }
        await Self.expectBoundedFailure(fast.url.appendingPathComponent("t"), seconds: 1)
        let slow = try LoopbackTestServer { _ in .endless(head: head, unit: unit, interval: 0.05) }
        defer { slow.stop() }
        await Self.expectBoundedFailure(slow.url.appendingPathComponent("t"), seconds: 1, expectTimeout: true)
    }

    func testOneByteDripStopsAtTheDeadline() async throws {
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n".utf8)
        let server = try LoopbackTestServer { _ in .endless(head: head, unit: [0x20], interval: 0.05) }
        defer { server.stop() }
        await Self.expectBoundedFailure(server.url.appendingPathComponent("d"), seconds: 1, expectTimeout: true)
    }

    static func expectBoundedFailure(_ url: URL, seconds: TimeInterval, expectTimeout: Bool = false, transport: CurlTransport = CurlTransport(),
                              file: StaticString = #filePath, line: UInt = #line) async {
        let started = Date()
        do {
            _ = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: seconds))
            XCTFail("expected a failure", file: file, line: line)
        } catch let error as TransportError {
            if expectTimeout {
                XCTAssertEqual(error, .network(.timedOut(seconds: seconds)), file: file, line: line)
            } else if case .network(.timedOut) = error {
            } else if case .unreadable = error {
            } else {
                XCTFail("got \(error)", file: file, line: line)
            }
        } catch {
            XCTFail("got \(error)", file: file, line: line)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), seconds + 1.5, file: file, line: line)
    }

    /// The loopback rule goes by the resolved address, not the name: a name given a non-loopback
    /// address is refused before any socket opens. 0.0.0.0 is the address used: not loopback, yet a
    /// connection to it stays on this machine (Linux delivers it locally), so a wrong "yes" reaches
    /// our own server (and the test sees it) instead of another host.
    func testPlainHTTPToANameResolvingOffLoopbackIsRefused() async throws {
        let server = try LoopbackTestServer { _ in .json("{}") }
        defer { server.stop() }
        for name in ["evil.localhost", "api.example.test"] {
            let resolve = ["\(name):\(server.port):0.0.0.0"]
            let url = URL(string: "http://\(name):\(server.port)/api/app/config")!
            let strict = CurlTransport(trust: .system(), allowPlainHTTPOffLoopback: false, totalTimeout: nil, maxBodyBytes: 1 << 20, resolve: resolve)
            do {
                _ = try await strict.send(HTTPRequest(method: "GET", url: url, timeout: 3))
                XCTFail("\(name): expected a refusal")
            } catch let error as TransportError {
                XCTAssertEqual(error, .plainHTTPRefused(host: name, address: "0.0.0.0"))
            }
            XCTAssertEqual(server.requests.count, 0, "\(name): a request was sent")
        }
        // The same resolution with --insecure-http goes through: the gate, not the seam, refused above.
        let url = URL(string: "http://api.example.test:\(server.port)/x")!
        let insecure = CurlTransport(trust: .system(), allowPlainHTTPOffLoopback: true, totalTimeout: nil, maxBodyBytes: 1 << 20,
                                     resolve: ["api.example.test:\(server.port):0.0.0.0"])
        let response = try await insecure.send(HTTPRequest(method: "GET", url: url, timeout: 3))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(server.requests.count, 1)
    }
}

/// Samples resident memory on its own thread until stopped; gives the peak.
final class PeakSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var running = true

    func run() {
        while lock.withLock({ running }) {
            let now = HostileServerTests.residentBytes()
            lock.withLock { peak = max(peak, now) }
            usleep(2_000)
        }
    }

    func stop() -> Int {
        lock.withLock {
            running = false
            return max(peak, HostileServerTests.residentBytes())
        }
    }
}
