import Foundation
import SXKAPI
import SXKFeatures
import SXKSandbox
import SXKSession
import XCTest
@testable import SXKApp

/// `compare` sends its identities' calls side by side: the set-user calls together, then the requests
/// together, and prints the rows in the order of `--as`. Proved by what the sandbox saw.
final class CompareTests: XCTestCase {
    private func results(_ r: RunResult) throws -> [[String: Any]] {
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").last { $0.hasPrefix("{") }, r.summary)
        let matrix = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try XCTUnwrap(matrix["results"] as? [[String: Any]])
    }

    func testSetUserCallsGoTogetherThenTheRequestsTogetherInTheOrderAsked() throws {
        let (server, url) = try startSandbox(SandboxConfig(latencyMs: 300))
        defer { server.stop() }
        let ws = Workspace()
        let script = "login 13800000004 --password-stdin --accept-privacy --account 1; compare --as account:4003,account:4002,account:4001 orders --page-size 5 --json"
        server.resetRequestLog()
        let r = SXK.run(["-c", script], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(try results(r).map { $0["userId"] as? Int }, [4003, 4002, 4001])
        let log = server.requestLog()
        // The login's own set-user is the first; the compare's two follow.
        let setUsers = Array(log.filter { $0.path == "/api/app/v9/set-user" }.suffix(2))
        XCTAssertEqual(setUsers.count, 2)
        XCTAssertTrue(setUsers[0].overlaps(setUsers[1]), "the two set-user calls were not in flight together")
        let orderPaths = ["/api/yf-handset-app/photog/order/listv2", "/api/app/scenic-admin/order/list", "/api/app/store/order/list"]
        let requests = Array(log.filter { orderPaths.contains($0.path) }.suffix(3))
        XCTAssertEqual(requests.count, 3)
        for i in 0..<3 {
            for j in (i + 1)..<3 { XCTAssertTrue(requests[i].overlaps(requests[j]), "\(requests[i].path) and \(requests[j].path) not together") }
            // Every request waited for every token: none left before the last set-user answered.
            XCTAssertFalse(requests[i].overlaps(setUsers[0]) || requests[i].overlaps(setUsers[1]))
        }
    }

    func testCtrlCWithTheIdentitiesRequestsInFlightEndsTheCompareAtOnce() throws {
        let (server, url) = try startSandbox(SandboxConfig(latencyMs: 3_000))
        defer { server.stop() }
        let ws = Workspace()
        server.setLatency(milliseconds: 0)
        SXK.login("13800000002", in: ws, baseURL: url)
        server.setLatency(milliseconds: 3_000)
        server.resetRequestLog()
        let running = try LiveSXK(["compare", "--as", "role:photographer,role:scenicAdmin", "--", "orders"], in: ws, baseURL: url)
        let deadline = Date().addingTimeInterval(10)
        while server.requestLog().count < 2 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(server.requestLog().count, 2, "the two requests were not both in flight")
        let interrupted = Date()
        kill(running.pid, SIGINT)
        XCTAssertEqual(running.finish(timeout: 10), 130)
        XCTAssertLessThan(Date().timeIntervalSince(interrupted), 2.0, "Ctrl-C waited for the answers")
        XCTAssertEqual(String(decoding: running.out.finish(), as: UTF8.self), "", "a cancelled compare printed rows")
        server.setLatency(milliseconds: 0)
    }

    func testOneIdentityFailingKeepsTheOthersRowsInPlace() throws {
        let (server, url) = try startSandbox(SandboxConfig(latencyMs: 80))
        defer { server.stop() }
        let ws = Workspace()
        server.injectFault(path: "/api/app/scenic-admin/order/list", kind: .status500)
        let script = "login 13800000004 --password-stdin --accept-privacy --account 1; compare --as account:4001,account:4002,account:4003 orders --page-size 5 --json"
        let r = SXK.run(["-c", script], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        let rows = try results(r)
        XCTAssertEqual(rows.map { $0["userId"] as? Int }, [4001, 4002, 4003])
        XCTAssertEqual(rows.map { $0["status"] as? Int }, [200, 500, 200])
        XCTAssertEqual(rows.map { $0["rows"] as? Int }, [5, nil, 5])
        // Each request's time, the failed one's too (the sandbox answers after its 80 ms).
        XCTAssertTrue(rows.allSatisfy { ($0["elapsedMs"] as? Double ?? 0) >= 80 }, "\(rows.map { $0["elapsedMs"] ?? "none" })")
    }

    /// An identity's orders are scoped by the session's rule: a stored store 0 is no store, refused
    /// before anything is sent, as `orders` refuses it.
    func testAStoredStoreZeroIsNoStoreForAnIdentityToo() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        try ws.setStored("key_in_current_store_id", 0)
        XCTAssertTrue(SXK.run(["orders"], in: ws, baseURL: url).stderr.contains("no store selected"))
        server.resetRequestLog()
        let r = SXK.run(["compare", "--as", "current", "--", "orders", "--json"], in: ws, baseURL: url)
        let row = try XCTUnwrap(try results(r).first, r.summary)
        XCTAssertTrue((row["problem"] as? String ?? "").contains("no store selected"), "\(row)")
        XCTAssertFalse(server.requestLog().contains { $0.path == "/api/app/store/order/list" }, "\(paths(server.requestLog()))")
        // An id the identity names is sent as typed: the server says what it makes of store 0.
        XCTAssertEqual(SXK.run(["compare", "--as", "store:0", "--", "orders", "--json"], in: ws, baseURL: url).status, 0)
        XCTAssertTrue(server.requestLog().contains { $0.path == "/api/app/store/order/list" && $0.queryValue("storeId") == "0" }, "\(paths(server.requestLog()))")
    }

    // MARK: Scope names, as `scenic` and `store` match them

    /// `scenic:NAME` and `store:NAME` are matched as the switches match a name: among the current role's
    /// scenic areas (not another role's) and the current scenic's stores (the list the profile keeps
    /// when this process holds none; compare loads none), and refused in the switches' words.
    func testAScopeNameResolvesAsTheSwitchesResolveIt() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let admin = Workspace()
        SXK.login("13800000002", in: admin, baseURL: url)
        XCTAssertEqual(SXK.run(["role", "photographer"], in: admin, baseURL: url).status, 0)
        // 灵隐寺 is the scenic admin role's, not the photographer's: `scenic` refuses it, and so does compare.
        let switched = SXK.run(["scenic", "灵隐"], in: admin, baseURL: url)
        XCTAssertEqual(switched.status, 2, switched.summary)
        server.resetRequestLog()
        let compared = SXK.run(["compare", "--as", "scenic:灵隐", "--", "get", "/api/app/store/all"], in: admin, baseURL: url)
        XCTAssertEqual(compared.status, 2, compared.summary)
        XCTAssertEqual(compared.errorLines, switched.errorLines.map { $0.replacingOccurrences(of: "error: ", with: "error: scenic:灵隐: ") }, compared.summary)
        XCTAssertFalse(server.requestLog().contains { $0.path == "/api/app/store/all" }, "a refused identity sent its request")

        let store = Workspace()
        SXK.login("13800000004", in: store, baseURL: url, account: "3")
        server.resetRequestLog()
        let named = SXK.run(["compare", "--as", "store:梅峰", "--", "orders", "--json"], in: store, baseURL: url)
        XCTAssertEqual(named.status, 0, named.summary)
        let row = try XCTUnwrap(try results(named).last, named.summary)
        XCTAssertEqual(row["storeId"] as? Int, 302, "\(row)")
        XCTAssertTrue(server.requestLog().contains { $0.path == "/api/app/store/order/list" && $0.queryValue("storeId") == "302" })
        let refused = SXK.run(["compare", "--as", "store:断桥", "--", "orders"], in: store, baseURL: url)
        let said = SXK.run(["store", "断桥"], in: store, baseURL: url)
        XCTAssertEqual([refused.status, said.status], [2, 2], refused.summary + said.summary)
        XCTAssertEqual(refused.errorLines, said.errorLines.map { $0.replacingOccurrences(of: "error: ", with: "error: store:断桥: ") }, refused.summary)
        XCTAssertEqual(SXK.run(["store", "梅峰"], in: store, baseURL: url).status, 0)
        XCTAssertEqual(try store.defaultsObject()["key_in_current_store_id"] as? Int, 302)

        // A name is matched in the list the login kept, with no request: a token the server no longer
        // accepts then shows in the matrix, as for `store:ID`, and the session stays as it was.
        server.expireTokens()
        server.resetRequestLog()
        let expired = SXK.run(["compare", "--as", "current,store:梅峰", "--", "orders", "--json"], in: store, baseURL: url)
        XCTAssertEqual(expired.status, 0, expired.summary)
        XCTAssertFalse(server.requestLog().contains { $0.path == "/api/app/store/all" }, "compare loaded the store list")
        XCTAssertNotNil(store.token(), "compare ended the session: \(expired.summary)")
    }

    /// Names the sandbox does not have: an exact name that begins a longer one is that one, in `store`
    /// and in compare alike; a scenic area only another role lists is refused by both.
    func testAnExactNameIsChosenBeforeALongerOneInCompareAsInTheSwitches() async throws {
        let (contexts, scope, storeLoads) = try Self.scope(stores: [
            Store(storeId: 302, storeName: "梅峰观岛摄影", scenicId: 3), Store(storeId: 309, storeName: "梅峰", scenicId: 3),
            Store(storeId: 101, storeName: "断桥摄影店", scenicId: 1),
        ])
        let kept = [Store(storeId: 302, storeName: "梅峰观岛摄影", scenicId: 3), Store(storeId: 309, storeName: "梅峰", scenicId: 3)]
        let store = try await CompareTarget.resolve("store:梅峰", .store("梅峰"), contexts: contexts, scope: scope, keptStores: kept)
        XCTAssertEqual(store.storeId, 309)
        XCTAssertEqual(store.override?.value, 309)
        XCTAssertEqual(storeLoads.value, 0, "compare loaded a store list (a refused load would change the session)")
        var unheld = ""
        do { _ = try await CompareTarget.resolve("store:梅峰", .store("梅峰"), contexts: contexts, scope: scope, keptStores: []) } catch { unheld = "\(error)" }
        XCTAssertEqual(unheld, "store:梅峰: no store list is held to match '梅峰' (`store` loads one) — give the store's id")
        let chosen = try await scope.selectStore("梅峰")
        XCTAssertEqual(chosen.storeId, 309)

        let scenic = try await CompareTarget.resolve("scenic:西湖", .scenic("西湖"), contexts: contexts, scope: scope, keptStores: [])
        XCTAssertEqual(scenic.scenicId, 4)
        var refusal = ""
        do { _ = try await CompareTarget.resolve("scenic:灵隐", .scenic("灵隐"), contexts: contexts, scope: scope, keptStores: []) } catch { refusal = "\(error)" }
        var switchRefusal = ""
        do { _ = try await scope.selectScenic("灵隐") } catch { switchRefusal = "\(error)" }
        XCTAssertEqual(refusal, "scenic:灵隐: " + switchRefusal)
        XCTAssertTrue(switchRefusal.hasPrefix("no scenic '灵隐' for this role"), switchRefusal)
        let switched = try await scope.selectScenic("西湖")
        XCTAssertEqual(switched.scenic?.scenicId, 4)
        // An id is sent as typed, whoever lists it.
        let typed = try await CompareTarget.resolve("scenic:2", .scenic("2"), contexts: contexts, scope: scope, keptStores: [])
        XCTAssertEqual(typed.override?.value, 2)
    }

    /// A photographer in scenic 3 whose role lists 西湖景区 (1) and 西湖 (4), beside a scenic admin role that
    /// lists 灵隐寺 (2); the store list is what `/api/app/store/all` answers, counted.
    private static func scope(stores: [Store]) throws -> (SessionContexts, ScopeFeature, Counter) {
        let dir = NSTemporaryDirectory() + "sxk-compare-\(UUID().uuidString)"
        let storage = try ProfileStorage(paths: try StatePaths(root: dir + "/state", profile: "p", configDir: dir + "/config"), warn: { _ in })
        let contexts = SessionContexts(session: AppSession(), account: AccountContext(), permission: PermissionContext(), store: storage.appStore)
        contexts.session.logIn(token: "sxk_compare_test_token")
        contexts.account.setScenic(id: 3, name: "千岛湖")
        let mine = [ScenicRef(scenicId: 1, scenicName: "西湖景区"), ScenicRef(scenicId: 4, scenicName: "西湖")]
        contexts.permission.update {
            $0.roles = [RolePermission(roleCode: "photographer", roleName: "摄影师", scenicList: mine, permissions: []),
                        RolePermission(roleCode: "scenicAdmin", roleName: "景区管理员", scenicList: [ScenicRef(scenicId: 2, scenicName: "灵隐寺")], permissions: [])]
            $0.rolesLoaded = true
            $0.roleCode = "photographer"
            $0.scenicList = mine
        }
        let loads = Counter()
        let list = "[" + stores.map { #"{"storeId":\#($0.storeId),"storeName":"\#($0.storeName)","scenicId":\#($0.scenicId ?? 0)}"# }.joined(separator: ",") + "]"
        let transport = ClosureTransport { request in
            guard request.url.path == "/api/app/store/all" else { return HTTPResponse(status: 404, text: "{}") }
            loads.add()
            return HTTPResponse(status: 200, text: #"{"code":100000,"msg":"success","data":\#(list)}"#)
        }
        let network = try NetworkBundle(configuration: APIConfiguration(environment: .custom(URL(string: "http://127.0.0.1:9")!)),
                                        transport: transport, tokenProvider: { contexts.session.token })
        let sessionGuard = SessionGuard(contexts: contexts)
        let auth = AuthSessionCoordinator(account: network.account, commerce: network.commerce, guard: sessionGuard)
        return (contexts, ScopeFeature(loader: auth.loader, guard: sessionGuard), loads)
    }

    // MARK: orders, as `orders` builds it

    /// Each identity's orders page is the request the app model plans for `orders` (`OrdersFeature.request`),
    /// then the identity's scope parameter; paging `orders` would refuse is refused here too.
    func testAnIdentitysOrdersPageIsTheOneOrdersSends() throws {
        let target = CompareTarget(label: "role:scenicAdmin", roleCode: "scenicAdmin", scenicId: 3)
        for page in [1, 2] {
            guard case .success(let made) = CompareRequest.orders(page: page, pageSize: 5, status: 2, keyword: "湖").concrete(for: target) else {
                return XCTFail("no request for page \(page)")
            }
            let planned = AppModel.ordersRequest(.scenicAdmin(scenicId: 3), page: page, pageSize: 5, filter: OrderFilter(status: 2, keyword: "湖"))
            XCTAssertEqual(made.method, "GET")
            XCTAssertEqual(made.path, planned.endpoint.path)
            XCTAssertEqual(made.query.map { "\($0.0)=\($0.1)" }, planned.endpoint.endpoint.wire(planned.arguments).query.map { "\($0.0)=\($0.1)" })
        }
        let scoped = CompareTarget(label: "scenic:9", roleCode: "scenicAdmin", scenicId: 9, override: (.scenicId, 9))
        guard case .success(let made) = CompareRequest.orders(page: 1, pageSize: 5, status: nil, keyword: nil).concrete(for: scoped) else { return XCTFail("no request") }
        XCTAssertEqual(made.query.filter { $0.0 == "scenicId" }.map(\.1), ["9"])
        for (page, pageSize, why) in [(0, 5, "--page must be 1 or more"), (1, OrdersFeature.pageSizes.upperBound + 1, "--page-size must be between 1 and")] {
            guard case .failure(let problem) = CompareRequest.orders(page: page, pageSize: pageSize, status: nil, keyword: nil).concrete(for: target) else {
                return XCTFail("page \(page) × \(pageSize) was sent")
            }
            XCTAssertTrue(problem.message.hasPrefix(why), problem.message)
        }
    }

    // MARK: a rejected token's code and message

    /// CODE and MSG of an identity whose token the server rejects are the expiry's own fields.
    func testAnExpiryFillsCodeAndMessageFromItsCause() {
        var row = CompareResult(target: CompareTarget(label: "current"), tokenSource: "session")
        let label = RequestLabel(method: "GET", path: "/api/app/store/all", status: 200)
        row.fill(with: .sessionExpired(ExpiryCause(code: "100401", message: "登录已过期: 请重新登录"), request: label))
        XCTAssertEqual([row.status.map(String.init), row.code, row.msg], ["200", "100401", "登录已过期: 请重新登录"])
        XCTAssertEqual(row.problem, "session expired for this identity (code 100401: 登录已过期: 请重新登录)")
        var unsaid = CompareResult(target: CompareTarget(label: "current"), tokenSource: "session")
        unsaid.fill(with: .sessionExpired(.http401, request: RequestLabel(method: "GET", path: "/x", status: 401)))
        XCTAssertNil(unsaid.code)
        XCTAssertNil(unsaid.msg)
        XCTAssertEqual(unsaid.problem, "session expired for this identity (HTTP 401)")
    }

    func testAnIdentityWhoseTokenIsRejectedShowsTheServersCodeAndMessage() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.expireTokens()
        let r = SXK.run(["compare", "--as", "current", "--", "get", "/api/app/store/all", "--json"], in: ws, baseURL: url)
        let row = try XCTUnwrap(try results(r).first, r.summary)
        XCTAssertEqual(row["code"] as? String, "100401", "\(row)")
        XCTAssertEqual(row["msg"] as? String, "登录已过期，请重新登录", "\(row)")
        XCTAssertEqual(row["problem"] as? String, "session expired for this identity (code 100401: 登录已过期，请重新登录)", "\(row)")
    }
}

/// A count several tasks add to.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
