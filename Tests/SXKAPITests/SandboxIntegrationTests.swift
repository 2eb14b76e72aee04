import Foundation
import XCTest
import SXKCore
import SXKSandbox
@testable import SXKAPI

/// Every endpoint group against the embedded sandbox, over real loopback HTTP and the libcurl transport
/// (`SandboxHTTPSIntegrationTests` runs them all again over https, behind nginx).
class SandboxIntegrationTests: XCTestCase {
    var server: SandboxServer!
    private var bundle: NetworkBundle!
    private let token = Box<String?>(nil)
    private let observer = RecordingObserver()

    override func setUp() async throws {
        server = SandboxServer(config: sandboxConfig())
        let (url, transport) = try endpoint(sandbox: try server.start())
        let config = APIConfiguration(environment: .sandbox(url), timeout: 5)
        let token = self.token
        bundle = try NetworkBundle(configuration: config, transport: transport, observer: observer, tokenProvider: { token.value })
    }

    /// The sandbox the tests run against (camelCase answers here).
    func sandboxConfig() -> SandboxConfig { SandboxConfig(ordersPerRole: 300) }

    /// Where the tests send requests and with which transport: the sandbox itself here.
    func endpoint(sandbox url: URL) throws -> (URL, CurlTransport) { (url, CurlTransport()) }

    override func tearDown() async throws {
        server.stop()
    }

    /// Logs in with a demo phone and chooses the account with `userId` (the only one when nil).
    @discardableResult
    private func logIn(_ phone: String, userId: Int? = nil) async throws -> Account {
        token.value = nil
        let login = try await bundle.account.login(username: phone, password: "sandbox123")
        let account = try XCTUnwrap(userId.map { id in login.value.accounts.first { $0.userId == id } } ?? login.value.accounts.first)
        let chosen = try await bundle.account.setUser(userId: account.userId, accountType: account.accountType, tempToken: login.value.tempToken)
        XCTAssertNotEqual(chosen.value.token, login.value.tempToken)
        token.value = chosen.value.token
        return chosen.value.user
    }

    private var range: (start: String, end: String) {
        let end = server.referenceDate
        return (WireDate.day(end.addingTimeInterval(-29 * 86400)), WireDate.day(end))
    }

    func testAccountGroupAsPhotographer() async throws {
        let config = try await bundle.account.config()
        XCTAssertNotNil(config.value.enableRegister)
        let user = try await logIn("13800000001")
        XCTAssertEqual(user.userId, 1001)
        XCTAssertEqual(user.roleCode, RoleCode.photographer)
        XCTAssertEqual(user.scenicName, "西湖景区")
        let info = try await bundle.account.userInfo()
        XCTAssertEqual(info.value.userId, 1001)
        let roles = try await bundle.account.rolePermissions()
        XCTAssertTrue(roles.value.contains { $0.roleCode == RoleCode.photographer && !$0.permissions.isEmpty })
        let realName = try await bundle.account.realNameInfo()
        XCTAssertTrue((0...2).contains(realName.value.status ?? -1))
        _ = try await bundle.account.bankCardInfo()
        XCTAssertTrue(observer.expiries.isEmpty)
        let trace = observer.allText
        XCTAssertFalse(trace.contains("sandbox123"))
        if let formal = token.value { XCTAssertFalse(trace.contains(formal)) }
    }

    func testPhoneWithThreeAccountsAndWrongPassword() async throws {
        let login = try await bundle.account.login(username: "13800000004", password: "sandbox123")
        XCTAssertEqual(Set(login.value.accounts.map(\.userId)), [4001, 4002, 4003])
        let error = await Fixture.expectError { try await self.bundle.account.login(username: "13800000001", password: "wrong-password") }
        XCTAssertEqual(error?.kind, .server)
        XCTAssertFalse(String(describing: error).contains("wrong-password"))
        let store = try await logIn("13800000004", userId: 4003)
        XCTAssertEqual(store.accountType, AccountType.store)
        XCTAssertEqual(store.storeId, 301)
    }

