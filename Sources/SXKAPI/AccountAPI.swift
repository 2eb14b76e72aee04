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

    public func userInfo() async throws(APIError) -> APIResult<UserInfo> {
        try await client.call(Endpoint.userInfo)
    }

    public func rolePermissions() async throws(APIError) -> APIResult<[RolePermission]> {
        try await client.call(Endpoint.rolePermissions)
    }

    public func realNameInfo() async throws(APIError) -> APIResult<RealNameInfo> {
        try await client.call(Endpoint.realNameInfo)
    }

    public func bankCardInfo() async throws(APIError) -> APIResult<BankCardInfo> {
        try await client.call(Endpoint.bankCardInfo)
    }
}
