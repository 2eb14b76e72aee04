/// One backend endpoint (CONTRACT §3): what the `get`/`post` commands complete and the groups call.
public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }
    public enum Group: String, Sendable, CaseIterable { case account, commerce, operation }

    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var required: Bool
        /// `query` for GET parameters, `body` for POST JSON members, `header` for the set-user token.
        public var location: String
        public init(_ name: String, required: Bool = true, location: String = "query") {
            self.name = name; self.required = required; self.location = location
        }
    }

    public var group: Group
    /// The typed function's name in its group (`photographerOrders`).
    public var name: String
    public var method: Method
    public var path: String
    public var parameters: [Parameter]
    public var summary: String

    public var description: String { "\(method.rawValue) \(path)" }
}

extension Endpoint {
    private static func q(_ name: String, _ required: Bool = true) -> Parameter { Parameter(name, required: required) }
    private static func b(_ name: String) -> Parameter { Parameter(name, required: true, location: "body") }
    private static let paging = [q("page"), q("pageSize"), q("status", false), q("keyword", false)]
    private static let range = [q("startDate"), q("endDate")]
    private static let rangePaged = range + [q("page"), q("pageSize")]

    // Account
    public static let config = Endpoint(group: .account, name: "config", method: .get, path: "/api/app/config", parameters: [], summary: "app configuration (enableRegister)")
    public static let login = Endpoint(group: .account, name: "login", method: .post, path: "/api/app/v9/login", parameters: [b("username"), b("password")], summary: "password login: temporary token and accounts")
    public static let setUser = Endpoint(group: .account, name: "setUser", method: .post, path: "/api/app/v9/set-user", parameters: [b("userId"), b("accountType"), Parameter("token", location: "header")], summary: "choose an account: formal token")
    public static let userInfo = Endpoint(group: .account, name: "userInfo", method: .get, path: "/api/yf-handset-app/userinfo", parameters: [], summary: "profile of the current account")
    public static let rolePermissions = Endpoint(group: .account, name: "rolePermissions", method: .get, path: "/api/yf-handset-app/role-permission", parameters: [], summary: "roles with scenic areas and permissions")
    public static let realNameInfo = Endpoint(group: .account, name: "realNameInfo", method: .get, path: "/api/yf-handset-app/photog/real-name/info", parameters: [], summary: "real-name verification")
    public static let bankCardInfo = Endpoint(group: .account, name: "bankCardInfo", method: .get, path: "/api/yf-handset-app/photog/wallet/bank-card/info", parameters: [], summary: "bound bank card")

    // Commerce
    public static let storeList = Endpoint(group: .commerce, name: "storeList", method: .get, path: "/api/app/store/all", parameters: [], summary: "all stores")
    public static let photographerOrders = Endpoint(group: .commerce, name: "photographerOrders", method: .get, path: "/api/yf-handset-app/photog/order/listv2", parameters: paging, summary: "photographer orders")
    public static let scenicAdminOrders = Endpoint(group: .commerce, name: "scenicAdminOrders", method: .get, path: "/api/app/scenic-admin/order/list", parameters: paging + [q("scenicId")], summary: "scenic-area orders")
    public static let storeOrders = Endpoint(group: .commerce, name: "storeOrders", method: .get, path: "/api/app/store/order/list", parameters: paging + [q("storeId")], summary: "store deposit orders")

    // Operation
    public static let photographerSummary = Endpoint(group: .operation, name: "photographerSummary", method: .get, path: "/api/yf-handset-app/photog/analyse/user", parameters: range, summary: "photographer statistics")
    public static let photographerDaily = Endpoint(group: .operation, name: "photographerDaily", method: .get, path: "/api/yf-handset-app/photog/analyse/user/daily", parameters: rangePaged, summary: "photographer statistics by day")
    public static let scenicAdminSummary = Endpoint(group: .operation, name: "scenicAdminSummary", method: .get, path: "/api/app/scenic-admin/analyse", parameters: range + [q("scenicId")], summary: "scenic-area statistics")
    public static let scenicAdminDaily = Endpoint(group: .operation, name: "scenicAdminDaily", method: .get, path: "/api/app/scenic-admin/analyse/daily", parameters: range + [q("scenicId"), q("page"), q("pageSize")], summary: "scenic-area statistics by day")
    public static let storeSummary = Endpoint(group: .operation, name: "storeSummary", method: .get, path: "/api/app/store/analyse", parameters: range + [q("storeId")], summary: "store statistics")
    public static let storeDaily = Endpoint(group: .operation, name: "storeDaily", method: .get, path: "/api/app/store/analyse/daily", parameters: range + [q("storeId"), q("page"), q("pageSize")], summary: "store statistics by day")
    /// The path's spelling `loacation` is the real backend's and must be kept.
    public static let locationDetail = Endpoint(group: .operation, name: "locationDetail", method: .get, path: "/api/yf-handset-app/photog/loacation/detail", parameters: [q("staff_id")], summary: "last location report of a staff member")

    /// Every endpoint, in CONTRACT §3 order (for completion of `get`/`post` paths and for `help`).
    public static let all: [Endpoint] = [
        config, login, setUser, userInfo, rolePermissions, realNameInfo, bankCardInfo,
        storeList, photographerOrders, scenicAdminOrders, storeOrders,
        photographerSummary, photographerDaily, scenicAdminSummary, scenicAdminDaily, storeSummary, storeDaily, locationDetail,
    ]

    /// The endpoint with this exact path (and method, when given).
    public static func find(path: String, method: Method? = nil) -> Endpoint? {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return all.first { $0.path == bare && (method == nil || $0.method == method) }
    }
}