    func testCommerceAndOperationAsPhotographer() async throws {
        try await logIn("13800000001")
        let stores = try await bundle.commerce.storeList()
        XCTAssertTrue(stores.value.contains { $0.storeId == 101 && $0.storeName == "断桥摄影店" })
        let first = try await bundle.commerce.photographerOrders(page: 1, pageSize: 100)
        XCTAssertEqual(first.value.list.count, 100)
        XCTAssertEqual(first.value.total, 300)
        let last = try await bundle.commerce.photographerOrders(page: 3, pageSize: 100)
        XCTAssertTrue(last.value.isLast)
        XCTAssertNotEqual(first.value.list.first?.orderId, last.value.list.first?.orderId)
        let (start, end) = range
        let summary = try await bundle.operation.photographerSummary(startDate: start, endDate: end)
        let daily = try await bundle.operation.photographerDaily(startDate: start, endDate: end, page: 1, pageSize: 100)
        XCTAssertEqual(daily.value.list.reduce(0) { $0 + ($1.orderCount ?? 0) }, summary.value.orderCount, "daily rows sum to the summary")
        let location = try await bundle.operation.locationDetail(staffId: 1001)
        XCTAssertEqual(location.value.staffId, 1001)
    }

    func testScenicAdminGroups() async throws {
        try await logIn("13800000002")
        let orders = try await bundle.commerce.scenicAdminOrders(page: 1, pageSize: 20, scenicId: 1)
        XCTAssertEqual(orders.value.list.count, 20)
        XCTAssertGreaterThan(try XCTUnwrap(orders.value.total), 20)
        let (start, end) = range
        let summary = try await bundle.operation.scenicAdminSummary(startDate: start, endDate: end, scenicId: 1)
        let daily = try await bundle.operation.scenicAdminDaily(startDate: start, endDate: end, scenicId: 1, page: 1, pageSize: 100)
        XCTAssertEqual(daily.value.list.reduce(0) { $0 + ($1.orderCount ?? 0) }, summary.value.orderCount)
        let keyword = try await bundle.commerce.scenicAdminOrders(page: 1, pageSize: 20, keyword: "西湖", scenicId: 1)
        XCTAssertEqual(keyword.response.status, 200)
        // Another role's endpoint is a business error, not a crash.
        let error = await Fixture.expectError { try await self.bundle.commerce.storeOrders(page: 1, pageSize: 20, storeId: 101) }
        XCTAssertEqual(error?.kind, .server)
    }

    func testStoreAdminGroups() async throws {
        try await logIn("13800000003")
        let orders = try await bundle.commerce.storeOrders(page: 1, pageSize: 50, storeId: 101)
        XCTAssertEqual(orders.value.list.count, 50)
        XCTAssertNotNil(orders.value.list.first?.depositAmount)
        let (start, end) = range
        let summary = try await bundle.operation.storeSummary(startDate: start, endDate: end, storeId: 101)
        let daily = try await bundle.operation.storeDaily(startDate: start, endDate: end, storeId: 101, page: 1, pageSize: 100)
        XCTAssertEqual(daily.value.list.reduce(0) { $0 + ($1.orderCount ?? 0) }, summary.value.orderCount)
    }

    /// Every endpoint of the catalog (`Endpoint.typed`), called through the typed client as every demo
    /// account: each must be answered with success for at least one account and its `data` read into its
    /// model. A failure names each endpoint that was not, with what each account got.
    func testEveryDeclaredEndpointIsServedAndDecoded() async throws {
        var served: Set<String> = []
        var failures: [String: [String]] = [:]
        for phone in ["13800000001", "13800000002", "13800000003", "13800000004"] {
            token.value = nil
            let login = try await bundle.account.login(username: phone, password: "sandbox123")
            for account in login.value.accounts {
                let user = try await logIn(phone, userId: account.userId)
                let values = values(phone: phone, user: user)
                for (name, declaration) in Endpoint.typed {
                    let endpoint = declaration.endpoint
                    var arguments: Endpoint.Arguments = [:]
                    var missing: [String] = []
                    for parameter in endpoint.parameters where parameter.required {
                        if let value = values[parameter] { arguments[parameter] = value } else { missing.append(parameter.name) }
                    }
                    guard missing.isEmpty else {
                        failures[name, default: []].append("\(user.userId): no value for \(missing.joined(separator: ", "))")
                        continue
                    }
                    do {
                        try await call(declaration, arguments)
                        served.insert(name)
                    } catch {
                        failures[name, default: []].append("\(user.userId): \(error)")
                    }
                }
            }
        }
        for (name, declaration) in Endpoint.typed where !served.contains(name) {
            XCTFail("\(name) (\(declaration.endpoint)) is not served and decoded for any demo account: "
                + (failures[name] ?? []).joined(separator: "; "))
        }
    }

