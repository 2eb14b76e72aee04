import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

/// Secrets never leak into errors or traces; plain http is refused off loopback; one expiry notification.
final class SecurityAndExpiryTests: XCTestCase {
    private let secrets = [Fixture.sentinelToken, Fixture.sentinelTempToken, Fixture.sentinelPassword]

    private func assertNoSecrets(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        for secret in secrets { XCTAssertFalse(text.contains(secret), "leaked \(secret) in: \(text)", file: file, line: line) }
    }

    /// The "waiting for …" status line's label: method and path, no query, and a live token typed
    /// into the path masked as --trace masks it.
    func testRequestActivityCarriesNoQueryAndNoToken() async throws {
        let observer = RecordingObserver()
        let client = Fixture.client(observer: observer) { _ in Fixture.ok("{}") }
        _ = try await client.get("/api/x/\(Fixture.sentinelToken)/y?password=\(Fixture.sentinelPassword)")
        XCTAssertEqual(observer.activities.map(\.label), ["GET /api/x/***/y"])
        assertNoSecrets(observer.allText)
        // The same path in an error line (the label every APIError carries).
        let failing = Fixture.client(observer: observer) { _ in HTTPResponse(status: 200, text: Fixture.envelope("null", code: "100404", msg: "\"not found\"")) }
        let error = await Fixture.expectError { try await failing.get("/api/x/\(Fixture.sentinelToken)/y?password=\(Fixture.sentinelPassword)") }
        let line = try XCTUnwrap(error?.description)
        XCTAssertTrue(line.contains("GET /api/x/***/y?password=***"), line)
        assertNoSecrets(line)
    }

    func testTraceRedactsTokenHeaderAndPasswordBody() async throws {
        let observer = RecordingObserver()
        let client = Fixture.client(observer: observer) { request in
            // A server that echoes everything it got, secrets included.
            HTTPResponse(status: 200, headers: HTTPHeaders([("Set-Cookie", "sid=\(Fixture.sentinelToken)")]),
                         text: Fixture.envelope("{\"token\":\"\(Fixture.sentinelTempToken)\",\"echo\":\(String(decoding: request.body, as: UTF8.self)),\"accounts\":[]}"))
        }
        _ = try await AccountAPI(client: client).login(username: "13800000001", password: Fixture.sentinelPassword)
        XCTAssertEqual(observer.requests.count, 1)
        XCTAssertEqual(observer.responses.count, 1)
        let request = observer.requests[0]
        XCTAssertNil(request.headers["token"], "the login page's call carries no session token")
        XCTAssertEqual(request.bodyExcerpt, "{\"username\":\"13800000001\",\"password\":\"***\"}")
        XCTAssertEqual(request.headers["X-OS-TYPE"], "iOS", "other headers are shown")
        XCTAssertEqual(observer.responses[0].status, 200)
        XCTAssertTrue(observer.responses[0].bodyExcerpt.contains("\"token\":\"***\""))
        assertNoSecrets(observer.allText)
    }

    func testSetUserTraceHidesTheTemporaryToken() async throws {
        let observer = RecordingObserver()
        let client = Fixture.client(observer: observer) { _ in
            HTTPResponse(status: 200, text: "{\"code\":200001,\"msg\":\"临时token \(Fixture.sentinelTempToken) 已失效\"}")
        }
        let error = await Fixture.expectError { try await AccountAPI(client: client).setUser(userId: 1001, accountType: "scenic", tempToken: Fixture.sentinelTempToken) }
        XCTAssertEqual(error?.kind, .server)
        assertNoSecrets(String(describing: error))
        assertNoSecrets(observer.allText)
    }

