import SXKCore

// Typed views of the backend's payloads. Each is read tolerantly from a `JSONValue`
// (camelCase or snake_case, numbers or numeric strings) and keeps the object it came from in
// `raw`, so `--json` shows fields the model does not know.

/// Account kinds: `scenic` for a V9ScenicUser, `store` for a V9StoreUser; others are kept as sent.
public enum AccountType {
    public static let scenic = "scenic"
    public static let store = "store"
}

/// The order statuses of the order lists' `status` parameter and member: code, the label the app
/// shows (the lists' `statusText`), and the English name `--status` also takes. Read by the client's
/// `--status`, completion and the sandbox.
public enum OrderStatusCodes {
    public static let all: [(code: Int, label: String, name: String)] = [
        (1, "待支付", "unpaid"), (2, "已支付", "paid"), (3, "已完成", "completed"), (4, "已退款", "refunded"),
    ]

    public static func label(_ code: Int) -> String? { all.first { $0.code == code }?.label }
}

/// Role codes the app switches on (seed 000 §5); others may arrive and are shown as sent.
public enum RoleCode {
    public static let photographer = "photographer"
    public static let scenicAdmin = "scenicAdmin"
    public static let storeAdmin = "storeAdmin"
    public static let known = [photographer, scenicAdmin, storeAdmin]
}

/// One account of a login (`accounts` of v9/login, `user` of v9/set-user).
public struct Account: Sendable, Equatable {
    public var userId: Int
    public var accountType: String
    public var accountDisplayName: String
    public var userName: String
    public var realName: String?
    public var avatar: String?
    public var phone: String
    public var roleCode: String
    public var roleName: String
    public var scenicId: Int?
    public var scenicName: String?
    public var storeId: Int?

    public init(
        userId: Int, accountType: String, accountDisplayName: String, userName: String, realName: String? = nil,
        avatar: String? = nil, phone: String, roleCode: String, roleName: String, scenicId: Int? = nil,
        scenicName: String? = nil, storeId: Int? = nil
    ) {
        self.userId = userId; self.accountType = accountType; self.accountDisplayName = accountDisplayName
        self.userName = userName; self.realName = realName; self.avatar = avatar; self.phone = phone
        self.roleCode = roleCode; self.roleName = roleName; self.scenicId = scenicId
        self.scenicName = scenicName; self.storeId = storeId
    }

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("account")
        userId = try o.requireInt("userId")
        // No default: a missing type would give every scoped key the wrong prefix (docs/app-behaviour.md#storage).
        accountType = try o.requireString("accountType")
        userName = o.string("userName") ?? ""
        accountDisplayName = o.string("accountDisplayName") ?? userName
        realName = o.string("realName")
        avatar = o.string("avatar")
        phone = o.string("phone") ?? ""
        roleCode = o.string("roleCode") ?? ""
        roleName = o.string("roleName") ?? ""
        scenicId = o.int("scenicId")
        scenicName = o.string("scenicName")
        storeId = o.int("storeId")
    }

    /// The canonical camelCase form, used for snapshots and `--json` of local state.
    public var json: JSONValue {
        var o: JSONObject = [
            "userId": .int(userId), "accountType": .string(accountType),
            "accountDisplayName": .string(accountDisplayName), "userName": .string(userName),
        ]
        if let realName { o["realName"] = .string(realName) }
        if let avatar { o["avatar"] = .string(avatar) }
        o["phone"] = .string(phone)
        o["roleCode"] = .string(roleCode)
        o["roleName"] = .string(roleName)
        if let scenicId { o["scenicId"] = .int(scenicId) }
        if let scenicName { o["scenicName"] = .string(scenicName) }
        if let storeId { o["storeId"] = .int(storeId) }
        return .object(o)
    }
}

/// `v9/login` data: the temporary token and the accounts to choose from.
public struct LoginResult: Sendable {
    public var tempToken: String
    public var accounts: [Account]

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("data")
        tempToken = try o.requireToken("token")
        accounts = try o.requireArray("accounts").decodeEach("accounts") { v throws(FieldError) in try Account(json: v) }
    }
}

/// `v9/set-user` data: the formal token and the chosen account.
public struct SetUserResult: Sendable {
    public var token: String
    public var user: Account

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("data")
        token = try o.requireToken("token")
        guard let user = o.field("user") else { throw FieldError(field: "user", reason: "is missing") }
        self.user = try Account(json: user)
    }
}

/// `app/config`: only `enableRegister` is used by the app (seed 000 §3.2).
public struct AppConfig: Sendable {
    public var enableRegister: Bool?
    public var raw: JSONValue
    public init(json: JSONValue) {
        raw = json
        enableRegister = json.objectValue?.bool("enableRegister")
    }
}

