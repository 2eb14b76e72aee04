import Foundation
import XCTest
import SXKSandbox
@testable import SXKAPI

/// Every sandbox endpoint group again, over https through nginx (HTTP/2, a test CA).
final class SandboxHTTPSIntegrationTests: SandboxIntegrationTests {
    private var tls: NginxTLSFixture?

    override func endpoint(sandbox url: URL) throws -> (URL, CurlTransport) {
        let fixture = try NginxTLSFixture(upstreamPort: UInt16(url.port!))
        tls = fixture
        return (fixture.url(.h2), CurlTransport(trust: TrustStore(caFile: fixture.caFile, caDirectory: nil)))
    }

    override func tearDown() async throws {
        tls?.stop()
        try await super.tearDown()
    }

    // Linux test discovery lists only the methods a class declares itself: each inherited case is named here.
    override func testAccountGroupAsPhotographer() async throws { try await super.testAccountGroupAsPhotographer() }
    override func testPhoneWithThreeAccountsAndWrongPassword() async throws { try await super.testPhoneWithThreeAccountsAndWrongPassword() }
    override func testCommerceAndOperationAsPhotographer() async throws { try await super.testCommerceAndOperationAsPhotographer() }
    override func testScenicAdminGroups() async throws { try await super.testScenicAdminGroups() }
    override func testStoreAdminGroups() async throws { try await super.testStoreAdminGroups() }
    override func testEveryDeclaredEndpointIsServedAndDecoded() async throws { try await super.testEveryDeclaredEndpointIsServedAndDecoded() }
    override func testRawGetAndPost() async throws { try await super.testRawGetAndPost() }
    override func testUnknownTokenIsSessionExpiredAndNotifiesOnce() async throws { try await super.testUnknownTokenIsSessionExpiredAndNotifiesOnce() }
    override func testExpiredFormalTokenIsSessionExpired() async throws { try await super.testExpiredFormalTokenIsSessionExpired() }
    override func testInjectedFaultsBecomeClearErrors() async throws { try await super.testInjectedFaultsBecomeClearErrors() }
    override func testCancellingAHangingSandboxRequest() async throws { try await super.testCancellingAHangingSandboxRequest() }
}

/// The https side of the transport against a real TLS terminator (see `NginxTLSFixture`):
/// trust decisions, connection and TLS session reuse counted from nginx's log, HTTP/2
/// multiplexing, and the hostile answers nginx can carry.
final class HTTPSTransportTests: XCTestCase {
    private var upstream: LoopbackTestServer!
    private var tls: NginxTLSFixture!
    private var trusted: CurlTransport { CurlTransport(trust: TrustStore(caFile: tls.caFile, caDirectory: nil)) }

    override func setUpWithError() throws {
        upstream = try LoopbackTestServer { request in
            switch request.target {
            case "/bomb": return HostileServerTests.bombAction()
            case "/short": return .raw(Array("HTTP/1.1 200 OK\r\nContent-Length: 400\r\nConnection: close\r\n\r\n{\"a\":".utf8), close: true)
            case "/drip": return .endless(head: Array("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".utf8), unit: [0x20], interval: 0.05)
            case "/away": return .respond(status: 302, headers: [("Location", "https://localhost:1/api/app/config")], body: [])
            case "/slow": usleep(150_000); return .json(Fixture.envelope("{}"))
            default: return .json(Fixture.envelope("{\"enableRegister\":1}"))
            }
        }
        tls = try NginxTLSFixture(upstreamPort: upstream.port)
    }

    override func tearDown() {
        tls.stop()
        upstream.stop()
    }

    private func get(_ transport: CurlTransport, _ site: NginxTLSFixture.Site, _ path: String = "/api/app/config", host: String = "127.0.0.1") async throws -> HTTPResponse {
        try await transport.send(HTTPRequest(method: "GET", url: tls.url(site, host: host).appendingPathComponent(path), timeout: 5))
    }

    private func certificateFailure(_ transport: CurlTransport, _ site: NginxTLSFixture.Site) async -> NetworkFailure? {
        do {
            _ = try await get(transport, site)
            return nil
        } catch TransportError.network(let failure) {
            return failure
        } catch {
            XCTFail("got \(error)")
            return nil
        }
    }