    func testErrorsNeverCarrySecrets() async {
        let bodies: [(Int, String)] = [
            (502, "<html><body>upstream said token=\(Fixture.sentinelToken) password=\(Fixture.sentinelPassword)</body></html>"),
            (200, "{\"code\":100000,\"data\":{\"token\":\"\(Fixture.sentinelTempToken)\",\"password\":\"\(Fixture.sentinelPassword)"),
            (400, "{\"error\":\"bad\",\"token\":\"\(Fixture.sentinelToken)\",\"password\":\"\(Fixture.sentinelPassword)\"}"),
            (200, "{\"code\":500,\"msg\":\"bad password \(Fixture.sentinelPassword) for token \(Fixture.sentinelToken)\"}"),
            (200, "{\"code\":100401,\"msg\":\"token \(Fixture.sentinelToken) expired\"}"),
        ]
        for (status, body) in bodies {
            let observer = RecordingObserver()
            let client = Fixture.client(observer: observer) { _ in HTTPResponse(status: status, text: body) }
            let error = await Fixture.expectError { try await AccountAPI(client: client).login(username: "13800000001", password: Fixture.sentinelPassword) }
            XCTAssertNotNil(error)
            assertNoSecrets(String(describing: error))
            assertNoSecrets(observer.allText)
        }
        let failing = Fixture.client { _ in throw NSError(domain: "Test", code: 1, userInfo: [NSLocalizedDescriptionKey: "failed with \(Fixture.sentinelToken)"]) }
        let error = await Fixture.expectError { try await failing.get("/x") }
        XCTAssertEqual(error?.kind, .network)
        assertNoSecrets(String(describing: error))
    }

    func testTraceRecordsFailuresWithoutSecrets() async {
        let observer = RecordingObserver()
        let client = Fixture.client(observer: observer) { _ in throw TransportError.network(.connectionRefused) }
        _ = await Fixture.expectError { try await client.get("/api/x", query: [("password", Fixture.sentinelPassword)]) }
        XCTAssertEqual(observer.responses.count, 1)
        XCTAssertNil(observer.responses[0].status)
        XCTAssertEqual(observer.responses[0].failure, "GET /api/x: connection refused")
        XCTAssertEqual(observer.requests[0].url, "https://api.example.test/api/x?password=***")
        assertNoSecrets(observer.allText)
    }

    func testPlainHTTPIsRefusedForRemoteHosts() async throws {
        for text in ["http://api.zhifly.cn", "http://10.0.0.5:8080", "http://128.0.0.1"] {
            let config = APIConfiguration(environment: .custom(try APIEnvironment.validatedBaseURL(text)))
            XCTAssertThrowsError(try config.validate()) { XCTAssertEqual($0 as? APIError, .insecureURL(url: text)) }
            let sent = Box<[HTTPRequest]>([])
            let client = Fixture.client(configuration: config, sent: sent) { _ in Fixture.ok("{}") }
            let error = await Fixture.expectError { try await client.get("/api/app/config") }
            XCTAssertEqual(error?.kind, .configuration)
            XCTAssertTrue(sent.value.isEmpty, "nothing is sent over plain http to \(text)")
        }
        for text in ["http://127.0.0.1:9000", "http://127.3.4.5", "http://localhost:8080", "http://[::1]:8080", "https://api.zhifly.cn"] {
            XCTAssertNoThrow(try APIConfiguration(environment: .custom(try APIEnvironment.validatedBaseURL(text))).validate(), text)
        }
        XCTAssertThrowsError(try NetworkBundle(configuration: APIConfiguration(environment: .custom(URL(string: "http://example.com")!)), transport: ClosureTransport { _ in Fixture.ok("{}") }))
    }

    func testInsecureHTTPWarnsOnEveryRequest() async throws {
        let observer = RecordingObserver()
        let config = APIConfiguration(environment: .custom(URL(string: "http://api.example.test")!), insecureHTTP: true)
        let client = Fixture.client(observer: observer, configuration: config) { _ in Fixture.ok("{}") }
        _ = try await client.get("/a")
        _ = try await client.get("/b")
        XCTAssertEqual(observer.warnings.count, 2)
        XCTAssertTrue(observer.warnings[0].contains("plain http"))
        let loopback = RecordingObserver()
        let local = Fixture.client(observer: loopback, configuration: APIConfiguration(environment: .sandbox(URL(string: "http://127.0.0.1:1")!))) { _ in Fixture.ok("{}") }
        _ = try await local.get("/a")
        XCTAssertTrue(loopback.warnings.isEmpty)
    }

