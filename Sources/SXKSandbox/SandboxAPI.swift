import FoundationEssentials
import SXKCore
import SXKModels

/// A business failure: HTTP 200 (unless said otherwise) with the envelope's code and message.
struct APIFailure: Error {
    let code: Int
    let msg: String
    var status = 200

    static let expired = APIFailure(code: SandboxCode.authExpired, msg: "登录已过期，请重新登录")
    static let forbidden = APIFailure(code: SandboxCode.forbidden, msg: "无权限访问")
    static func missing(_ name: String) -> APIFailure { APIFailure(code: SandboxCode.badRequest, msg: "缺少参数 \(name)") }
    static func invalid(_ name: String, _ detail: String = "格式错误") -> APIFailure {
        APIFailure(code: SandboxCode.badRequest, msg: "参数 \(name) \(detail)")
    }
}

/// The backend's endpoints (`Endpoint.all`): routing, authentication, role and scope checks.
final class SandboxAPI: @unchecked Sendable {
    typealias Handler = @Sendable (SandboxAPI, HTTPRequest) throws(APIFailure) -> JSONValue

    struct Route: Sendable {
        let method: String
        let handler: Handler
    }

    let tokens: SandboxTokens
    let clock: any WallClock
    let seed: UInt64
    let referenceUnix: Int
    /// Order scopes by key: `photographer:1001`, `scenic:1`, `store:101`.
    let scopes: [String: OrderScope]
    /// The scope-leak fault (off unless a test turns it on).
    let scopeLeak = ScopeLeakSwitch()
    /// Role lists replaced through the control API.
    let roleOverrides = RoleOverrides()

    init(config: SandboxConfig, tokens: SandboxTokens, referenceUnix: Int) {
        self.tokens = tokens
        self.clock = config.clock
        self.seed = config.seed
        self.referenceUnix = referenceUnix
        var scopes: [String: OrderScope] = [:]
        var number = 1
        func add(_ key: String, deposit: Bool, scenicId: Int, storeName: String?, photographers: [String]) {
            scopes[key] = OrderScope(
                key: key, number: number, seed: config.seed, count: min(1_000_000, max(1, config.ordersPerRole)), referenceUnix: referenceUnix,
                isDeposit: deposit, scenicName: SandboxDirectory.scenic(scenicId)?.name ?? "", storeName: storeName,
                photographers: photographers)
            number += 1
        }
        for account in SandboxDirectory.accounts {
            for role in account.roles where role.roleCode == "photographer" {
                add("photographer:\(account.userId)", deposit: false, scenicId: role.scenicIds[0], storeName: nil,
                    photographers: [account.realName])
            }
        }
        for scenic in SandboxDirectory.scenics {
            add("scenic:\(scenic.id)", deposit: false, scenicId: scenic.id, storeName: nil,
                photographers: OrderNames.scenicPhotographers[scenic.id] ?? ["摄影师"])
        }
        for store in SandboxDirectory.stores {
            let pool = OrderNames.scenicPhotographers[store.scenicId] ?? ["摄影师"]
            add("store:\(store.id)", deposit: true, scenicId: store.scenicId, storeName: store.name,
                photographers: Array(pool.prefix(3)))
        }
        self.scopes = scopes
    }

    /// Each declared endpoint's handler, from the route tables beside the handlers. An endpoint of
    /// `Endpoint.all` missing here is answered 501 naming it (and the every-endpoint test fails on it).
    static let handlers: [Endpoint: Handler] = Dictionary(accountRoutes + orderRoutes) { first, _ in first }

    /// The route of each declared endpoint, keyed by path (a second declaration of a path is not
    /// served: the every-endpoint test names it).
    static let routes: [String: Route] = Dictionary(Endpoint.all.map { endpoint in
        (endpoint.path, Route(method: endpoint.method.rawValue, handler: handler(for: endpoint)))
    }) { first, _ in first }