/// `userinfo`: display fields written back into the account context (seed 000 §5.3).
public struct UserInfo: Sendable, Equatable {
    public var userId: Int?
    public var userName: String?
    public var realName: String?
    public var avatar: String?
    public var phone: String?
    public var roleName: String?

    public init(userId: Int? = nil, userName: String? = nil, realName: String? = nil, avatar: String? = nil, phone: String? = nil, roleName: String? = nil) {
        self.userId = userId; self.userName = userName; self.realName = realName
        self.avatar = avatar; self.phone = phone; self.roleName = roleName
    }

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("data")
        userId = o.int("userId")
        userName = o.string("userName")
        realName = o.string("realName")
        avatar = o.string("avatar")
        phone = o.string("phone")
        roleName = o.string("roleName")
    }
}

public struct ScenicRef: Sendable, Equatable {
    public var scenicId: Int
    public var scenicName: String
    public init(scenicId: Int, scenicName: String) { self.scenicId = scenicId; self.scenicName = scenicName }
    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("scenic")
        scenicId = try o.requireInt("scenicId")
        scenicName = o.string("scenicName") ?? ""
    }
    public var json: JSONValue { ["scenicId": .int(scenicId), "scenicName": .string(scenicName)] }
}

public struct PermissionItem: Sendable, Equatable {
    public var uri: String
    public var name: String
    public var group: String?
    public init(uri: String, name: String, group: String? = nil) { self.uri = uri; self.name = name; self.group = group }
    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("permission")
        uri = try o.requireString("uri")
        name = o.string("name") ?? uri
        group = o.string("group")
    }
    public var json: JSONValue {
        var o: JSONObject = ["uri": .string(uri), "name": .string(name)]
        if let group { o["group"] = .string(group) }
        return .object(o)
    }
}

/// One role of `role-permission`, with its scenic areas and permissions.
public struct RolePermission: Sendable, Equatable {
    public var roleCode: String
    public var roleName: String
    public var scenicList: [ScenicRef]
    public var permissions: [PermissionItem]

    public init(roleCode: String, roleName: String, scenicList: [ScenicRef], permissions: [PermissionItem]) {
        self.roleCode = roleCode; self.roleName = roleName; self.scenicList = scenicList; self.permissions = permissions
    }

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("role")
        roleCode = try o.requireString("roleCode")
        // An entry without a name has none: the code is not a name, and the permission load writes a
        // role name only when the entry gives one.
        roleName = o.string("roleName") ?? ""
        scenicList = try o.arrayOrAbsent("scenicList").decodeEach("scenicList") { v throws(FieldError) in try ScenicRef(json: v) }
        permissions = try o.arrayOrAbsent("permissions").decodeEach("permissions") { v throws(FieldError) in try PermissionItem(json: v) }
    }

    /// `"data": null` is an empty list (how a Java backend writes one), as `"list": null` is in a page.
    public static func list(json: JSONValue) throws(FieldError) -> [RolePermission] {
        if json == .null { return [] }
        return try json.requireArray("data").decodeEach("data") { v throws(FieldError) in try RolePermission(json: v) }
    }

    public var json: JSONValue {
        var o: JSONObject = ["roleCode": .string(roleCode), "scenicList": .array(scenicList.map(\.json)),
                             "permissions": .array(permissions.map(\.json))]
        if !roleName.isEmpty { o["roleName"] = .string(roleName) }
        return .object(o)
    }
}

public struct Store: Sendable, Equatable {
    public var storeId: Int
    public var storeName: String
    public var scenicId: Int?
    public var address: String?
    public init(storeId: Int, storeName: String, scenicId: Int?, address: String? = nil) {
        self.storeId = storeId; self.storeName = storeName; self.scenicId = scenicId; self.address = address
    }
    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("store")
        storeId = try o.requireInt("storeId")
        storeName = o.string("storeName") ?? ""
        scenicId = o.int("scenicId")
        address = o.string("address")
    }
    /// `"data": null` is no stores, as for the role list.
    public static func list(json: JSONValue) throws(FieldError) -> [Store] {
        if json == .null { return [] }
        return try json.requireArray("data").decodeEach("data") { v throws(FieldError) in try Store(json: v) }
    }
}

/// One order row; store (deposit) orders add `depositAmount` and `writeOffStatus`.
public struct Order: Sendable {
    public var orderId: Int
    public var orderNo: String
    public var status: Int?
    public var statusText: String?
    public var amount: Double?
    public var createTime: String?
    public var customerPhone: String?
    public var scenicName: String?
    public var storeName: String?
    public var photographerName: String?
    public var depositAmount: Double?
    public var writeOffStatus: Int?
    /// The row exactly as received.
    public var raw: JSONValue

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("order")
        orderId = try o.requireInt("orderId")
        orderNo = o.string("orderNo") ?? String(orderId)
        status = o.int("status")
        statusText = o.string("statusText")
        amount = o.double("amount")
        createTime = o.string("createTime")
        customerPhone = o.string("customerPhone")
        scenicName = o.string("scenicName")
        storeName = o.string("storeName")
        photographerName = o.string("photographerName")
        depositAmount = o.double("depositAmount")
        writeOffStatus = o.int("writeOffStatus")
        raw = json
    }
}

