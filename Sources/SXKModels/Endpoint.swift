import SXKCore

/// One backend endpoint: what the `get`/`post` commands complete, the groups call and the sandbox routes.
/// Every endpoint is declared once, as a member of `EndpointCatalog`; `Endpoint.all` lists them.
@dynamicMemberLookup
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    public var method: Method
    public var path: String
    public var parameters: [Parameter]
    public var summary: String
    /// Sent without the session's token: the app makes the call from the login page (seed 000 §3.2,
    /// §3.3), which it shows only when no token is stored (§1), and its client sends the header only
    /// with one (§2). A refusal of it is then no session's end (sxk's reading: docs/app-behaviour.md#login).
    public var sessionless: Bool
    /// What it answers is kept in the profile's files (accounts, the snapshot, the store list).
    public var kept: Bool

    public init(_ method: Method, _ path: String, _ parameters: [Parameter] = [], summary: String, sessionless: Bool = false, kept: Bool = false) {
        self.method = method; self.path = path; self.parameters = parameters; self.summary = summary
        self.sessionless = sessionless; self.kept = kept
    }

    public var description: String { "\(method.rawValue) \(path)" }

    // An endpoint is its method and path (what the sandbox routes by).
    public static func == (a: Endpoint, b: Endpoint) -> Bool { a.method == b.method && a.path == b.path }
    public func hash(into hasher: inout Hasher) { hasher.combine(method.rawValue); hasher.combine(path) }

    /// The parameter that selects the role's scope (`scenicId`, `storeId`), if any.
    public var scopeParameter: Parameter? { parameters.first(where: \.isScope) }
}

// MARK: - Parameters

extension Endpoint {
    /// A parameter an endpoint takes; its wire name is spelled only here, so a call names it as `.startDate`.
    public struct Parameter: Sendable, Hashable, CustomStringConvertible {
        public enum Location: String, Sendable { case query, body, header }

        public let name: String
        public let location: Location
        /// Whether the value selects the role's scope (a scenic area, a store): the server checks it against the account.
        public let isScope: Bool
        /// Whether the endpoint needs it (an optional one that is nil or empty is not sent).
        public private(set) var required = true

        public init(_ name: String, _ location: Location = .query, isScope: Bool = false) {
            self.name = name; self.location = location; self.isScope = isScope
        }

        /// The same parameter, not required.
        public var optional: Parameter { var copy = self; copy.required = false; return copy }

        public var description: String { name }

        // A parameter is its name and place; `required` belongs to the endpoint that lists it.
        public static func == (a: Parameter, b: Parameter) -> Bool { a.name == b.name && a.location == b.location }
        public func hash(into hasher: inout Hasher) { hasher.combine(name); hasher.combine(location.rawValue) }

        public static let page = Parameter("page")
        public static let pageSize = Parameter("pageSize")
        public static let status = Parameter("status")
        public static let keyword = Parameter("keyword")
        public static let startDate = Parameter("startDate")
        public static let endDate = Parameter("endDate")
        public static let scenicId = Parameter("scenicId", isScope: true)
        public static let storeId = Parameter("storeId", isScope: true)
        public static let staffId = Parameter("staff_id")
        public static let username = Parameter("username", .body)
        public static let password = Parameter("password", .body)
        public static let userId = Parameter("userId", .body)
        public static let accountType = Parameter("accountType", .body)
        /// The temporary token `set-user` is sent with, in place of the session's.
        public static let token = Parameter("token", .header)
    }

    /// A call's values by parameter; nil is "not given".
    public typealias Arguments = [Parameter: (any EndpointArgument)?]

    /// What a call with `arguments` sends: the query in declared order, the JSON body of a POST and
    /// the header token. A parameter the endpoint does not declare, or a required one missing, is a
    /// programming error of the caller.
    public func wire(_ arguments: Arguments) -> (query: [(String, String)], body: JSONValue?, token: String?) {
        for parameter in arguments.keys {
            precondition(parameters.contains(parameter), "\(self) takes no parameter '\(parameter)'")
        }
        var query: [(String, String)] = []
        var body = JSONObject()
        var token: String?
        for parameter in parameters {
            guard let given = arguments[parameter], let value = given, parameter.required || !value.wireText.isEmpty else {
                precondition(!parameter.required, "\(self) needs '\(parameter)'")
                continue
            }
            switch parameter.location {
            case .query: query.append((parameter.name, value.wireText))
            case .body: body[parameter.name] = value.jsonValue
            case .header: token = value.wireText
            }
        }
        return (query, method == .post ? .object(body) : nil, token)
    }

