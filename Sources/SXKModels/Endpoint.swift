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

    /// Every endpoint of CONTRACT §3, as a closed set: a `switch` over it (the sandbox's router)
    /// is checked by the compiler to cover each one.
    public enum ID: String, Sendable, CaseIterable {
        case config, login, setUser, userInfo, rolePermissions, realNameInfo, bankCardInfo
        case storeList, photographerOrders, scenicAdminOrders, storeOrders
        case photographerSummary, photographerDaily, scenicAdminSummary, scenicAdminDaily, storeSummary, storeDaily
        case locationDetail
    }

    public var id: ID
    public var group: Group
    /// The typed function's name in its group (`photographerOrders`).
    public var name: String { id.rawValue }
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
    public static let config = Endpoint(id: .config, group: .account, method: .get, path: "/api/app/config", parameters: [], summary: "app configuration (enableRegister)")
    public static let login = Endpoint(id: .login, group: .account, method: .post, path: "/api/app/v9/login", parameters: [b("username"), b("password")], summary: "password login: temporary token and accounts")
    public static let setUser = Endpoint(id: .setUser, group: .account, method: .post, path: "/api/app/v9/set-user", parameters: [b("userId"), b("accountType"), Parameter("token", location: "header")], summary: "choose an account: formal token")
    public static let userInfo = Endpoint(id: .userInfo, group: .account, method: .get, path: "/api/yf-handset-app/userinfo", parameters: [], summary: "profile of the current account")
    public static let rolePermissions = Endpoint(id: .rolePermissions, group: .account, method: .get, path: "/api/yf-handset-app/role-permission", parameters: [], summary: "roles with scenic areas and permissions")
    public static let realNameInfo = Endpoint(id: .realNameInfo, group: .account, method: .get, path: "/api/yf-handset-app/photog/real-name/info", parameters: [], summary: "real-name verification")
    public static let bankCardInfo = Endpoint(id: .bankCardInfo, group: .account, method: .get, path: "/api/yf-handset-app/photog/wallet/bank-card/info", parameters: [], summary: "bound bank card")

    // Commerce
    public static let storeList = Endpoint(id: .storeList, group: .commerce, method: .get, path: "/api/app/store/all", parameters: [], summary: "all stores")
    public static let photographerOrders = Endpoint(id: .photographerOrders, group: .commerce, method: .get, path: "/api/yf-handset-app/photog/order/listv2", parameters: paging, summary: "photographer orders")
    public static let scenicAdminOrders = Endpoint(id: .scenicAdminOrders, group: .commerce, method: .get, path: "/api/app/scenic-admin/order/list", parameters: paging + [q("scenicId")], summary: "scenic-area orders")
    public static let storeOrders = Endpoint(id: .storeOrders, group: .commerce, method: .get, path: "/api/app/store/order/list", parameters: paging + [q("storeId")], summary: "store deposit orders")

    // Operation
    public static let photographerSummary = Endpoint(id: .photographerSummary, group: .operation, method: .get, path: "/api/yf-handset-app/photog/analyse/user", parameters: range, summary: "photographer statistics")
    public static let photographerDaily = Endpoint(id: .photographerDaily, group: .operation, method: .get, path: "/api/yf-handset-app/photog/analyse/user/daily", parameters: rangePaged, summary: "photographer statistics by day")
    public static let scenicAdminSummary = Endpoint(id: .scenicAdminSummary, group: .operation, method: .get, path: "/api/app/scenic-admin/analyse", parameters: range + [q("scenicId")], summary: "scenic-area statistics")
    public static let scenicAdminDaily = Endpoint(id: .scenicAdminDaily, group: .operation, method: .get, path: "/api/app/scenic-admin/analyse/daily", parameters: range + [q("scenicId"), q("page"), q("pageSize")], summary: "scenic-area statistics by day")
    public static let storeSummary = Endpoint(id: .storeSummary, group: .operation, method: .get, path: "/api/app/store/analyse", parameters: range + [q("storeId")], summary: "store statistics")
    public static let storeDaily = Endpoint(id: .storeDaily, group: .operation, method: .get, path: "/api/app/store/analyse/daily", parameters: range + [q("storeId"), q("page"), q("pageSize")], summary: "store statistics by day")
    /// The path's spelling `loacation` is the real backend's and must be kept.
    public static let locationDetail = Endpoint(id: .locationDetail, group: .operation, method: .get, path: "/api/yf-handset-app/photog/loacation/detail", parameters: [q("staff_id")], summary: "last location report of a staff member")

    /// Every endpoint, in CONTRACT §3 order (for completion of `get`/`post` paths, `help` and the
    /// sandbox's router): the one list of endpoints.
    public static let all: [Endpoint] = ID.allCases.map(endpoint)

    /// The declaration of one endpoint.
    public static func endpoint(_ id: ID) -> Endpoint {
        switch id {
        case .config: return config
        case .login: return login
        case .setUser: return setUser
        case .userInfo: return userInfo
        case .rolePermissions: return rolePermissions
        case .realNameInfo: return realNameInfo
        case .bankCardInfo: return bankCardInfo
        case .storeList: return storeList
        case .photographerOrders: return photographerOrders
        case .scenicAdminOrders: return scenicAdminOrders
        case .storeOrders: return storeOrders
        case .photographerSummary: return photographerSummary
        case .photographerDaily: return photographerDaily
        case .scenicAdminSummary: return scenicAdminSummary
        case .scenicAdminDaily: return scenicAdminDaily
        case .storeSummary: return storeSummary
        case .storeDaily: return storeDaily
        case .locationDetail: return locationDetail
        }
    }

    /// The endpoint with this exact path (and method, when given).
    public static func find(path: String, method: Method? = nil) -> Endpoint? {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return all.first { $0.path == bare && (method == nil || $0.method == method) }
    }
}
