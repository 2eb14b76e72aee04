import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

final class ConfigurationAndEndpointTests: XCTestCase {
    func testEnvironmentNamesAndURLs() throws {
        XCTAssertEqual(try APIEnvironment.parse("test").baseURL.absoluteString, "https://api-test.zhifly.cn")
        XCTAssertEqual(try APIEnvironment.parse("release").baseURL.absoluteString, "https://api.zhifly.cn")
        XCTAssertEqual(try APIEnvironment.parse("http://127.0.0.1:8080/"), .custom(URL(string: "http://127.0.0.1:8080")!))
        XCTAssertEqual(APIEnvironment.sandbox(URL(string: "http://127.0.0.1:5555")!).name, "sandbox")
        for bad in ["", "ftp://x", "staging", "https://", "https://x/?q=1", "https://u:p@host", "http://127.0.0.1:99999", "http://127.0.0.1:0"] {
            XCTAssertThrowsError(try APIEnvironment.parse(bad), bad) { error in
                guard case .invalidURL? = error as? APIError else { return XCTFail("\(bad): \(error)") }
            }
        }
        XCTAssertThrowsError(try APIEnvironment.parse("sandbox"))
        XCTAssertEqual(String(describing: APIError.invalidURL("ftp://x", reason: "scheme 'ftp' is not http or https")), "invalid base URL 'ftp://x': scheme 'ftp' is not http or https")
    }

    func testDefaults() {
        let config = APIConfiguration()
        XCTAssertEqual(config.environment, .test)
        XCTAssertEqual(config.appVersion, "9.0.0")
        XCTAssertEqual(config.osType, "iOS")
        XCTAssertEqual(config.timeout, 15)
        XCTAssertEqual(config.authExpiredCodes, [100401, 100402])
        XCTAssertFalse(config.insecureHTTP)
        XCTAssertThrowsError(try APIConfiguration(timeout: 0).validate())
    }

    /// `--base-url`: each refusal names its reason; an accepted URL loses its trailing slashes.
    func testABaseURLIsCheckedPartByPart() throws {
        let refused: [(String, String)] = [
            ("", "is empty"),
            ("not a url", "is not a URL (expected test, release or http(s)://host[:port])"),
            ("api.example.test", "is not a URL (expected test, release or http(s)://host[:port])"),
            ("ftp://api.example.test", "scheme 'ftp' is not http or https"),
            ("http://", "has no host"),
            ("https://api.example.test/?debug=1", "must not have a query or fragment"),
            ("https://api.example.test/#top", "must not have a query or fragment"),
            ("https://user@api.example.test", "must not carry a user name or password"),
            ("https://user:secret@api.example.test", "must not carry a user name or password"),
        ]
        for (text, reason) in refused {
            XCTAssertThrowsError(try APIEnvironment.validatedBaseURL(text), text) {
                XCTAssertEqual($0 as? APIError, .invalidURL(text, reason: reason), text)
            }
        }
        XCTAssertEqual(try APIEnvironment.validatedBaseURL("https://api.example.test/prefix//").absoluteString, "https://api.example.test/prefix")
        // `--env nosuch`: a name, not a URL, is answered with the names there are.
        XCTAssertThrowsError(try APIEnvironment.parse("nosuch")) {
            XCTAssertEqual($0 as? APIError, .invalidURL("nosuch", reason: "is neither an environment (test, release; sandbox with --sandbox) nor an http(s)://host[:port] URL"))
        }
        XCTAssertEqual(try APIEnvironment.validatedBaseURL("HTTP://127.0.0.1:9000").absoluteString, "HTTP://127.0.0.1:9000")
        XCTAssertEqual(try APIEnvironment.validatedBaseURL("http://[::1]:8080").host, "::1")
    }

    func testLoopbackDetection() {
        for host in ["127.0.0.1", "127.255.0.9", "localhost", "LOCALHOST", "::1", "[::1]"] { XCTAssertTrue(APIEnvironment.isLoopback(host: host), host) }
        for host in ["128.0.0.1", "127.0.0", "example.com", "10.0.0.1", "127.0.0.1.example.com", "::2"] { XCTAssertFalse(APIEnvironment.isLoopback(host: host), host) }
    }

