import SXKCore

/// Stores and the three order lists (CONTRACT §3, Commerce group).
public struct CommerceAPI: Sendable {
    public let client: APIClient
    public init(client: APIClient) { self.client = client }

    /// GET /api/app/store/all
    public func storeList() async throws(APIError) -> APIResult<[Store]> {
        try await client.call(.storeList, decode: Store.list(json:))
    }

    /// GET /api/yf-handset-app/photog/order/listv2
    public func photographerOrders(page: Int, pageSize: Int, status: Int? = nil, keyword: String? = nil) async throws(APIError) -> APIResult<Page<Order>> {
        try await client.call(.photographerOrders, query: CommerceAPI.paging(page, pageSize, status, keyword), decode: CommerceAPI.orders)
    }

    /// GET /api/app/scenic-admin/order/list
    public func scenicAdminOrders(page: Int, pageSize: Int, status: Int? = nil, keyword: String? = nil, scenicId: Int) async throws(APIError) -> APIResult<Page<Order>> {
        try await client.call(.scenicAdminOrders, query: CommerceAPI.paging(page, pageSize, status, keyword) + [("scenicId", String(scenicId))], decode: CommerceAPI.orders)
    }

    /// GET /api/app/store/order/list (deposit orders)
    public func storeOrders(page: Int, pageSize: Int, status: Int? = nil, keyword: String? = nil, storeId: Int) async throws(APIError) -> APIResult<Page<Order>> {
        try await client.call(.storeOrders, query: CommerceAPI.paging(page, pageSize, status, keyword) + [("storeId", String(storeId))], decode: CommerceAPI.orders)
    }

    static func paging(_ page: Int, _ pageSize: Int, _ status: Int?, _ keyword: String?) -> [(String, String)] {
        var query = [("page", String(page)), ("pageSize", String(pageSize))]
        if let status { query.append(("status", String(status))) }
        if let keyword, !keyword.isEmpty { query.append(("keyword", keyword)) }
        return query
    }

    static func orders(_ json: JSONValue) throws(FieldError) -> Page<Order> {
        try Page(json: json, item: Order.init(json:))
    }
}
