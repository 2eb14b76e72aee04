import SXKCore

/// Login, account choice and the account's own information (CONTRACT §3, Account group).
public struct AccountAPI: Sendable {
    public let client: APIClient
    public init(client: APIClient) { self.client = client }

    /// GET /api/app/config
    public func config() async throws(APIError) -> APIResult<AppConfig> {
        try await client.call(.config) { v in AppConfig(json: v) }
    }

    /// POST /api/app/v9/login: the temporary token and the accounts of this phone.
    public func login(username: String, password: String) async throws(APIError) -> APIResult<LoginResult> {
        try await client.call(.login, body: ["username": .string(username), "password": .string(password)], decode: LoginResult.init(json:))
    }

    /// POST /api/app/v9/set-user with the temporary token in `token`: the formal token and the account.
    public func setUser(userId: Int, accountType: String, tempToken: String) async throws(APIError) -> APIResult<SetUserResult> {
        try await client.call(.setUser, body: ["userId": .int(userId), "accountType": .string(accountType)], tokenOverride: tempToken, decode: SetUserResult.init(json:))
    }

    /// GET /api/yf-handset-app/userinfo (with `token`, that token instead of the session's).
    public func userInfo(token: String? = nil) async throws(APIError) -> APIResult<UserInfo> {
        try await client.call(.userInfo, tokenOverride: token, decode: UserInfo.init(json:))
    }

    /// GET /api/yf-handset-app/role-permission (with `token`, that token instead of the session's).
    public func rolePermissions(token: String? = nil) async throws(APIError) -> APIResult<[RolePermission]> {
        try await client.call(.rolePermissions, tokenOverride: token, decode: RolePermission.list(json:))
    }

    /// GET /api/yf-handset-app/photog/real-name/info
    public func realNameInfo() async throws(APIError) -> APIResult<RealNameInfo> {
        try await client.call(.realNameInfo, decode: RealNameInfo.init(json:))
    }

    /// GET /api/yf-handset-app/photog/wallet/bank-card/info
    public func bankCardInfo() async throws(APIError) -> APIResult<BankCardInfo> {
        try await client.call(.bankCardInfo, decode: BankCardInfo.init(json:))
    }
}