    /// Calls one declared endpoint through the typed client (its model recovered from the declaration).
    private func call<Declared: AnyTypedEndpoint>(_ declaration: Declared, _ arguments: Endpoint.Arguments) async throws(APIError) {
        _ = try await bundle.client.call(declaration.typed, arguments)
    }

    /// A value for each parameter the catalog declares, for `user` logged in with `phone`; a scope the
    /// account has none of is left out (that account cannot call the endpoint).
    private func values(phone: String, user: Account) -> Endpoint.Arguments {
        let (start, end) = range
        var values: Endpoint.Arguments = [
            .username: phone, .password: "sandbox123", .userId: user.userId, .accountType: user.accountType,
            .token: token.value, .page: 1, .pageSize: 3, .startDate: start, .endDate: end, .staffId: user.userId,
        ]
        if let scenic = user.scenicId, scenic > 0 { values[.scenicId] = scenic }
        if let store = user.storeId { values[.storeId] = store }
        return values
    }

    func testRawGetAndPost() async throws {
        let config = try await bundle.client.get("/api/app/config")
        XCTAssertEqual(config.code, "100000")
        XCTAssertTrue(config.bodyText.hasPrefix("{"))
        let login = try await bundle.client.post("/api/app/v9/login", body: ["username": "13800000001", "password": "sandbox123"])
        XCTAssertNotNil(login.data[field: "token"])
    }

    func testUnknownTokenIsSessionExpiredAndNotifiesOnce() async throws {
        token.value = "not-a-real-token-000000"
        let account = bundle.account
        async let a = Fixture.expectError { try await account.userInfo() }
        async let b = Fixture.expectError { try await account.rolePermissions() }
        let (ea, eb) = await (a, b)
        XCTAssertEqual(ea?.kind, .sessionExpired)
        XCTAssertEqual(eb?.kind, .sessionExpired)
        XCTAssertEqual(observer.expiries.count, 1)
    }

    func testExpiredFormalTokenIsSessionExpired() async throws {
        try await logIn("13800000001")
        server.expireTokens()
        let error = await Fixture.expectError { try await self.bundle.account.userInfo() }
        XCTAssertEqual(error?.kind, .sessionExpired)
        XCTAssertEqual(observer.expiries.count, 1)
    }

    func testInjectedFaultsBecomeClearErrors() async throws {
        let path = Endpoint.config.path
        let expectations: [(SandboxFaultKind, (APIError?) -> Bool)] = [
            (.html502, { if case .notJSON(502, let reason, let excerpt, _)? = $0 { return reason.contains("HTML") && excerpt.hasPrefix("<") } else { return false } }),
            (.empty, { if case .notJSON(200, "empty body", _, _)? = $0 { return true } else { return false } }),
            (.malformed, { if case .notJSON(200, _, _, _)? = $0 { return true } else { return false } }),
            (.status500, { $0?.serverCode == 100500 }),
            (.truncated, { if case .notJSON(200, let reason, let excerpt, _)? = $0 { return reason.hasPrefix("body is cut off") && excerpt.hasPrefix("{") } else { return false } }),
        ]
        for (kind, matches) in expectations {
            server.injectFault(path: path, kind: kind)
            let error = await Fixture.expectError { try await self.bundle.account.config() }
            XCTAssertTrue(matches(error), "\(kind): \(String(describing: error))")
            XCTAssertEqual(error?.request?.path, path)
        }
        _ = try await bundle.account.config()
    }

    func testCancellingAHangingSandboxRequest() async throws {
        server.injectFault(path: Endpoint.storeList.path, kind: .hang)
        let bundle = self.bundle!
        let task = Task { await Fixture.expectError { try await bundle.commerce.storeList() } }
        try await Task.sleep(nanoseconds: 100_000_000)
        let start = Date()
        task.cancel()
        let error = await task.value
        XCTAssertEqual(error?.kind, .cancelled)
        // Not the hang's end (never) nor the request's timeout: room for a loaded machine.
        XCTAssertLessThan(Date().timeIntervalSince(start), 3.0)
        _ = try await bundle.account.config()
    }
}
