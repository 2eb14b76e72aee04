import SXKCore

/// Stores and the three order lists (the Commerce group of `EndpointCatalog`).
public struct CommerceAPI: Sendable {
    public let client: APIClient
    public init(client: APIClient) { self.client = client }

    /// GET /api/app/store/all (with `token`, that token instead of the session's).
    public func storeList(token: String? = nil) async throws(APIError) -> APIResult<[Store]> {
        try await client.call(Endpoint.storeList, [.token: token])
    }

    public func photographerOrders(page: Int, pageSize: Int, status: Int? = nil, keyword: String? = nil) async throws(APIError) -> APIResult<Page<Order>> {
        try await client.call(Endpoint.photographerOrders, [.page: page, .pageSize: pageSize, .status: status, .keyword: keyword])
    }

    public func scenicAdminOrders(page: Int, pageSize: Int, status: Int? = nil, keyword: String? = nil, scenicId: Int) async throws(APIError) -> APIResult<Page<Order>> {
        try await client.call(Endpoint.scenicAdminOrders, [.page: page, .pageSize: pageSize, .status: status, .keyword: keyword, .scenicId: scenicId])
    }

    /// Deposit orders.
    public func storeOrders(page: Int, pageSize: Int, status: Int? = nil, keyword: String? = nil, storeId: Int) async throws(APIError) -> APIResult<Page<Order>> {
        try await client.call(Endpoint.storeOrders, [.page: page, .pageSize: pageSize, .status: status, .keyword: keyword, .storeId: storeId])
    }
}