    static func handler(for endpoint: Endpoint) -> Handler {
        if let handler = handlers[endpoint] { return handler }
        return { _, _ throws(APIFailure) in
            throw APIFailure(code: SandboxCode.serverError, msg: "沙盒未实现接口: \(endpoint)", status: 501)
        }
    }

    /// One route-table entry: the declared endpoint and its handler.
    static func route<Value>(_ endpoint: TypedEndpoint<Value>, _ handler: @escaping Handler) -> (Endpoint, Handler) {
        (endpoint.endpoint, handler)
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var path = request.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        guard let route = SandboxAPI.routes[path] else {
            return .envelope(code: SandboxCode.notFound, msg: "接口不存在: \(path)", status: 404)
        }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard method == route.method else {
            var response = HTTPResponse.envelope(code: SandboxCode.methodNotAllowed, msg: "请求方法不支持: \(request.method)", status: 405)
            response.headers.append(("Allow", route.method))
            return response
        }
        do {
            return .success(try route.handler(self, request))
        } catch {
            return .envelope(code: error.code, msg: error.msg, status: error.status)
        }
    }

    // MARK: - Shared checks

    /// The account behind the formal token in header `token`.
    func formalAccount(_ request: HTTPRequest) throws(APIFailure) -> SandboxAccount {
        guard let token = request.header("token"), !token.isEmpty, let userId = tokens.formalUser(token),
            let account = SandboxDirectory.account(userId)
        else { throw .expired }
        return account
    }

    func requireRole(_ account: SandboxAccount, _ roleCode: String) throws(APIFailure) -> SandboxRole {
        guard let role = account.roles.first(where: { $0.roleCode == roleCode }) else { throw .forbidden }
        return role
    }

    /// The JSON object body of a POST (empty body = empty object).
    func jsonBody(_ request: HTTPRequest) throws(APIFailure) -> JSONObject {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return JSONObject() }
        guard let value = try? JSONParser.parse(request.body), let object = value.objectValue else {
            throw APIFailure(code: SandboxCode.badRequest, msg: "请求体不是有效的 JSON 对象")
        }
        return object
    }

    /// An integer query parameter (camelCase or snake_case); nil when absent or empty.
    func intParam(_ request: HTTPRequest, _ name: String) throws(APIFailure) -> Int? {
        guard let text = request.param(name)?.sandboxTrimmed(" "), !text.isEmpty else { return nil }
        guard let value = Int(text) else { throw .invalid(name) }
        return value
    }

    func requireIntParam(_ request: HTTPRequest, _ name: String) throws(APIFailure) -> Int {
        guard let value = try intParam(request, name) else { throw .missing(name) }
        return value
    }

    // MARK: - Order scopes

    func photographerScope(_ request: HTTPRequest) throws(APIFailure) -> OrderScope {
        let account = try formalAccount(request)
        _ = try requireRole(account, "photographer")
        return scopes["photographer:\(account.userId)"]!
    }

    func scenicScope(_ request: HTTPRequest) throws(APIFailure) -> OrderScope {
        let account = try formalAccount(request)
        let role = try requireRole(account, "scenicAdmin")
        let scenicId = try requireIntParam(request, "scenicId")
        guard role.scenicIds.contains(scenicId), let scope = scopes["scenic:\(scenicId)"] else {
            throw APIFailure(code: SandboxCode.forbidden, msg: "无权限访问该景区: \(scenicId)")
        }
        return scope
    }

    func storeScope(_ request: HTTPRequest) throws(APIFailure) -> OrderScope {
        let account = try formalAccount(request)
        _ = try requireRole(account, "storeAdmin")
        let storeId = try requireIntParam(request, "storeId")
        guard account.storeIds.contains(storeId), let scope = scopes["store:\(storeId)"] else {
            throw APIFailure(code: SandboxCode.forbidden, msg: "无权限访问该门店: \(storeId)")
        }
        return scope
    }
}