    func testTwoConcurrentExpiriesNotifyOnce() async throws {
        let observer = RecordingObserver()
        let arrived = Box(0)
        let client = Fixture.client(observer: observer) { _ in
            arrived.mutate { $0 += 1 }  // one locked step: two requests arrive at once
            // Both requests are in flight before either answers.
            let deadline = Date().addingTimeInterval(5)
            while arrived.value < 2 && Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
            return HTTPResponse(status: 200, text: "{\"code\":100401,\"msg\":\"登录已过期\"}")
        }
        async let a = Fixture.expectError { try await client.get("/api/yf-handset-app/userinfo") }
        async let b = Fixture.expectError { try await client.get("/api/yf-handset-app/role-permission") }
        let (ea, eb) = await (a, b)
        XCTAssertEqual(arrived.value, 2)
        XCTAssertEqual(ea?.kind, .sessionExpired)
        XCTAssertEqual(eb?.kind, .sessionExpired)
        XCTAssertEqual(observer.expiries.count, 1)
        XCTAssertEqual(observer.expiries.first?.generation, 1)
        XCTAssertEqual(observer.expiries.first?.reason, "code 100401: 登录已过期")

        // A request sent afterwards with the same stale token stays silent too.
        _ = await Fixture.expectError { try await client.get("/api/yf-handset-app/userinfo") }
        XCTAssertEqual(observer.expiries.count, 1)
    }

    func testExpiryAfterANewLoginNotifiesAgainAndOverrideTokensNeverNotify() async throws {
        let observer = RecordingObserver()
        let token = Box<String?>("old-token-11112222")
        let client = APIClient(configuration: APIConfiguration(), transport: ClosureTransport { _ in HTTPResponse(status: 401, text: "") }, observer: observer, tokenProvider: { token.value })
        _ = await Fixture.expectError { try await client.get("/a") }
        XCTAssertEqual(observer.expiries.count, 1)
        token.value = "new-token-33334444"
        _ = await Fixture.expectError { try await client.get("/a") }
        XCTAssertEqual(observer.expiries.map(\.generation), [1, 2])
        _ = await Fixture.expectError { try await client.post("/api/app/v9/set-user", body: nil, tokenOverride: "temp-token-55556666") }
        token.value = nil
        _ = await Fixture.expectError { try await client.get("/a") }
        XCTAssertEqual(observer.expiries.count, 2, "no notification for a temporary token or for no token")
    }
}

extension SecurityAndExpiryTests {
    /// A secret in a header's name (`X-Tok-<token>: 1`) is masked as one in its value is, in every
    /// view that lists headers (`--trace`, `-v`, HAR).
    func testASecretInAHeaderNameIsMasked() {
        let token = "hxc5d2c4ea38008f159d2de783a3f35017"
        let shown = SecretScrubber.headers(HTTPHeaders([("X-Tok-\(token)", "1"), ("X-Echo", token)]), secrets: [token])
        XCTAssertEqual(shown.fields.map(\.name), ["X-Tok-***", "X-Echo"])
        XCTAssertEqual(shown.fields.map(\.value), ["1", "***"])
    }

