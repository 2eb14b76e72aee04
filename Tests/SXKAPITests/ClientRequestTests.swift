import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

/// Request building: headers, token choice, query encoding, JSON bodies, URLs.
final class ClientRequestTests: XCTestCase {
    func testCommonHeadersAndSessionToken() async throws {
        let sent = Box<[HTTPRequest]>([])
        let config = APIConfiguration(environment: .custom(URL(string: "https://api.example.test")!), appVersion: "9.1.2", osType: "iOS")
        let client = Fixture.client(configuration: config, sent: sent) { _ in Fixture.ok("{}") }
        _ = try await client.get("/api/app/config")
        let request = try XCTUnwrap(sent.value.first)
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.url.absoluteString, "https://api.example.test/api/app/config")
        XCTAssertEqual(request.headers["Content-Type"], "application/json")
        XCTAssertEqual(request.headers["accept"], "application/json")
        XCTAssertEqual(request.headers["X-APP-VERSION"], "9.1.2")
        XCTAssertEqual(request.headers["X-OS-TYPE"], "iOS")
        XCTAssertEqual(request.headers["token"], Fixture.sentinelToken)
        XCTAssertEqual(request.timeout, 15)
        XCTAssertTrue(request.body.isEmpty)
    }

    func testNoTokenHeaderWithoutToken() async throws {
        let sent = Box<[HTTPRequest]>([])
        let client = Fixture.client(token: nil, sent: sent) { _ in Fixture.ok("{}") }
        _ = try await client.get("/api/app/config")
        XCTAssertNil(sent.value.first?.headers["token"])
        let empty = Fixture.client(token: "", sent: sent) { _ in Fixture.ok("{}") }
        _ = try await empty.get("/api/app/config")
        XCTAssertNil(sent.value.last?.headers["token"], "an empty token is no token")
    }

    func testSetUserSendsTheTemporaryTokenInsteadOfTheSessionToken() async throws {
        let sent = Box<[HTTPRequest]>([])
        let client = Fixture.client(sent: sent) { _ in
            Fixture.ok("{\"token\":\"formal-000111222\",\"user\":{\"userId\":1001,\"accountType\":\"scenic\"}}")
        }
        let result = try await AccountAPI(client: client).setUser(userId: 1001, accountType: "scenic", tempToken: Fixture.sentinelTempToken)
        let request = try XCTUnwrap(sent.value.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.url.path, "/api/app/v9/set-user")
        XCTAssertEqual(request.headers.fields.filter { $0.name.lowercased() == "token" }.map(\.value), [Fixture.sentinelTempToken])
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "{\"userId\":1001,\"accountType\":\"scenic\"}")
        XCTAssertEqual(result.value.token, "formal-000111222")
        XCTAssertEqual(result.value.user.userId, 1001)
    }

    func testTokenProviderIsReadPerRequestAndRebindable() async throws {
        let sent = Box<[HTTPRequest]>([])
        let current = Box<String?>("first-token-1234")
        let client = APIClient(configuration: APIConfiguration(), transport: ClosureTransport { r in
            sent.mutate { $0.append(r) }
            return Fixture.ok("{}")
        }, tokenProvider: { current.value })
        _ = try await client.get("/a")
        current.value = "second-token-5678"
        _ = try await client.get("/a")
        client.bindTokenProvider { "third-token-9012" }
        _ = try await client.get("/a")
        XCTAssertEqual(sent.value.map { $0.headers["token"] }, ["first-token-1234", "second-token-5678", "third-token-9012"])
    }

    func testChineseKeywordAndReservedCharactersArePercentEncoded() async throws {
        let sent = Box<[HTTPRequest]>([])
        let client = Fixture.client(sent: sent) { _ in Fixture.ok("{\"list\":[],\"total\":0,\"page\":1,\"pageSize\":20}") }
        _ = try await CommerceAPI(client: client).photographerOrders(page: 1, pageSize: 20, status: 2, keyword: "西湖 a&b=c+d")
        let url = try XCTUnwrap(sent.value.first?.url.absoluteString)
        XCTAssertEqual(url, "https://api.example.test/api/yf-handset-app/photog/order/listv2?page=1&pageSize=20&status=2&keyword=%E8%A5%BF%E6%B9%96%20a%26b%3Dc%2Bd")
        XCTAssertEqual(sent.value.first?.url.query?.removingPercentEncoding?.contains("西湖"), true)
    }

    func testOptionalPagingParametersAreLeftOut() async throws {
        let sent = Box<[HTTPRequest]>([])
        let client = Fixture.client(sent: sent) { _ in Fixture.ok("{\"list\":[]}") }
        _ = try await CommerceAPI(client: client).scenicAdminOrders(page: 2, pageSize: 50, scenicId: 1)
        _ = try await CommerceAPI(client: client).storeOrders(page: 1, pageSize: 10, keyword: "", storeId: 101)
        XCTAssertEqual(sent.value.map { $0.url.query }, ["page=2&pageSize=50&scenicId=1", "page=1&pageSize=10&storeId=101"])
    }

    func testEveryOperationEndpointSendsItsScopeAndRange() async throws {
        let sent = Box<[HTTPRequest]>([])
        let client = Fixture.client(sent: sent) { request in
            request.url.path.hasSuffix("daily") ? Fixture.ok("{\"list\":[]}") : Fixture.ok("{\"orderCount\":0}")
        }
        let op = OperationAPI(client: client)
        _ = try await op.photographerSummary(startDate: "2026-11-01", endDate: "2026-11-29")
        _ = try await op.photographerDaily(startDate: "2026-11-01", endDate: "2026-11-29", page: 1, pageSize: 31)
        _ = try await op.scenicAdminSummary(startDate: "2026-11-01", endDate: "2026-11-29", scenicId: 2)
        _ = try await op.scenicAdminDaily(startDate: "2026-11-01", endDate: "2026-11-29", scenicId: 2, page: 1, pageSize: 31)
        _ = try await op.storeSummary(startDate: "2026-11-01", endDate: "2026-11-29", storeId: 101)
        _ = try await op.storeDaily(startDate: "2026-11-01", endDate: "2026-11-29", storeId: 101, page: 2, pageSize: 7)
        XCTAssertEqual(sent.value.map { "\($0.url.path)?\($0.url.query ?? "")" }, [
            "/api/yf-handset-app/photog/analyse/user?startDate=2026-11-01&endDate=2026-11-29",
            "/api/yf-handset-app/photog/analyse/user/daily?startDate=2026-11-01&endDate=2026-11-29&page=1&pageSize=31",
            "/api/app/scenic-admin/analyse?startDate=2026-11-01&endDate=2026-11-29&scenicId=2",
            "/api/app/scenic-admin/analyse/daily?startDate=2026-11-01&endDate=2026-11-29&scenicId=2&page=1&pageSize=31",
            "/api/app/store/analyse?startDate=2026-11-01&endDate=2026-11-29&storeId=101",
            "/api/app/store/analyse/daily?startDate=2026-11-01&endDate=2026-11-29&storeId=101&page=2&pageSize=7",
        ])
    }

    func testLocationDetailKeepsTheMisspelledPathAndSnakeCaseParameter() async throws {
        let sent = Box<[HTTPRequest]>([])
        let client = Fixture.client(sent: sent) { _ in Fixture.ok("{\"staffId\":1001,\"online\":true}") }
        _ = try await OperationAPI(client: client).locationDetail(staffId: 1001)
        XCTAssertEqual(sent.value.first?.url.absoluteString, "https://api.example.test/api/yf-handset-app/photog/loacation/detail?staff_id=1001")
    }

    func testRawPostSendsJSONBodyAndRawGetAppendsToExistingQuery() async throws {
        let sent = Box<[HTTPRequest]>([])
        let client = Fixture.client(sent: sent) { _ in Fixture.ok("{}") }
        _ = try await client.post("/api/custom", body: ["名字": "西湖", "n": .number("12.50"), "list": [1, true, nil]])
        _ = try await client.post("/api/empty")
        _ = try await client.get("/api/x?a=1", query: [("b", "2")])
        XCTAssertEqual(sent.value.map { String(decoding: $0.body, as: UTF8.self) }, ["{\"名字\":\"西湖\",\"n\":12.50,\"list\":[1,true,null]}", "{}", ""])
        XCTAssertEqual(sent.value[2].url.absoluteString, "https://api.example.test/api/x?a=1&b=2")
        XCTAssertEqual(sent.value[1].method, "POST")
    }

    func testBaseURLWithPrefixAndTrailingSlash() throws {
        let base = try APIEnvironment.validatedBaseURL("http://127.0.0.1:8080/prefix/")
        XCTAssertEqual(APIClient.urlString(base: base, path: "/api/app/config", query: [("k", "v w")]), "http://127.0.0.1:8080/prefix/api/app/config?k=v%20w")
    }

    func testPathMustStartWithSlash() async {
        let client = Fixture.client { _ in Fixture.ok("{}") }
        let error = await Fixture.expectError { try await client.get("api/app/config") }
        guard case .invalidRequest? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual(error?.kind, .configuration)
        XCTAssertEqual(error?.description, "GET api/app/config: a request path must start with /")
    }
}