    /// A call's values go where the declaration says, in its order: query, JSON body of a POST, header token;
    /// an optional parameter left nil or empty is not sent.
    func testArgumentsAreSentAsTheDeclarationSays() {
        let orders = Endpoint.scenicAdminOrders.endpoint.wire([.scenicId: 1, .keyword: "", .status: nil, .pageSize: 20, .page: 2])
        XCTAssertEqual(orders.query.map { "\($0.0)=\($0.1)" }, ["page=2", "pageSize=20", "scenicId=1"])
        XCTAssertNil(orders.body)
        XCTAssertNil(orders.token)
        XCTAssertEqual(Endpoint.scenicAdminOrders.endpoint.wire([.page: 1, .pageSize: 3, .keyword: "西湖", .status: 2, .scenicId: 1]).query.map(\.0),
                       ["page", "pageSize", "status", "keyword", "scenicId"])
        XCTAssertEqual(Endpoint.locationDetail.endpoint.wire([.staffId: 1001]).query.map { "\($0.0)=\($0.1)" }, ["staff_id=1001"])
        // What the replays show is what the call sends.
        XCTAssertEqual(Endpoint.locationDetail.endpoint.shownPath([.staffId: 1001]), Endpoint.locationDetail.path + "?staff_id=1001")
        XCTAssertEqual(Endpoint.config.endpoint.shownPath([:]), Endpoint.config.path)
        let setUser = Endpoint.setUser.endpoint.wire([.token: "tmp_x", .accountType: "scenic", .userId: 1001])
        XCTAssertTrue(setUser.query.isEmpty)
        XCTAssertEqual(setUser.body.map { String(decoding: JSONWriter.bytes($0), as: UTF8.self) }, #"{"userId":1001,"accountType":"scenic"}"#)
        XCTAssertEqual(setUser.token, "tmp_x")
        XCTAssertEqual(Endpoint.config.endpoint.wire([:]).query.count, 0)
        XCTAssertEqual(Endpoint.storeOrders.endpoint.scopeParameter, .storeId)
        XCTAssertNil(Endpoint.photographerOrders.endpoint.scopeParameter)
    }

    func testScrubberHandlesEscapesAndSpacing() {
        XCTAssertEqual(Redaction.scrubMembers("{\"password\" : \"a\\\"b\", \"x\":1}"), "{\"password\" : \"***\", \"x\":1}")
        XCTAssertEqual(Redaction.scrubMembers("{\"token\":\"abc"), "{\"token\":\"***")
        XCTAssertEqual(Redaction.scrubMembers("{\"token\":null}"), "{\"token\":null}")
    }
}

final class TraceFormattingTests: XCTestCase {
    func testTraceLinesAreRedactedAndReadable() async throws {
        let observer = RecordingObserver()
        let client = Fixture.client(observer: observer) { _ in HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), text: Fixture.envelope("{\"token\":\"abc-123456789\"}")) }
        _ = try await client.post("/api/app/v9/login", body: ["username": "13800000001", "password": .string(Fixture.sentinelPassword)])
        let request = observer.requests[0].description
        XCTAssertTrue(request.hasPrefix("> POST https://api.example.test/api/app/v9/login\n"), request)
        XCTAssertTrue(request.contains("> token: ***"))
        XCTAssertTrue(request.hasSuffix("> {\"username\":\"13800000001\",\"password\":\"***\"}"))
        let response = observer.responses[0].description
        XCTAssertTrue(response.hasPrefix("< 200 POST /api/app/v9/login "), response)
        XCTAssertTrue(response.contains("< Content-Type: application/json"))
        XCTAssertTrue(response.hasSuffix("\"data\":{\"token\":\"***\"}}"), response)
        XCTAssertFalse((request + response).contains(Fixture.sentinelPassword))
        XCTAssertFalse((request + response).contains("abc-123456789"))
    }

    /// Answers to calls in flight together arrive in any order: each answer's line names its request's
    /// query (redacted as the request line is), so the pages of `orders --all` can be told apart.
    func testAnswerLinesNameTheirRequestsQuery() async throws {
        let observer = RecordingObserver()
        let client = Fixture.client(observer: observer) { request in
            request.url.query?.contains("page=3") == true ? HTTPResponse(status: 401, headers: HTTPHeaders(), text: "")
                : HTTPResponse(status: 200, headers: HTTPHeaders(), text: Fixture.envelope("{}"))
        }
        _ = try? await client.get("/api/x/list", query: [("page", "2"), ("password", Fixture.sentinelPassword)])
        _ = try? await client.get("/api/x/list", query: [("page", "3")])
        let lines = observer.responses.map { $0.description.split(separator: "\n")[0] }
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasPrefix("< 200 GET /api/x/list?"), "\(lines)")
        XCTAssertTrue(lines[0].contains("page=2") && lines[0].contains("password=***"), "\(lines)")
        XCTAssertFalse(lines[0].contains(Fixture.sentinelPassword))
        XCTAssertTrue(lines[1].hasPrefix("< 401 GET /api/x/list?page=3 "), "\(lines)")
        // A query typed into the path (a raw `get /x?a=1`) is shown once.
        _ = try? await client.get("/api/x/list?a=1", query: [("page", "3")])
        let typed = try XCTUnwrap(observer.responses.last?.description.split(separator: "\n").first)
        XCTAssertTrue(typed.hasPrefix("< 401 GET /api/x/list?a=1&page=3 "), String(typed))
    }
}
