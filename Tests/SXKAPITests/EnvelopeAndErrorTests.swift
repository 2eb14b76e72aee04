import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

/// The envelope and every failure path, each wrapped once with method and path.
final class EnvelopeAndErrorTests: XCTestCase {
    private func client(status: Int = 200, _ body: String, observer: RecordingObserver = RecordingObserver()) -> APIClient {
        Fixture.client(observer: observer) { _ in HTTPResponse(status: status, text: body) }
    }

    func testSuccessKeepsDataExactlyAsReceived() async throws {
        let body = "{\"code\":100000,\"msg\":\"success\",\"data\":{\"z\":1,\"amount\":12.50,\"a\":\"西湖\",\"extra\":{\"k\":[1e3]}}}"
        let response = try await client(body).get("/api/app/config")
        XCTAssertEqual(response.code, "100000")
        XCTAssertEqual(response.msg, "success")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.method, "GET")
        XCTAssertEqual(response.path, "/api/app/config")
        XCTAssertEqual(response.bodyText, body, "--raw shows the body as received")
        XCTAssertEqual(JSONWriter.string(response.data), "{\"z\":1,\"amount\":12.50,\"a\":\"西湖\",\"extra\":{\"k\":[1e3]}}")
        XCTAssertGreaterThanOrEqual(response.elapsedMs, 0)
    }

    func testMessageSpellingAndStringCode() async throws {
        let response = try await client("{\"code\":\"100000\",\"message\":\"好的\",\"data\":[]}").get("/x")
        XCTAssertEqual(response.code, "100000")
        XCTAssertEqual(response.msg, "好的")
        XCTAssertEqual(response.data, .array([]))
        let noData = try await client("{\"code\":100000,\"msg\":\"ok\"}").get("/x")
        XCTAssertEqual(noData.data, .null)
    }

    func testServerCodeError() async {
        let error = await Fixture.expectError { try await self.client("{\"code\":200101,\"msg\":\"密码错误\",\"data\":null}").post("/api/app/v9/login", body: ["username": "1"]) }
        XCTAssertEqual(error, .serverCode(code: "200101", msg: "密码错误", request: RequestLabel(method: "POST", path: "/api/app/v9/login", status: 200)))
        XCTAssertEqual(error?.description, "POST /api/app/v9/login: server error 200101: 密码错误")
        XCTAssertEqual(error?.serverCode, 200101)
        XCTAssertEqual(error?.kind.exitCode, 1)
        let stringCode = await Fixture.expectError { try await self.client("{\"code\":\"E42\",\"message\":\"nope\"}").get("/x") }
        XCTAssertEqual(stringCode?.description, "GET /x: server error E42: nope")
        XCTAssertNil(stringCode?.serverCode)
        // An empty `msg` beside a `message` does not hide the reason.
        let both = await Fixture.expectError { try await self.client("{\"code\":100001,\"msg\":\"\",\"message\":\"用户不存在\"}").get("/x") }
        XCTAssertEqual(both?.description, "GET /x: server error 100001: 用户不存在")
    }

    /// A query that makes the URL longer than any server takes is refused before sending, as a
    /// bad value (exit 2), not sent into libcurl's "out of memory" (a network error, 4).
    func testAURLTooLongIsRefusedBeforeSending() async {
        let error = await Fixture.expectError { try await self.client("{\"code\":100000,\"data\":null}").get("/x", query: [("k", String(repeating: "y", count: 70_000))]) }
        XCTAssertEqual(error?.kind.exitCode, 2)
        XCTAssertTrue(error?.description.contains("at most 65536 are sent") ?? false, "\(String(describing: error))")
        // Measured as sent: a path of 8,000 Chinese characters is 72,000 bytes escaped.
        let wide = await Fixture.expectError { try await self.client("{\"code\":100000,\"data\":null}").get("/x/" + String(repeating: "西", count: 8_000)) }
        XCTAssertEqual(wide?.kind.exitCode, 2)
        XCTAssertTrue(wide?.description.contains("at most 65536 are sent") ?? false, "\(String(describing: wide))")
    }

    /// A `#` in a path starts a fragment no client sends: refused, not sent with its query dropped.
    func testAFragmentInAPathIsRefused() async {
        let error = await Fixture.expectError { try await self.client("{\"code\":100000,\"data\":null}").get("/x#frag") }
        XCTAssertEqual(error?.kind.exitCode, 2)
        XCTAssertTrue(error?.description.contains("write %23 for a # in a name or value") ?? false, "\(String(describing: error))")
    }

    func testEnvelopeWithErrorStatusIsStillAServerCode() async {
        let error = await Fixture.expectError { try await self.client(status: 500, "{\"code\":100500,\"msg\":\"内部错误\"}").get("/x") }
        XCTAssertEqual(error, .serverCode(code: "100500", msg: "内部错误", request: RequestLabel(method: "GET", path: "/x", status: 500)))
    }

    func testHTML502IsNotJSON() async {
        let html = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center>" + String(repeating: "<p>padding</p>", count: 40) + "</body></html>"
        let error = await Fixture.expectError { try await self.client(status: 502, html).get("/api/app/store/all") }
        guard case .notJSON(let status, let reason, let excerpt, let label)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual(status, 502)
        XCTAssertEqual(reason, "body is HTML, not JSON")
        XCTAssertTrue(excerpt.hasPrefix("<html><head><title>502 Bad Gateway"))
        XCTAssertTrue(excerpt.hasSuffix("…"))
        XCTAssertLessThanOrEqual(excerpt.utf8.count, 200 + "…".utf8.count)
        XCTAssertEqual(label, RequestLabel(method: "GET", path: "/api/app/store/all", status: 502))
        XCTAssertTrue(error!.description.hasPrefix("GET /api/app/store/all: HTTP 502, body is HTML, not JSON: <html>"))
        XCTAssertEqual(error?.kind, .notJSON)
    }

    func testEmptyBody() async {
        let error = await Fixture.expectError { try await self.client("").get("/api/app/config") }
        XCTAssertEqual(error, .notJSON(status: 200, reason: "empty body", excerpt: "", request: RequestLabel(method: "GET", path: "/api/app/config", status: 200)))
        XCTAssertEqual(error?.description, "GET /api/app/config: HTTP 200, empty body")
    }

    func testCutOffBodyNamesTheCutAndHidesSecrets() async {
        let body = "{\"code\":100000,\"msg\":\"success\",\"data\":{\"token\":\"BRAND-NEW-TOKEN-abcdef\",\"accounts\":[{\"userId\":10"
        let error = await Fixture.expectError { try await self.client(body).post("/api/app/v9/login", body: ["username": "13800000001", "password": .string(Fixture.sentinelPassword)]) }
        guard case .notJSON(200, let reason, let excerpt, _)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(reason.hasPrefix("body is cut off"), reason)
        XCTAssertTrue(excerpt.contains("\"token\":\"***\""), excerpt)
        XCTAssertFalse(error!.description.contains("BRAND-NEW-TOKEN"))
    }

    func testGarbageBody() async {
        let error = await Fixture.expectError { try await self.client("OK then").get("/x") }
        guard case .notJSON(_, let reason, let excerpt, _)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(reason.hasPrefix("body is not JSON"), reason)
        XCTAssertEqual(excerpt, "OK then")
    }

    func testHTTPErrorWithJSONThatIsNotAnEnvelope() async {
        let error = await Fixture.expectError { try await self.client(status: 404, "{\"error\":\"not found\"}").get("/api/nope") }
        XCTAssertEqual(error, .http(status: 404, excerpt: "{\"error\":\"not found\"}", request: RequestLabel(method: "GET", path: "/api/nope", status: 404)))
        XCTAssertEqual(error?.description, "GET /api/nope: HTTP 404: {\"error\":\"not found\"}")
    }

    func testSuccessStatusWithoutEnvelopeIsADecodingError() async {
        let error = await Fixture.expectError { try await self.client("[1,2]").get("/x") }
        guard case .decoding(let field, _)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual(field.field, "code")
    }

    func testHTTP401IsSessionExpired() async {
        let error = await Fixture.expectError { try await self.client(status: 401, "<html>401</html>").get("/api/yf-handset-app/userinfo") }
        XCTAssertEqual(error, .sessionExpired(.http401, request: RequestLabel(method: "GET", path: "/api/yf-handset-app/userinfo", status: 401)))
        XCTAssertEqual(error?.kind.exitCode, 3)
        XCTAssertEqual(error?.description, "GET /api/yf-handset-app/userinfo: session expired (HTTP 401); log in again")
    }

    func testAuthExpiredCodesAreSessionExpired() async {
        for code in ["100401", "\"100402\""] {
            let error = await Fixture.expectError { try await self.client("{\"code\":\(code),\"msg\":\"token失效\"}").get("/x") }
            XCTAssertEqual(error?.kind, .sessionExpired, "code \(code)")
        }
        // The code and the message are the cause's fields; the line quotes them as it always has.
        let coded = await Fixture.expectError { try await self.client(#"{"code":100401,"msg":"登录: 已过期"}"#).get("/x") }
        guard case .sessionExpired(let cause, _)? = coded else { return XCTFail("got \(String(describing: coded))") }
        XCTAssertEqual(cause, ExpiryCause(code: "100401", message: "登录: 已过期"))
        XCTAssertEqual(coded?.description, "GET /x: session expired (code 100401: 登录: 已过期); log in again")
        let bare = await Fixture.expectError { try await self.client(#"{"code":100402}"#).get("/x") }
        guard case .sessionExpired(let silent, _)? = bare else { return XCTFail("got \(String(describing: bare))") }
        XCTAssertEqual(silent, ExpiryCause(code: "100402", message: ""))
        XCTAssertEqual(bare?.description, "GET /x: session expired (code 100402); log in again")
        let custom = Fixture.client(configuration: APIConfiguration(authExpiredCodes: [4010])) { _ in HTTPResponse(status: 200, text: "{\"code\":4010}") }
        let error = await Fixture.expectError { try await custom.get("/x") }
        XCTAssertEqual(error?.kind, .sessionExpired)
        let notExpired = Fixture.client(configuration: APIConfiguration(authExpiredCodes: [4010])) { _ in HTTPResponse(status: 200, text: "{\"code\":100401}") }
        let other = await Fixture.expectError { try await notExpired.get("/x") }
        XCTAssertEqual(other?.kind, .server)
    }

    func testLoginWithoutTokenNamesEndpointAndField() async {
        let client = client("{\"code\":100000,\"msg\":\"ok\",\"data\":{\"accounts\":[]}}")
        let error = await Fixture.expectError { try await AccountAPI(client: client).login(username: "13800000001", password: "pw-123456") }
        XCTAssertEqual(error?.description, "POST /api/app/v9/login: unexpected response: field 'data.token' is missing")
        XCTAssertEqual(error?.kind, .decoding)
    }

    func testWrongTypesAreDecodingErrors() async {
        let accounts = client("{\"code\":100000,\"data\":{\"token\":\"t-1234567890\",\"accounts\":\"none\"}}")
        let e1 = await Fixture.expectError { try await AccountAPI(client: accounts).login(username: "1", password: "p") }
        XCTAssertEqual(e1?.description, "POST /api/app/v9/login: unexpected response: field 'data.accounts' is a string, expected an array")
        let userId = client("{\"code\":100000,\"data\":{\"token\":\"t\",\"user\":{\"userId\":\"abc\"}}}")
        let e2 = await Fixture.expectError { try await AccountAPI(client: userId).setUser(userId: 1, accountType: "scenic", tempToken: "tmp-0000000000") }
        XCTAssertEqual(e2?.description, "POST /api/app/v9/set-user: unexpected response: field 'data.userId' is a string, expected an integer")
        let list = client("{\"code\":100000,\"data\":{\"total\":3}}")
        let e3 = await Fixture.expectError { try await CommerceAPI(client: list).storeOrders(page: 1, pageSize: 10, storeId: 101) }
        XCTAssertEqual(e3?.description, "GET /api/app/store/order/list: unexpected response: field 'data.list' is missing")
        let stores = client("{\"code\":100000,\"data\":{}}")
        let e4 = await Fixture.expectError { try await CommerceAPI(client: stores).storeList() }
        XCTAssertEqual(e4?.kind, .decoding)
        XCTAssertTrue(e4!.description.hasPrefix("GET /api/app/store/all: unexpected response: field 'data"), e4!.description)
    }

    func testNetworkFailuresAreWrappedOnceWithKind() async {
        let cases: [(any Error, String)] = [
            (TransportError.network(.connectionRefused), "GET /x: connection refused"),
            (TransportError.network(.hostNotFound), "GET /x: host not found"),
            (TransportError.network(.tls("certificate not trusted")), "GET /x: TLS failure (certificate not trusted)"),
            (TransportError.network(.timedOut(seconds: 15)), "GET /x: timed out after 15 s"),
            (TransportError.network(.unreachable("no route to host")), "GET /x: network unreachable (no route to host)"),
            (TransportError.network(.certificate(.selfSigned)), "GET /x: TLS: server certificate is self-signed (not trusted)"),
            (TransportError.network(.certificate(.expired)), "GET /x: TLS: server certificate has expired"),
            (TransportError.network(.certificate(.wrongName(host: "a.test"))), "GET /x: TLS: server certificate is not for a.test"),
            (TransportError.network(.certificate(.unknownCA)), "GET /x: TLS: server certificate is signed by an unknown CA (a private CA needs --cacert)"),
        ]
        for (thrown, message) in cases {
            let client = Fixture.client { _ in throw thrown }
            let error = await Fixture.expectError { try await client.get("/x") }
            XCTAssertEqual(error?.description, message)
            XCTAssertEqual(error?.kind, .network)
            XCTAssertEqual(error?.kind.exitCode, 4)
        }
    }

    /// Plain http that resolved off loopback is the same configuration error as a non-loopback name.
    func testPlainHTTPRefusedAfterResolutionIsTheInsecureURLError() async {
        let client = Fixture.client { _ in throw TransportError.plainHTTPRefused(host: "evil.localhost", address: "10.0.0.1") }
        let error = await Fixture.expectError { try await client.get("/x") }
        XCTAssertEqual(error, .insecureURL(url: "http://evil.localhost resolves to 10.0.0.1"))
        XCTAssertEqual(error?.description, "refusing plain http to a non-loopback host (http://evil.localhost resolves to 10.0.0.1); use https or --insecure-http")
        XCTAssertEqual(error?.kind.exitCode, 2, "a base URL that cannot be used is a bad value the user gave")
    }

    func testTransportCancellationAndRedirectRefusal() async {
        let cancelled = Fixture.client { _ in throw CancellationError() }
        let e1 = await Fixture.expectError { try await cancelled.get("/x") }
        XCTAssertEqual(e1, .cancelled(request: RequestLabel(method: "GET", path: "/x")))
        XCTAssertEqual(e1?.kind.exitCode, 130)
        let refused = Fixture.client { _ in throw TransportError.redirectRefused(location: "https://evil.example:443") }
        let e2 = await Fixture.expectError { try await refused.get("/x") }
        XCTAssertEqual(e2?.description, "GET /x: refused a redirect to another origin (https://evil.example:443)")
        XCTAssertEqual(e2?.kind, .redirect)
    }

    func testCancelledTaskNeverReachesTheTransport() async {
        let calls = Box(0)
        let client = Fixture.client { _ in calls.mutate { $0 += 1 }; return Fixture.ok("{}") }
        let task = Task { () -> APIError? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await Fixture.expectError { try await client.get("/x") }
        }
        let error = await task.value
        XCTAssertEqual(error?.kind, .cancelled)
        XCTAssertEqual(calls.value, 0)
    }

    func testExitCodesByKind() {
        XCTAssertEqual(APIErrorKind.allCases.map(\.exitCode), [1, 3, 1, 1, 1, 4, 130, 2, 1])
    }
}
