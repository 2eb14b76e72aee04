import FoundationEssentials
import SXKAPI
import SXKSession

/// One page of orders with the endpoint it came from and the response (for `--raw`).
public struct OrdersPage: Sendable {
    public var endpoint: RoleEndpoints
    public var page: Page<Order>
    public var response: APIResponse
}

/// Filters of an order query.
public struct OrderFilter: Sendable, Equatable {
    public var status: Int?
    public var keyword: String?
    public init(status: Int? = nil, keyword: String? = nil) { self.status = status; self.keyword = keyword }
}

/// Seed 001 `ordersFeatureServices`: role → endpoint with the current scope, one page or a streamed walk.
public struct OrdersFeature: Sendable {
    /// The page size the app's first screen asks for.
    public static let defaultPageSize = 20
    /// The page sizes asked for: what the backend serves (the sandbox clamps to 100, as the backend).
    public static let pageSizes = 1...100
    /// `orders --all`: the largest page, the fewest round trips.
    public static let walkPageSize = pageSizes.upperBound

    public let commerce: CommerceAPI
    public let sessionGuard: SessionGuard
    private var contexts: SessionContexts { sessionGuard.contexts }

    public init(commerce: CommerceAPI, guard sessionGuard: SessionGuard) {
        self.commerce = commerce
        self.sessionGuard = sessionGuard
    }

    /// The endpoint for `role` (default: the session's role), refused when the account does not hold
    /// that role, or when the scope it needs is not selected.
    public func endpoint(role requested: String? = nil) throws(FeatureError) -> RoleEndpoints {
        try sessionGuard.requireSession()
        return try RoleEndpoints.resolve(requested, contexts: contexts, feature: "orders").endpoints
    }

    /// One page (1-based) of the role's orders.
    public func fetchPage(role: String? = nil, page: Int = 1, pageSize: Int = OrdersFeature.defaultPageSize, filter: OrderFilter = OrderFilter()) async throws(FeatureError) -> OrdersPage {
        try OrdersFeature.checkPaging(page: page, pageSize: pageSize)
        let endpoint = try endpoint(role: role)
        let result = try await sessionGuard.run("orders") { try await fetch(endpoint, page: page, pageSize: pageSize, filter: filter) }
        return OrdersPage(endpoint: endpoint, page: result.value, response: result.response)
    }

    /// Walks every page, handing each page's rows to `onPage` as it arrives (the next `PageWalker.ahead`
    /// pages are already being fetched meanwhile), so memory holds a few pages whatever the total. Stops at the last page, at `limit`
    /// rows, on cancellation, or when `onPage` returns false. The endpoint is resolved once, up front.
    public func walkAll(
        role: String? = nil, pageSize: Int = walkPageSize, filter: OrderFilter = OrderFilter(), limit: Int? = nil,
        onPage: ([Order], WalkProgress) async throws -> Bool
    ) async throws(FeatureError) -> WalkOutcome {
        try OrdersFeature.checkPaging(page: 1, pageSize: pageSize)
        if let limit, limit < 0 { throw .invalidPageArguments("--limit must not be negative") }
        let endpoint = try endpoint(role: role)
        let feature = self
        return try await sessionGuard.run("orders --all") {
            try await PageWalker.walk(limit: limit, same: { $0.map(\.raw) == $1.map(\.raw) }, fetch: { @Sendable page in
                let r = try await feature.fetch(endpoint, page: page, pageSize: pageSize, filter: filter)
                if r.value.namesAnotherPage { throw FeatureError.pageNotAsked(asked: page, answered: r.value.page) }
                return (r.value.list, r.value.total, r.value.isLast, r.value.pageSize)
            }, onPage: onPage)
        }
    }

    /// The request of one page as `fetchPage` sends it, refused when the paging is not one it sends;
    /// `compare` sends it with its identity's token.
    public static func request(_ endpoint: RoleEndpoints, page: Int, pageSize: Int, filter: OrderFilter) throws(FeatureError) -> PlannedRequest<Page<Order>> {
        try checkPaging(page: page, pageSize: pageSize)
        return AppModel.ordersRequest(endpoint, page: page, pageSize: pageSize, filter: filter)
    }

    /// One page as the app model builds it: page 1 is the first screen (`AppModel.ordersRequest`).
    func fetch(_ endpoint: RoleEndpoints, page: Int, pageSize: Int, filter: OrderFilter) async throws(APIError) -> APIResult<Page<Order>> {
        let request = AppModel.ordersRequest(endpoint, page: page, pageSize: pageSize, filter: filter)
        var result = try await commerce.client.call(request.endpoint, request.arguments)
        result.value.asked(page, pageSize: pageSize)
        return result
    }

    static func checkPaging(page: Int, pageSize: Int) throws(FeatureError) {
        guard page >= 1 else { throw .invalidPageArguments("--page must be 1 or more") }
        guard pageSizes.contains(pageSize) else {
            throw .invalidPageArguments("--page-size must be between \(pageSizes.lowerBound) and \(pageSizes.upperBound)")
        }
    }
}

/// Picks the role a feature runs as: the requested one when the account holds it, else the current one.
enum RoleScope {
    static func resolve(_ requested: String?, permission p: PermissionContext.State) throws(FeatureError) -> String {
        var held = p.roles.map(\.roleCode)
        if let current = p.roleCode, !held.contains(current) { held.insert(current, at: 0) }
        // An empty `--role ''` is a value the account cannot hold (a usage error), not "no role selected".
        if requested?.isEmpty == true { throw .roleNotHeld("", held: held) }
        guard let role = requested ?? p.roleCode, !role.isEmpty else { throw .noRole }
        guard held.contains(role) else { throw .roleNotHeld(role, held: held) }
        return role
    }
}
