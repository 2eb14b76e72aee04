import Foundation
import XCTest
@testable import SXKAPI

/// Proxies from the environment: never for a loopback backend (the token would go to whatever
/// listens on the proxy port); for any other, as libcurl reads them, and a failure there names the
/// proxy rather than the backend.
final class ProxyTests: XCTestCase {
    private var saved: [String: String?] = [:]
    private func setProxy(_ name: String, _ value: String) {
        if saved[name] == nil { saved[name] = ProcessInfo.processInfo.environment[name].map { Optional($0) } ?? .some(nil) }
        setenv(name, value, 1)
    }

    override func tearDown() {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        saved = [:]
    }

    func testALoopbackBackendNeverGoesThroughAProxy() async throws {
        let backend = try LoopbackTestServer { _ in .respond(status: 200, headers: [("Content-Type", "application/json")], body: Array("{}".utf8)) }
        let proxy = try LoopbackTestServer { _ in .respond(status: 200, headers: [("Content-Type", "application/json")], body: Array("{}".utf8)) }
        defer { backend.stop(); proxy.stop() }
        for name in ["http_proxy", "all_proxy", "ALL_PROXY"] { setProxy(name, "http://127.0.0.1:\(proxy.port)") }
        let transport = CurlTransport(trust: .system())
        for host in ["127.0.0.1", "localhost"] {
            let url = URL(string: "http://\(host):\(backend.port)/api/app/config")!
            let response = try await transport.send(HTTPRequest(method: "GET", url: url, headers: HTTPHeaders([("token", "T-SECRET")]), timeout: 5))
            XCTAssertEqual(response.status, 200)
        }
        XCTAssertEqual(backend.requests.count, 2)
        XCTAssertEqual(proxy.requests.count, 0, "the proxy saw \(proxy.requests.map(\.target))")
    }

    func testAFailureAtTheProxyNamesTheProxy() async throws {
        let closed = try NginxTLSFixture.freePort()
        setProxy("https_proxy", "http://user:pw@127.0.0.1:\(closed)")
        let transport = CurlTransport(trust: .system(), allowPlainHTTPOffLoopback: false, totalTimeout: nil, maxBodyBytes: 1 << 20,
                                      resolve: ["api.example.test:443:127.0.0.1"])
        let url = URL(string: "https://api.example.test/api/app/config")!
        do {
            _ = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
            XCTFail("expected a failure at the proxy")
        } catch let error as TransportError {
            XCTAssertEqual(error, .network(.other("the proxy http://***@127.0.0.1:\(closed) refused the connection")))
        }
        // A proxy that answers the tunnel request with 403.
        let refusing = try LoopbackTestServer { _ in .respond(status: 403, headers: [], body: []) }
        defer { refusing.stop() }
        setProxy("https_proxy", "http://127.0.0.1:\(refusing.port)")
        do {
            _ = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
            XCTFail("expected the tunnel to be refused")
        } catch let error as TransportError {
            XCTAssertTrue("\(error)".contains("the proxy http://127.0.0.1:\(refusing.port) refused the tunnel"), "\(error)")
        }
        XCTAssertEqual(refusing.requests.first?.method, "CONNECT")
    }

    func testTheProxyIsChosenAsLibcurlChoosesIt() {
        let http = URL(string: "http://api.example.test/x")!, https = URL(string: "https://api.example.test/x")!
        XCTAssertNil(ProxyChoice.proxy(for: http, environment: ["HTTP_PROXY": "http://p:1"]), "upper-case HTTP_PROXY is not read")
        XCTAssertEqual(ProxyChoice.proxy(for: http, environment: ["http_proxy": "http://p:1"]), "http://p:1")
        XCTAssertEqual(ProxyChoice.proxy(for: https, environment: ["HTTPS_PROXY": "http://p:2"]), "http://p:2")
        XCTAssertEqual(ProxyChoice.proxy(for: https, environment: ["ALL_PROXY": "socks5://p:3"]), "socks5://p:3")
        XCTAssertNil(ProxyChoice.proxy(for: https, environment: ["https_proxy": "http://p:2", "no_proxy": "example.test"]))
        XCTAssertNil(ProxyChoice.proxy(for: https, environment: ["https_proxy": "http://p:2", "NO_PROXY": ".example.test"]))
        XCTAssertNil(ProxyChoice.proxy(for: https, environment: ["https_proxy": "http://p:2", "no_proxy": "*"]))
        XCTAssertEqual(ProxyChoice.proxy(for: https, environment: ["https_proxy": "http://p:2", "no_proxy": "other.test"]), "http://p:2")
        XCTAssertEqual(ProxyChoice.shown("http://me:secret@p:2"), "http://***@p:2")
    }
}