/// The contract's page rule, for every reader of a page (the models, `orders --all`, `get --paginate`): the last
/// page is the one where `page * pageSize >= total` or `list` is empty. The numbers come from the server, so
/// nothing here can overflow. An answer without a usable total ends at an empty list, or at a list shorter
/// than the answer's own page size (**inferred**: the contract names only the total and the empty list).
public enum PageRule {
    /// The page's rows. `"list": null` is an empty page (how a Java backend writes an empty result),
    /// so the last one; a page without a list, or with something else there, is an error naming it.
    public static func list(_ o: JSONObject) throws(FieldError) -> [JSONValue] {
        if let member = o.member("list"), case .null = member.value { return [] }
        return try o.requireArray("list")
    }

    /// The server's total as the walk can use it: nil when absent, not a whole number (`1e20` is past any
    /// `Int` the reader keeps) or negative.
    public static func total(_ o: JSONObject) -> Int? { o.int("total").flatMap { $0 >= 0 ? $0 : nil } }

    /// The answer's page size (`pageSize` / `page_size`), or the list's length when it gives none or one under 1.
    public static func pageSize(_ o: JSONObject, listCount: Int) -> Int { o.int("pageSize").flatMap { $0 > 0 ? $0 : nil } ?? max(listCount, 1) }

    /// True for the last page. A `page * pageSize` past `Int.max` is past any total.
    public static func isLast(count: Int, page: Int, pageSize: Int, total: Int?) -> Bool {
        if count == 0 { return true }
        guard let total else { return count < pageSize }
        guard pageSize > 0 else { return false }
        let (reached, overflow) = page.multipliedReportingOverflow(by: pageSize)
        return overflow || reached >= total
    }

    /// Pages needed for `rows` rows of `pageSize` (> 0), rounded up without overflowing; 0 for no rows.
    public static func pages(rows: Int, pageSize: Int) -> Int {
        guard rows > 0, pageSize > 0 else { return 0 }
        return rows / pageSize + (rows % pageSize == 0 ? 0 : 1)
    }
}

/// `Page<T>`: one page of a list, read by `PageRule`.
public struct Page<Item: Sendable>: Sendable {
    public var list: [Item]
    /// nil when the answer gives no usable total (`PageRule.total`).
    public var total: Int?
    /// The answer's own page number; without one, 1 until `asked(_:)` names the page requested.
    public var page: Int
    /// Always 1 or more: the answer's own, else the list's length.
    public var pageSize: Int
    /// The `data` object as received.
    public var raw: JSONValue
    /// Whether the answer named its page (the field is optional, CONTRACT §1).
    public var pageInAnswer: Bool
    /// The page that was asked for (`asked(_:pageSize:)`), nil until then.
    public var askedPage: Int?
    /// Whether the answer gave a page size of 1 or more.
    public var pageSizeInAnswer: Bool

    public init(list: [Item], total: Int?, page: Int, pageSize: Int, raw: JSONValue) {
        self.list = list; self.total = total; self.page = page; self.pageSize = pageSize; self.raw = raw
        pageInAnswer = true
        pageSizeInAnswer = true
    }

    /// An answer without a page number is the page that was asked for: its place in the list
    /// (the footer) is that page's, not page 1's. The last-page rule always counts from the page asked
    /// for.
    public mutating func asked(_ requested: Int, pageSize requestedSize: Int? = nil) {
        askedPage = requested
        askedPageSize = requestedSize
        if !pageInAnswer { page = requested }
    }

    /// The page size that was asked for, nil until `asked(_:pageSize:)` names it.
    public var askedPageSize: Int?

    /// The answer names a page other than the one asked for: the server does not page this list as asked.
    public var namesAnotherPage: Bool { pageInAnswer && askedPage.map { $0 != page } ?? false }

    public init(json: JSONValue, item: (JSONValue) throws(FieldError) -> Item) throws(FieldError) {
        // `"data": null` is an empty page, as `"list": null` is (`PageRule.list`).
        if json == .null {
            list = []; total = nil; page = 1; pageInAnswer = false; pageSize = 1; pageSizeInAnswer = false; raw = json
            return
        }
        let o = try json.requireObject("data")
        let items = try PageRule.list(o)
        list = try items.decodeEach("list") { v throws(FieldError) in try item(v) }
        total = PageRule.total(o)
        let answered = o.int("page")
        page = answered ?? 1
        pageInAnswer = answered != nil
        pageSize = PageRule.pageSize(o, listCount: items.count)
        pageSizeInAnswer = o.int("pageSize").map { $0 > 0 } ?? false
        raw = json
    }