    /// The path and query a call with `arguments` sends, as replays show it (values as given).
    public func shownPath(_ arguments: Arguments) -> String {
        let query = wire(arguments).query
        return query.isEmpty ? path : path + "?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }
}

/// A value a typed call passes for a parameter.
public protocol EndpointArgument: Sendable {
    /// As a query value or header.
    var wireText: String { get }
    /// As a JSON body member.
    var jsonValue: JSONValue { get }
}

extension Int: EndpointArgument {
    public var wireText: String { String(self) }
    public var jsonValue: JSONValue { .int(self) }
}

extension String: EndpointArgument {
    public var wireText: String { self }
    public var jsonValue: JSONValue { .string(self) }
}

// MARK: - Typed declarations

/// An endpoint with the model its `data` is read into: what the typed client calls.
public struct TypedEndpoint<Value: Sendable>: Sendable {
    public let endpoint: Endpoint
    public let decode: @Sendable (JSONValue) throws(FieldError) -> Value

    public init(_ method: Endpoint.Method, _ path: String, _ parameters: [Endpoint.Parameter] = [],
                summary: String, sessionless: Bool = false, kept: Bool = false, decode: @escaping @Sendable (JSONValue) throws(FieldError) -> Value) {
        endpoint = Endpoint(method, path, parameters, summary: summary, sessionless: sessionless, kept: kept)
        self.decode = decode
    }

    public var path: String { endpoint.path }
    public var method: Endpoint.Method { endpoint.method }
}

/// Any typed endpoint, for code that walks every one (a generic function given one recovers its `Value`).
public protocol AnyTypedEndpoint: Sendable {
    associatedtype Value: Sendable
    var endpoint: Endpoint { get }
    var typed: TypedEndpoint<Value> { get }
}

extension TypedEndpoint: AnyTypedEndpoint {
    public var typed: TypedEndpoint<Value> { self }
}

private typealias P = Endpoint.Parameter

/// Every backend endpoint, one member each, in the backend's documented order. A new endpoint is one
/// member here (its model beside the others, its handler in the sandbox); `Endpoint.all`, the typed
/// client, completion and the sandbox's routing follow from it.
public struct EndpointCatalog: Sendable {
    // Account (`AccountAPI`)
    public let config = TypedEndpoint(.get, "/api/app/config",
        summary: "app configuration (enableRegister)", sessionless: true, decode: { v in AppConfig(json: v) })
    public let login = TypedEndpoint(.post, "/api/app/v9/login", [P.username, P.password],
        summary: "password login: temporary token and accounts", sessionless: true, kept: true, decode: LoginResult.init(json:))
    public let setUser = TypedEndpoint(.post, "/api/app/v9/set-user", [P.userId, P.accountType, P.token],
        summary: "choose an account: formal token", kept: true, decode: SetUserResult.init(json:))
    public let userInfo = TypedEndpoint(.get, "/api/yf-handset-app/userinfo", [P.token.optional],
        summary: "profile of the current account", kept: true, decode: UserInfo.init(json:))
    public let rolePermissions = TypedEndpoint(.get, "/api/yf-handset-app/role-permission", [P.token.optional],
        summary: "roles with scenic areas and permissions", kept: true, decode: RolePermission.list(json:))
    public let realNameInfo = TypedEndpoint(.get, "/api/yf-handset-app/photog/real-name/info",
        summary: "real-name verification", decode: RealNameInfo.init(json:))
    public let bankCardInfo = TypedEndpoint(.get, "/api/yf-handset-app/photog/wallet/bank-card/info",
        summary: "bound bank card", decode: BankCardInfo.init(json:))

