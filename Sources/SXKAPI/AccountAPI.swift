import SXKCore

/// Login, account choice and the account's own information (the Account group of `EndpointCatalog`).
public struct AccountAPI: Sendable {
    public let client: APIClient
    public init(client: APIClient) { self.client = client }

    public func config() async throws(APIError) -> APIResult<AppConfig> {
        try await client.call(Endpoint.config)
    }

    /// The temporary token and the accounts of this phone.
    public func login(username: String, password: String) async throws(APIError) -> APIResult<LoginResult> {
        try await client.call(Endpoint.login, [.username: username, .password: password])
    }

    /// Sent with the temporary token: the formal token and the account.
    public func setUser(userId: Int, accountType: String, tempToken: String) async throws(APIError) -> APIResult<SetUserResult> {
        try await client.call(Endpoint.setUser, [.userId: userId, .accountType: accountType, .token: tempToken])
    }

    /// GET /api/yf-handset-app/userinfo (with `token`, that token instead of the session's).
    public func userInfo(token: String? = nil) async throws(APIError) -> APIResult<UserInfo> {
        try await client.call(Endpoint.userInfo, [.token: token])
    }

    /// GET /api/yf-handset-app/role-permission (with `token`, that token instead of the session's).
    public func rolePermissions(token: String? = nil) async throws(APIError) -> APIResult<[RolePermission]> {
        try await client.call(Endpoint.rolePermissions, [.token: token])
    }

    public func realNameInfo() async throws(APIError) -> APIResult<RealNameInfo> {
        try await client.call(Endpoint.realNameInfo)
    }

    public func bankCardInfo() async throws(APIError) -> APIResult<BankCardInfo> {
        try await client.call(Endpoint.bankCardInfo)
    }
}
