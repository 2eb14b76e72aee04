import SXKCore
import SXKModels

/// Commerce and operation groups: order pages and statistics over an order scope.
extension SandboxAPI {
    static let orderRoutes = [
        route(Endpoint.photographerOrders) { api, request throws(APIFailure) in try api.orderList(request, scope: api.photographerScope(request)) },
        route(Endpoint.scenicAdminOrders) { api, request throws(APIFailure) in try api.orderList(request, scope: api.scenicScope(request)) },
        route(Endpoint.storeOrders) { api, request throws(APIFailure) in try api.orderList(request, scope: api.storeScope(request)) },
        route(Endpoint.photographerSummary) { api, request throws(APIFailure) in try api.summary(request, scope: api.photographerScope(request)) },
        route(Endpoint.photographerDaily) { api, request throws(APIFailure) in try api.daily(request, scope: api.photographerScope(request)) },
        route(Endpoint.scenicAdminSummary) { api, request throws(APIFailure) in try api.summary(request, scope: api.scenicScope(request)) },
        route(Endpoint.scenicAdminDaily) { api, request throws(APIFailure) in try api.daily(request, scope: api.scenicScope(request)) },
        route(Endpoint.storeSummary) { api, request throws(APIFailure) in try api.summary(request, scope: api.storeScope(request)) },
        route(Endpoint.storeDaily) { api, request throws(APIFailure) in try api.daily(request, scope: api.storeScope(request)) },
    ]

    static let defaultPageSize = 20
    static let maxPageSize = 100
    /// Longest statistics range accepted, in days.
    static let maxRangeDays = 3660

    /// `page` (1-based, below 1 → 1) and `pageSize` (default 20, clamped to 1…100).
    func paging(_ request: HTTPRequest) throws(APIFailure) -> (page: Int, pageSize: Int) {
        let page = max(1, try intParam(request, "page") ?? 1)
        let size = min(SandboxAPI.maxPageSize, max(1, try intParam(request, "pageSize") ?? SandboxAPI.defaultPageSize))
        return (page, size)
    }

    func pageJSON(list: [JSONValue], total: Int, page: Int, pageSize: Int) -> JSONValue {
        ["list": .array(list), "total": .int(total), "page": .int(page), "pageSize": .int(pageSize)]
    }

    func orderList(_ request: HTTPRequest, scope: OrderScope) throws(APIFailure) -> JSONValue {
        let (page, pageSize) = try paging(request)
        var status: Int?
        if let value = try intParam(request, "status"), value != 0 {
            guard OrderStatusCodes.label(value) != nil else {
                throw .invalid("status", "无效，应为 \(OrderStatusCodes.all[0].code)–\(OrderStatusCodes.all[OrderStatusCodes.all.count - 1].code)")
            }
            status = value
        }
        let keyword = request.param("keyword")?.sandboxTrimmed(" \t")
        let result = scope.page(status: status, keyword: keyword?.isEmpty == false ? keyword : nil, page: page, pageSize: pageSize)
        return pageJSON(list: leakedOrders(result.orders, of: scope), total: result.total, page: page, pageSize: pageSize)
    }

    /// `startDate…endDate` as day numbers, validated.
    func dateRange(_ request: HTTPRequest) throws(APIFailure) -> (first: Int, last: Int) {
        func day(_ name: String) throws(APIFailure) -> Int {
            guard let text = request.param(name), !text.isEmpty else { throw .missing(name) }
            guard let day = ShanghaiCalendar.parseDay(text) else { throw .invalid(name, "格式错误，应为 yyyy-MM-dd") }
            return day
        }
        let first = try day("startDate")
        let last = try day("endDate")
        guard first <= last else { throw APIFailure(code: SandboxCode.badRequest, msg: "开始日期不能晚于结束日期") }
        guard last - first < SandboxAPI.maxRangeDays else {
            throw APIFailure(code: SandboxCode.badRequest, msg: "日期范围不能超过 \(SandboxAPI.maxRangeDays) 天")
        }
        return (first, last)
    }

    func summary(_ request: HTTPRequest, scope: OrderScope) throws(APIFailure) -> JSONValue {
        let (first, last) = try dateRange(request)
        let totals = scope.totals(from: first, to: last)
        return [
            "startDate": .string(ShanghaiCalendar.dateText(day: first)),
            "endDate": .string(ShanghaiCalendar.dateText(day: last)),
            "orderCount": .int(totals.orderCount),
            "orderAmount": .number(Money.yuan(totals.orderAmount)),
            "refundCount": .int(totals.refundCount),
            "refundAmount": .number(Money.yuan(totals.refundAmount)),
        ]
    }

    /// One row per day of the range, newest first, zero rows included.
    func daily(_ request: HTTPRequest, scope: OrderScope) throws(APIFailure) -> JSONValue {
        let (first, last) = try dateRange(request)
        let (page, pageSize) = try paging(request)
        let total = last - first + 1
        let skip = OrderScope.skip(page: page, pageSize: pageSize)
        var rows: [JSONValue] = []
        if skip < total {
            for offset in skip..<min(total, skip + pageSize) {
                let day = last - offset
                let totals = scope.totals(day: day)
                rows.append([
                    "date": .string(ShanghaiCalendar.dateText(day: day)),
                    "orderCount": .int(totals.orderCount),
                    "orderAmount": .number(Money.yuan(totals.orderAmount)),
                    "refundCount": .int(totals.refundCount),
                    "refundAmount": .number(Money.yuan(totals.refundAmount)),
                ])
            }
        }
        return pageJSON(list: leakedDaily(rows, of: scope), total: total, page: page, pageSize: pageSize)
    }
}
