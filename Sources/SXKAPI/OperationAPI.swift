import SXKCore

/// Statistics of the three roles and the location detail (the Operation group of `EndpointCatalog`).
public struct OperationAPI: Sendable {
    public let client: APIClient
    public init(client: APIClient) { self.client = client }

    public func photographerSummary(startDate: String, endDate: String) async throws(APIError) -> APIResult<Summary> {
        try await client.call(Endpoint.photographerSummary, [.startDate: startDate, .endDate: endDate])
    }

    public func photographerDaily(startDate: String, endDate: String, page: Int, pageSize: Int) async throws(APIError) -> APIResult<Page<Daily>> {
        try await client.call(Endpoint.photographerDaily, [.startDate: startDate, .endDate: endDate, .page: page, .pageSize: pageSize])
    }

    public func scenicAdminSummary(startDate: String, endDate: String, scenicId: Int) async throws(APIError) -> APIResult<Summary> {
        try await client.call(Endpoint.scenicAdminSummary, [.startDate: startDate, .endDate: endDate, .scenicId: scenicId])
    }

    public func scenicAdminDaily(startDate: String, endDate: String, scenicId: Int, page: Int, pageSize: Int) async throws(APIError) -> APIResult<Page<Daily>> {
        try await client.call(Endpoint.scenicAdminDaily, [.startDate: startDate, .endDate: endDate, .scenicId: scenicId, .page: page, .pageSize: pageSize])
    }

    public func storeSummary(startDate: String, endDate: String, storeId: Int) async throws(APIError) -> APIResult<Summary> {
        try await client.call(Endpoint.storeSummary, [.startDate: startDate, .endDate: endDate, .storeId: storeId])
    }

    public func storeDaily(startDate: String, endDate: String, storeId: Int, page: Int, pageSize: Int) async throws(APIError) -> APIResult<Page<Daily>> {
        try await client.call(Endpoint.storeDaily, [.startDate: startDate, .endDate: endDate, .storeId: storeId, .page: page, .pageSize: pageSize])
    }

    public func locationDetail(staffId: Int) async throws(APIError) -> APIResult<LocationDetail> {
        try await client.call(Endpoint.locationDetail, [.staffId: staffId])
    }
}