    /// What an answer carries under a secret name is found once, from the body's head, however many
    /// times the body repeats it.
    func testSecretMemberValuesAreFewAndCheap() {
        var body = Array("{\"data\":{\"token\":\"tok_0123456789abcdef\",\"note\":\"x\"},\"list\":[".utf8)
        for _ in 0..<100_000 { body += Array("{\"token\":\"tok_0123456789abcdef\"},".utf8) }
        let started = Date()
        XCTAssertEqual(Redaction.secretMemberValues(body), ["tok_0123456789abcdef"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }
}

extension SecurityAndExpiryTests {
    /// Only a token-shaped value under a secret name is looked for elsewhere in the answer: a word
    /// there (`"session": "已完成"`) is hidden where it is, not cut out of every row that says it,
    /// nor out of what is stored from the answer.
    func testAWordUnderASecretNameIsNotMaskedElsewhere() async throws {
        XCTAssertEqual(Redaction.secretMemberValues(Array(#"{"session":"已完成","auth":"required","pin":12345678,"token":"tok_0123456789abcdef"}"#.utf8)),
                       ["tok_0123456789abcdef"])
        let observer = RecordingObserver()
        let client = Fixture.client(observer: observer) { _ in
            Fixture.ok(#"{"list":[{"status":"已完成","session":"已完成","name":"required"},{"status":"已完成","auth":"required"}]}"#)
        }
        let answer = try await client.get("/api/x/orders")
        let list = try XCTUnwrap(answer.data.objectValue?.array("list"))
        XCTAssertEqual(list.map { $0.objectValue?.string("status") }, ["已完成", "已完成"])
        XCTAssertEqual(list[0].objectValue?.string("name"), "required")
    }

    /// An excerpt cut through a secret shows no part of it: masked before the cut.
    func testAnExcerptCutThroughASecretShowsNoPartOfIt() {
        let token = Fixture.sentinelToken
        for at in stride(from: 180, through: 200, by: 1) {
            let body = Array((String(repeating: "a", count: at) + token + String(repeating: "b", count: 300)).utf8)
            let shown = Redaction.excerpt(body, limit: 200, secrets: [token])
            XCTAssertFalse(SecretMatcher([token]).holds(shown), "cut at \(at): \(shown)")
            XCTAssertFalse(shown.contains(String(token.prefix(6))), "cut at \(at): \(shown)")
            XCTAssertTrue(shown.hasSuffix("…"))
        }
        let json = Array(("{\"note\":\"" + String(repeating: "x", count: 1985) + token + "\"}").utf8)
        XCTAssertFalse(SecretScrubber.traceBody(json, secrets: [token]).contains(String(token.prefix(8))))
    }
}

extension SecurityAndExpiryTests {
    /// A token nested under a secret-named object, or after a scheme word (`Bearer …`), is carried;
    /// a time under a name that ends in a secret word is not.
    func testCarriedTokensNestedOrAfterASchemeButNotTimes() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.payloadpayload.sig"
        let body = #"{"auth":{"accessToken":"\#(jwt)-a"},"sessionToken":"Bearer \#(jwt)-b","lastSession":"2026-12-05T22:20:22+08:00","tokens":["x"]}"#
        XCTAssertEqual(Redaction.secretMemberValues(Array(body.utf8)), ["\(jwt)-a", "\(jwt)-b"])
    }

    /// An excerpt of a body that repeats a secret, each copy shortened by its mask, shows no part of
    /// the copy the head was cut in.
    func testAnExcerptOfARepeatedSecretShowsNoPartOfIt() {
        let token = Fixture.sentinelToken
        let body = Array(("{\"a\":\"" + String(repeating: token + " ", count: 80) + "\"}").utf8)
        for limit in [200, 2000] {
            let shown = Redaction.excerpt(body, limit: limit, secrets: [token])
            XCTAssertFalse(shown.contains(String(token.prefix(5))), "\(limit): \(shown)")
        }
    }
}

extension SecurityAndExpiryTests {
    /// Under a secret name, only a token's alphabet with letters and digits is carried: not a URL, a
    /// data URI, an id of digits; and a long answer's own token is masked where it repeats it too.
    func testOnlyATokensAlphabetIsCarriedAndALongAnswerMasksItsOwn() async throws {
        let body = #"{"sessionId":"1234567890123456","imSession":{"uploadHost":"https://static.sandbox.local","icon":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUg","key":"AbCdEf0123456789XyZw"}}"#
        XCTAssertEqual(Redaction.secretMemberValues(Array(body.utf8)), ["AbCdEf0123456789XyZw"])
        let token = "AbCdEf0123456789XyZwVuTsRq"
        let filler = String(repeating: "x", count: 70_000)
        let client = Fixture.client(observer: RecordingObserver()) { _ in
            Fixture.ok(#"{"accessToken":"\#(token)","pad":"\#(filler)","echo":"copy \#(token)"}"#)
        }
        let answer = try await client.get("/api/x/big")
        XCTAssertEqual(answer.data.objectValue?.string("echo"), "copy ***")
    }
}