    func testBadCertificatesAreRefusedSayingWhich() async throws {
        let expired = await certificateFailure(trusted, .expired)
        let wrong = await certificateFailure(trusted, .wrongName)
        let selfSigned = await certificateFailure(trusted, .selfSigned)
        let unknown = await certificateFailure(CurlTransport(), .h2)
        XCTAssertEqual(expired, .certificate(.expired))
        XCTAssertEqual(wrong, .certificate(.wrongName(host: "127.0.0.1")))
        XCTAssertEqual(selfSigned, .certificate(.selfSigned))
        XCTAssertEqual(unknown, .certificate(.unknownCA), "the test CA is not in the system store")
        XCTAssertTrue(upstream.requests.isEmpty, "a request passed a refused certificate")
        // Through the client: exit 4 and one line that says which.
        let config = APIConfiguration(environment: .custom(tls.url(.expired)), timeout: 5)
        let client = APIClient(configuration: config, transport: trusted, tokenProvider: { Fixture.sentinelToken })
        let error = await Fixture.expectError { try await client.get("/api/app/config") }
        XCTAssertEqual(error?.description, "GET /api/app/config: TLS: server certificate has expired")
        XCTAssertEqual(error?.kind.exitCode, 4)
    }

    func testCACertAndSSLCertFileAreAccepted() async throws {
        let viaOption = CurlTransport(trust: .resolve(caCert: tls.caFile, environment: [:]))
        let viaEnvironment = CurlTransport(trust: .system(environment: ["SSL_CERT_FILE": tls.caFile]))
        for transport in [viaOption, viaEnvironment] {
            let response = try await get(transport, .h2, host: "localhost")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.metrics?.httpVersion, "h2")
        }
        XCTAssertEqual(TrustStore.resolve(caCert: "/x.pem", environment: ["SSL_CERT_FILE": "/y.pem"]), TrustStore(caFile: "/x.pem", caDirectory: nil))
        XCTAssertEqual(TrustStore.system(environment: ["SSL_CERT_DIR": "/d"]), TrustStore(caFile: nil, caDirectory: "/d"))
    }

    /// SSL_CERT_FILE naming the system bundle (as many images export it) is the hashed folder beside
    /// it, read lazily; any other file is kept, and so is a different SSL_CERT_DIR.
    func testSSLCertFileNamingTheSystemBundleUsesTheHashedFolder() throws {
        let bundle = "/etc/ssl/certs/ca-certificates.crt"
        guard access(bundle, R_OK) == 0, TrustStore.isHashedDirectory("/etc/ssl/certs") else {
            throw XCTSkip("this machine has no Debian-style /etc/ssl/certs with a bundle and hashed links")
        }
        let hashed = TrustStore(caFile: nil, caDirectory: "/etc/ssl/certs")
        XCTAssertEqual(TrustStore.system(environment: ["SSL_CERT_FILE": bundle]), hashed)
        XCTAssertEqual(TrustStore.system(environment: ["SSL_CERT_FILE": bundle, "SSL_CERT_DIR": "/etc/ssl/certs"]), hashed)
        XCTAssertEqual(TrustStore.system(environment: ["SSL_CERT_FILE": bundle, "SSL_CERT_DIR": "/d"]), TrustStore(caFile: bundle, caDirectory: "/d"))
        XCTAssertEqual(TrustStore.system(environment: ["SSL_CERT_FILE": tls.caFile]), TrustStore(caFile: tls.caFile, caDirectory: nil))
    }

    /// A bundle changed after update-ca-certificates last wrote the folder (a CA appended by hand) is
    /// read as given: the hashed links would not hold what was added.
    func testAHandEditedBundleIsReadAsGiven() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("trust-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bundle = root + "/ca-certificates.crt", folder = root
        try Data("x".utf8).write(to: URL(fileURLWithPath: bundle))
        XCTAssertFalse(TrustStore.isNewer(bundle, than: folder), "written into the folder: not newer than it")
        Thread.sleep(forTimeInterval: 0.02)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: bundle))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("appended".utf8))
        try handle.close()
        XCTAssertTrue(TrustStore.isNewer(bundle, than: folder), "appended to afterwards: newer than the folder")
        XCTAssertTrue(TrustStore.isNewer(root + "/missing", than: folder))
    }

    /// Two requests one after the other: one connection, one full handshake, the second reused.
    func testSequentialRequestsShareOneConnectionAndOneHandshake() async throws {
        let transport = trusted
        let first = try await get(transport, .h1)
        let second = try await get(transport, .h1)
        XCTAssertEqual(first.metrics?.connectionReused, false)
        XCTAssertEqual(second.metrics?.connectionReused, true)
        let lines = tls.log(atLeast: 2, port: tls.ports[.h1]).filter { $0.port == tls.ports[.h1] }
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(Set(lines.map(\.connection)).count, 1, "\(lines)")
        XCTAssertEqual(lines.map(\.connectionRequests), [1, 2])
        XCTAssertEqual(lines.first?.sessionReused, ".")
    }

    /// The app's concurrent pair (userinfo ∥ role-permission) on HTTP/2, as it follows set-user on
    /// the same server: one connection, two streams, overlapping in time. The request before the pair
    /// makes the engine's memory of this host:port this server's: the engine is the process's, and a
    /// port an earlier test's server had (its connection still cached) would otherwise make the pair
    /// open a second connection instead of waiting to multiplex (`CURLOPT_PIPEWAIT` waits only while
    /// whether the host multiplexes is unknown).
    func testConcurrentPairMultiplexesOverOneHTTP2Connection() async throws {
        let transport = trusted
        let url = tls.url(.h2).appendingPathComponent("slow")
        _ = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
        async let a = transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
        async let b = transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
        let (one, two) = try await (a, b)
        XCTAssertEqual(one.metrics?.httpVersion, "h2")
        XCTAssertEqual(two.metrics?.httpVersion, "h2")
        let lines = tls.log(atLeast: 3, port: tls.ports[.h2]).filter { $0.port == tls.ports[.h2] }
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(Set(lines.map(\.connection)).count, 1, "two connections: \(lines)")
        XCTAssertTrue(lines.allSatisfy { $0.proto == "HTTP/2.0" }, "\(lines)")
        XCTAssertEqual(upstream.connectionCount >= 1, true)
    }

    /// The same pair on HTTP/1.1: a second connection, which resumes the TLS session of the one
    /// before it. The session comes from an earlier request: TLS 1.3 sends its ticket after the
    /// handshake, so a pair sent before any session exists may race it (two full handshakes on a
    /// busy machine).
    func testConcurrentPairOnHTTP1ResumesTheTLSSession() async throws {
        let transport = trusted
        let url = tls.url(.h1).appendingPathComponent("slow")
        _ = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
        async let a = transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
        async let b = transport.send(HTTPRequest(method: "GET", url: url, timeout: 5))
        _ = try await (a, b)
        let lines = tls.log(atLeast: 3, port: tls.ports[.h1]).filter { $0.port == tls.ports[.h1] }
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(Set(lines.map(\.connection)).count, 2, "the pair did not use a second connection: \(lines)")
        XCTAssertEqual(Set(lines.filter { $0.sessionReused == "." }.map(\.connection)).count, 1, "one full handshake only: \(lines)")
    }

    func testGzipBombOverHTTPSStopsAtTheLimit() async throws {
        try await HostileServerTests.expectBombRefused(trusted, url: tls.url(.h2).appendingPathComponent("bomb"))
    }

    func testContentLengthLieAndDripOverHTTPS() async throws {
        do {
            _ = try await get(trusted, .h1, "/short")
            XCTFail("expected a failure")
        } catch let error as TransportError {
            // nginx closes the connection when its upstream cut the body short.
            switch error {
            case .truncatedBody(200, _), .network(.connectionLost): break
            default: XCTFail("got \(error)")
            }
        }
        await HostileServerTests.expectBoundedFailure(tls.url(.h2).appendingPathComponent("drip"), seconds: 1, expectTimeout: true, transport: trusted)
    }

    func testCrossOriginRedirectOverHTTPSCarriesNoToken() async throws {
        var request = HTTPRequest(method: "GET", url: tls.url(.h2).appendingPathComponent("away"), timeout: 5)
        request.headers.append("token", Fixture.sentinelToken)
        do {
            _ = try await trusted.send(request)
            XCTFail("expected a refusal")
        } catch let error as TransportError {
            XCTAssertEqual(error, .redirectRefused(location: "https://localhost:1"))
        }
        XCTAssertEqual(upstream.requests.count, 1)
    }
}
