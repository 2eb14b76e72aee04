import FoundationEssentials
import SXKCore
import SXKModels

/// Account group: config, login, set-user, user info, roles, real name, bank card, stores, location.
extension SandboxAPI {
    static let accountRoutes = [
        route(Endpoint.config) { api, request throws(APIFailure) in try api.appConfig(request) },
        route(Endpoint.login) { api, request throws(APIFailure) in try api.login(request) },
        route(Endpoint.setUser) { api, request throws(APIFailure) in try api.setUser(request) },
        route(Endpoint.userInfo) { api, request throws(APIFailure) in try api.userInfo(request) },
        route(Endpoint.rolePermissions) { api, request throws(APIFailure) in try api.rolePermission(request) },
        route(Endpoint.realNameInfo) { api, request throws(APIFailure) in try api.realNameInfo(request) },
        route(Endpoint.bankCardInfo) { api, request throws(APIFailure) in try api.bankCardInfo(request) },
        route(Endpoint.storeList) { api, request throws(APIFailure) in try api.storeAll(request) },
        route(Endpoint.locationDetail) { api, request throws(APIFailure) in try api.locationDetail(request) },
    ]

    func appConfig(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        [
            "enableRegister": false,
            "latestVersion": "3.2.0",
            "minVersion": "2.0.0",
            "customerServicePhone": "400-800-1234",
            "privacyPolicyUrl": "https://static.sandbox.local/privacy.html",
        ]
    }

    func accountJSON(_ account: SandboxAccount) -> JSONValue {
        var object: JSONObject = [
            "userId": .int(account.userId),
            "accountType": .string(account.accountType),
            "accountDisplayName": .string(SandboxDirectory.displayName(account)),
            "userName": .string(account.userName),
            "realName": .string(account.realName),
            "avatar": .string(account.avatar),
            "phone": .string(account.phone),
            "roleCode": .string(account.roleCode),
            "roleName": .string(account.roleName),
            "scenicId": .int(account.scenicId),
            "scenicName": .string(SandboxDirectory.scenic(account.scenicId)?.name ?? ""),
        ]
        if let storeId = account.storeIds.first {
            object["storeId"] = .int(storeId)
            object["storeName"] = .string(SandboxDirectory.store(storeId)?.name ?? "")
        }
        return .object(object)
    }

    func login(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        let body = try jsonBody(request)
        guard let phone = (body.string("username") ?? body.string("phone")), !phone.isEmpty else { throw .missing("username") }
        guard let password = body.string("password"), !password.isEmpty else { throw .missing("password") }
        let accounts = SandboxDirectory.accounts(phone: phone)
        guard !accounts.isEmpty, password == SandboxDirectory.password else {
            throw APIFailure(code: SandboxCode.badCredentials, msg: "账号或密码错误")
        }
        return ["token": .string(tokens.issueTemporary(phone: phone)), "accounts": .array(accounts.map(accountJSON))]
    }

    func setUser(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        guard let token = request.header("token"), !token.isEmpty else { throw .expired }
        let phone: String
        if let temporary = tokens.temporaryPhone(token) {
            phone = temporary
        } else if let userId = tokens.formalUser(token), let account = SandboxDirectory.account(userId) {
            phone = account.phone
        } else {
            throw .expired
        }
        let body = try jsonBody(request)
        guard let userIdValue = body.field("userId") else { throw .missing("userId") }
        guard let userId = userIdValue.intValue else { throw .invalid("userId") }
        guard let account = SandboxDirectory.accounts(phone: phone).first(where: { $0.userId == userId }) else {
            throw APIFailure(code: SandboxCode.forbidden, msg: "账号不属于当前登录用户: \(userId)")
        }
        if let type = body.string("accountType"), !type.isEmpty, type != account.accountType {
            throw .invalid("accountType", "与账号不匹配")
        }
        return ["token": .string(tokens.issueFormal(userId: userId)), "user": accountJSON(account)]
    }

    func userInfo(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        let account = try formalAccount(request)
        return [
            "userId": .int(account.userId),
            "userName": .string(account.userName),
            "realName": .string(account.realName),
            "avatar": .string(account.avatar),
            "phone": .string(account.phone),
            "roleName": .string(account.roleName),
            "roleCode": .string(account.roleCode),
            "accountType": .string(account.accountType),
        ]
    }

    func rolePermission(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        let account = try formalAccount(request)
        return .array(roleOverrides.roles(for: account).map { role in
            [
                "roleCode": .string(role.roleCode),
                "roleName": .string(role.roleName),
                "scenicList": .array(role.scenicIds.map { id in
                    ["scenicId": .int(id), "scenicName": .string(SandboxDirectory.scenic(id)?.name ?? "")]
                }),
                "permissions": .array(SandboxCatalog.permissions(forRole: role.roleCode).map { permission in
                    ["uri": .string(permission.uri), "name": .string(permission.name), "group": .string(permission.group)]
                }),
            ]
        })
    }

    func realNameInfo(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        let account = try formalAccount(request)
        _ = try requireRole(account, "photographer")
        let texts = [0: "未认证", 1: "审核中", 2: "已认证"]
        var object: JSONObject = ["status": .int(account.realNameStatus), "statusText": .string(texts[account.realNameStatus] ?? "")]
        if account.realNameStatus > 0 {
            object["realName"] = .string(account.realName)
            object["idCardNo"] = .string(account.idCardNo)
        }
        return .object(object)
    }

    func bankCardInfo(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        let account = try formalAccount(request)
        _ = try requireRole(account, "photographer")
        guard let card = account.bankCard else { return ["bound": false] }
        return ["bound": true, "bankName": .string(card.bankName), "cardNo": .string(card.cardNo), "holderName": .string(account.realName)]
    }

    func storeAll(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        _ = try formalAccount(request)
        return .array(SandboxDirectory.stores.map { store in
            [
                "storeId": .int(store.id),
                "storeName": .string(store.name),
                "scenicId": .int(store.scenicId),
                "scenicName": .string(SandboxDirectory.scenic(store.scenicId)?.name ?? ""),
                "address": .string(store.address),
            ]
        })
    }

    /// Demo staff report positions a fixed number of minutes before now, near their scenic area.
    static let reportAgeMinutes: [Int: Int] = [1001: 18, 2001: 47, 4001: 95]

    func locationDetail(_ request: HTTPRequest) throws(APIFailure) -> JSONValue {
        _ = try formalAccount(request)
        let staffId = try requireIntParam(request, "staffId")
        guard let staff = SandboxDirectory.account(staffId), staff.hasRole("photographer") || staff.roleCode == "scenicAdmin" else {
            return ["staffId": .int(staffId), "online": false]
        }
        let minutes = SandboxAPI.reportAgeMinutes[staffId] ?? 30
        let reported = clock.now().addingTimeInterval(TimeInterval(-minutes * 60))
        let (lat, lon) = staff.scenicId == 3 ? (29.6050, 119.0420) : (30.2590, 120.1480)
        let jitter = Double(SeedHash.mix(seed ^ UInt64(staffId)) % 1000) / 100_000
        return [
            "staffId": .int(staffId),
            "online": true,
            "lastReportTime": .string(ShanghaiCalendar.timestamp(unix: Int(reported.timeIntervalSince1970))),
            "latitude": .decimal(lat + jitter, digits: 6),
            "longitude": .decimal(lon - jitter, digits: 6),
        ]
    }
}
