import SXKCore

/// Statistics of the three roles and the location detail (CONTRACT §3, Operation group).
public struct OperationAPI: Sendable {
    public let client: APIClient
    public init(client: APIClient) { self.client = client }

    /// GET /api/yf-handset-app/photog/analyse/user
    public func photographerSummary(startDate: String, endDate: String) async throws(APIError) -> APIResult<Summary> {
        try await client.call(.photographerSummary, query: [("startDate", startDate), ("endDate", endDate)], decode: Summary.init(json:))
    }

    /// GET /api/yf-handset-app/photog/analyse/user/daily
    public func photographerDaily(startDate: String, endDate: String, page: Int, pageSize: Int) async throws(APIError) -> APIResult<Page<Daily>> {
        try await client.call(.photographerDaily, query: [("startDate", startDate), ("endDate", endDate), ("page", String(page)), ("pageSize", String(pageSize))], decode: OperationAPI.days)
    }

    /// GET /api/app/scenic-admin/analyse
    public func scenicAdminSummary(startDate: String, endDate: String, scenicId: Int) async throws(APIError) -> APIResult<Summary> {
        try await client.call(.scenicAdminSummary, query: [("startDate", startDate), ("endDate", endDate), ("scenicId", String(scenicId))], decode: Summary.init(json:))
    }

    /// GET /api/app/scenic-admin/analyse/daily
    public func scenicAdminDaily(startDate: String, endDate: String, scenicId: Int, page: Int, pageSize: Int) async throws(APIError) -> APIResult<Page<Daily>> {
        try await client.call(.scenicAdminDaily, query: [("startDate", startDate), ("endDate", endDate), ("scenicId", String(scenicId)), ("page", String(page)), ("pageSize", String(pageSize))], decode: OperationAPI.days)
    }

    /// GET /api/app/store/analyse
    public func storeSummary(startDate: String, endDate: String, storeId: Int) async throws(APIError) -> APIResult<Summary> {
        try await client.call(.storeSummary, query: [("startDate", startDate), ("endDate", endDate), ("storeId", String(storeId))], decode: Summary.init(json:))
    }

    /// GET /api/app/store/analyse/daily
    public func storeDaily(startDate: String, endDate: String, storeId: Int, page: Int, pageSize: Int) async throws(APIError) -> APIResult<Page<Daily>> {
        try await client.call(.storeDaily, query: [("startDate", startDate), ("endDate", endDate), ("storeId", String(storeId)), ("page", String(page)), ("pageSize", String(pageSize))], decode: OperationAPI.days)
    }

    /// GET /api/yf-handset-app/photog/loacation/detail?staff_id=… (path misspelling kept on purpose)
    public func locationDetail(staffId: Int) async throws(APIError) -> APIResult<LocationDetail> {
        try await client.call(.locationDetail, query: [("staff_id", String(staffId))], decode: LocationDetail.init(json:))
    }

    static func days(_ json: JSONValue) throws(FieldError) -> Page<Daily> {
        try Page(json: json, item: Daily.init(json:))
    }
}