    public var isLast: Bool { PageRule.isLast(count: list.count, page: askedPage ?? page, pageSize: pageSize, total: total) }
    /// The pages the total makes (at least 1); nil without a total, and for a page shorter than the
    /// size asked whose answer gives no page size (a last page, or a server serving fewer rows: its
    /// length is not the list's page size, and the size asked may not be either).
    public var pageCount: Int? {
        if !pageSizeInAnswer, let asked = askedPageSize, list.count < asked {
            // Unless the first page holds the whole total: one page.
            guard let total, (askedPage ?? page) == 1, list.count >= total else { return nil }
            return 1
        }
        return total.map { max(1, PageRule.pages(rows: $0, pageSize: pageSize)) }
    }
}

/// Statistics summary for a date range.
/// Counts and amounts are nil when the answer has none, or none that reads as a number (the
/// member as received is in `raw`): a view shows that, never a 0 the server did not send.
public struct Summary: Sendable, Equatable {
    public var orderCount: Int?
    public var orderAmount: Double?
    public var refundCount: Int?
    public var refundAmount: Double?
    public var startDate: String?
    public var endDate: String?
    public var raw: JSONValue

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("data")
        orderCount = o.int("orderCount")
        orderAmount = o.double("orderAmount")
        refundCount = o.int("refundCount")
        refundAmount = o.double("refundAmount")
        startDate = o.string("startDate")
        endDate = o.string("endDate")
        raw = json
    }
}

/// One day of statistics.
/// As `Summary`: nil where the row has no readable number.
public struct Daily: Sendable, Equatable {
    public var date: String
    public var orderCount: Int?
    public var orderAmount: Double?
    public var refundAmount: Double?
    public var raw: JSONValue

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("daily")
        date = try o.requireString("date")
        orderCount = o.int("orderCount")
        orderAmount = o.double("orderAmount")
        refundAmount = o.double("refundAmount")
        raw = json
    }
}

/// `photog/loacation/detail`: used only to decide the location-timeout dialog (seed 000 §4.4).
/// `online` is nil when the answer has no readable one: unknown, not offline.
public struct LocationDetail: Sendable, Equatable {
    public var staffId: Int?
    public var online: Bool?
    public var lastReportTime: String?
    public var latitude: Double?
    public var longitude: Double?
    public var raw: JSONValue

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("data")
        staffId = o.int("staffId")
        online = o.bool("online")
        lastReportTime = o.string("lastReportTime")
        latitude = o.double("latitude")
        longitude = o.double("longitude")
        raw = json
    }
}

/// Real-name verification of a photographer: 0 unverified, 1 pending, 2 verified.
/// `status` and `bound` are nil when the answer has none that reads (a view says so; it never
/// makes one up: no status is not "unverified", no `bound` is not "not bound").
public struct RealNameInfo: Sendable, Equatable {
    public var status: Int?
    public var realName: String?
    public var idCardNo: String?
    public var raw: JSONValue

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("data")
        status = o.int("status")
        realName = o.string("realName")
        idCardNo = o.string("idCardNo")
        raw = json
    }

    public var statusText: String {
        switch status {
        case 0?: return "unverified"
        case 1?: return "pending"
        case 2?: return "verified"
        case let other?: return "status \(other)"
        case nil:
            let sent = (raw.objectValue?.field("status")?.stringValue).map { " (status \($0))" } ?? ""
            return "unknown: the answer has no readable status\(sent)"
        }
    }
}

public struct BankCardInfo: Sendable, Equatable {
    public var bound: Bool?
    public var bankName: String?
    public var cardNo: String?
    public var holderName: String?
    public var raw: JSONValue

    public init(json: JSONValue) throws(FieldError) {
        let o = try json.requireObject("data")
        bound = o.bool("bound")
        bankName = o.string("bankName")
        cardNo = o.string("cardNo")
        holderName = o.string("holderName")
        raw = json
    }
}

extension JSONObject {
    /// A token the server issues: text sxk can send back in a header and keep in a file (printable
    /// ASCII, no space, 1–8,192 bytes). Anything else is refused where it is read, before any request
    /// could carry it, as a field the answer lacks would be.
    func requireToken(_ name: String) throws(FieldError) -> String {
        let token = try requireString(name)
        let bytes = Array(token.utf8)
        if bytes.isEmpty { throw FieldError(field: name, reason: "is empty") }
        guard bytes.count <= Self.longestToken, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw FieldError(field: name, reason: "is not a token sxk can send: longer than \(Self.longestToken) bytes, or with spaces, control or non-ASCII characters")
        }
        return token
    }

    /// The longest token sent or kept (`TokenStore.maxLength` keeps the file to it too).
    public static let longestToken = 8192
}