    // Commerce (`CommerceAPI`)
    public let storeList = TypedEndpoint(.get, "/api/app/store/all", [P.token.optional],
        summary: "all stores", kept: true, decode: Store.list(json:))
    public let photographerOrders = TypedEndpoint(.get, "/api/yf-handset-app/photog/order/listv2", EndpointCatalog.paging,
        summary: "photographer orders", decode: EndpointCatalog.orders)
    public let scenicAdminOrders = TypedEndpoint(.get, "/api/app/scenic-admin/order/list", EndpointCatalog.paging + [P.scenicId],
        summary: "scenic-area orders", decode: EndpointCatalog.orders)
    public let storeOrders = TypedEndpoint(.get, "/api/app/store/order/list", EndpointCatalog.paging + [P.storeId],
        summary: "store deposit orders", decode: EndpointCatalog.orders)

    // Operation (`OperationAPI`)
    public let photographerSummary = TypedEndpoint(.get, "/api/yf-handset-app/photog/analyse/user", EndpointCatalog.range,
        summary: "photographer statistics", decode: Summary.init(json:))
    public let photographerDaily = TypedEndpoint(.get, "/api/yf-handset-app/photog/analyse/user/daily", EndpointCatalog.range + [P.page, P.pageSize],
        summary: "photographer statistics by day", decode: EndpointCatalog.days)
    public let scenicAdminSummary = TypedEndpoint(.get, "/api/app/scenic-admin/analyse", EndpointCatalog.range + [P.scenicId],
        summary: "scenic-area statistics", decode: Summary.init(json:))
    public let scenicAdminDaily = TypedEndpoint(.get, "/api/app/scenic-admin/analyse/daily", EndpointCatalog.range + [P.scenicId, P.page, P.pageSize],
        summary: "scenic-area statistics by day", decode: EndpointCatalog.days)
    public let storeSummary = TypedEndpoint(.get, "/api/app/store/analyse", EndpointCatalog.range + [P.storeId],
        summary: "store statistics", decode: Summary.init(json:))
    public let storeDaily = TypedEndpoint(.get, "/api/app/store/analyse/daily", EndpointCatalog.range + [P.storeId, P.page, P.pageSize],
        summary: "store statistics by day", decode: EndpointCatalog.days)
    /// The path's spelling `loacation` is the real backend's and must be kept.
    public let locationDetail = TypedEndpoint(.get, "/api/yf-handset-app/photog/loacation/detail", [P.staffId],
        summary: "last location report of a staff member", decode: LocationDetail.init(json:))

    static let paging = [P.page, P.pageSize, P.status.optional, P.keyword.optional]
    static let range = [P.startDate, P.endDate]
    @Sendable static func orders(_ json: JSONValue) throws(FieldError) -> Page<Order> { try Page(json: json, item: Order.init(json:)) }
    @Sendable static func days(_ json: JSONValue) throws(FieldError) -> Page<Daily> { try Page(json: json, item: Daily.init(json:)) }
}

extension Endpoint {
    /// The catalog's one instance (`Endpoint.storeList` reads its member).
    public static let catalog = EndpointCatalog()

    // Inlinable, so a caller's optimiser reads the member directly: otherwise each call site makes its
    // key path object at run time the first time it runs.
    @inlinable
    public static subscript<Value>(dynamicMember member: KeyPath<EndpointCatalog, TypedEndpoint<Value>>) -> TypedEndpoint<Value> {
        catalog[keyPath: member]
    }

    /// Every declared endpoint, typed, with its catalog name, in declaration order. Read from the catalog's
    /// members (a struct's stored properties reflect in declaration order), so no list is kept by hand.
    public static let typed: [(name: String, declaration: any AnyTypedEndpoint)] = Mirror(reflecting: catalog).children.compactMap { child in
        guard let label = child.label, let declared = child.value as? any AnyTypedEndpoint else { return nil }
        return (label, declared)
    }

    /// Every endpoint, in declaration order (for completion of `get`/`post` paths, `help` and the sandbox's router).
    public static let all: [Endpoint] = typed.map { $0.declaration.endpoint }
}
