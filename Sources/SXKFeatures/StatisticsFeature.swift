import Foundation
import SXKCore
import SXKAPI
import SXKSession

/// The summary and daily endpoints of a role (seed 000 §5.2), with the scope id they send.
public enum StatsEndpoint: Sendable, Equatable {
    case photographer
    case scenicAdmin(scenicId: Int)
    case storeAdmin(storeId: Int)

    public var summaryPath: String {
        switch self {
        case .photographer: return Endpoint.photographerSummary.path
        case .scenicAdmin: return Endpoint.scenicAdminSummary.path
        case .storeAdmin: return Endpoint.storeSummary.path
        }
    }

    public var dailyPath: String {
        switch self {
        case .photographer: return Endpoint.photographerDaily.path
        case .scenicAdmin: return Endpoint.scenicAdminDaily.path
        case .storeAdmin: return Endpoint.storeDaily.path
        }
    }
}

/// Daily rows of a range, every page read.
public struct DailyRows: Sendable {
    public var rows: [Daily]
    public var pages: Int
    public var total: Int
    /// The `data` of each page as received (for `--raw`/`--json`).
    public var responses: [APIResponse]

    public var orderCount: Int { rows.reduce(0) { $0 + $1.orderCount } }
    public var orderAmount: Double { rows.reduce(0) { $0 + $1.orderAmount } }
    public var refundAmount: Double { rows.reduce(0) { $0 + $1.refundAmount } }
}

/// `initStatistics`: the summary first, then the daily rows of the range.
public struct StatsReport: Sendable {
    public var role: String
    public var endpoint: StatsEndpoint
    public var range: DateRange
    public var summary: APIResult<Summary>
    public var daily: DailyRows
    public var calls: [CallRecord]
}

/// Seed 001 statistics facade: the six role endpoints, a validated date range (default today), daily rows
/// paged through to the end. Nothing is stored.
public struct StatisticsFeature: Sendable {
    public static let defaultPageSize = 50

    public let operation: OperationAPI
    public let sessionGuard: SessionGuard
    public let clock: any WallClock
    private var contexts: SessionContexts { sessionGuard.contexts }

    public init(operation: OperationAPI, guard sessionGuard: SessionGuard, clock: any WallClock) {
        self.operation = operation
        self.sessionGuard = sessionGuard
        self.clock = clock
    }

    /// `--from/--to` or `--period` (default today) against the injected clock. See `DateRange.resolve`.
    public func range(from: String? = nil, to: String? = nil, period: StatsPeriod? = nil) throws(FeatureError) -> DateRange {
        try DateRange.resolve(from: from, to: to, period: period, now: clock.now())
    }

    /// The role's endpoints (default the session's role; refused when not held or the scope is missing).
    public func endpoint(role requested: String? = nil) throws(FeatureError) -> (role: String, endpoint: StatsEndpoint) {
        try sessionGuard.requireSession()
        let role = try RoleScope.resolve(requested, permission: contexts.permission.current)
        let a = contexts.account.current
        switch role {
        case RoleCode.photographer:
            return (role, .photographer)
        case RoleCode.scenicAdmin:
            guard let id = a.scenicId, id > 0 else { throw .noScenicSelected }
            return (role, .scenicAdmin(scenicId: id))
        case RoleCode.storeAdmin:
            guard let id = a.storeId, id > 0 else { throw .noStoreSelected }
            return (role, .storeAdmin(storeId: id))
        default:
            throw .unsupportedRole(role, feature: "stats")
        }
    }

    /// Summary first, then every daily page, as `initStatistics` does.
    public func load(role: String? = nil, range: DateRange, pageSize: Int = StatisticsFeature.defaultPageSize) async throws(FeatureError) -> StatsReport {
        let (role, endpoint) = try endpoint(role: role)
        let timer = CallTimer()
        let sink = CallSink()
        let summary = try await summary(endpoint, range: range, timer: timer, sink: sink)
        let daily = try await daily(endpoint, range: range, pageSize: pageSize, timer: timer, sink: sink)
        return StatsReport(role: role, endpoint: endpoint, range: range, summary: summary, daily: daily, calls: sink.records)
    }

    /// The summary alone.
    public func summary(role: String? = nil, range: DateRange) async throws(FeatureError) -> APIResult<Summary> {
        let (_, endpoint) = try endpoint(role: role)
        return try await summary(endpoint, range: range, timer: CallTimer(), sink: CallSink())
    }

    /// The daily rows alone, every page.
    public func daily(role: String? = nil, range: DateRange, pageSize: Int = StatisticsFeature.defaultPageSize) async throws(FeatureError) -> DailyRows {
        let (_, endpoint) = try endpoint(role: role)
        return try await daily(endpoint, range: range, pageSize: pageSize, timer: CallTimer(), sink: CallSink())
    }

    private func summary(_ endpoint: StatsEndpoint, range: DateRange, timer: CallTimer, sink: CallSink) async throws(FeatureError) -> APIResult<Summary> {
        let api = operation
        return try await sessionGuard.run("stats summary") {
            try await timer.record("GET", endpoint.summaryPath, into: sink) { () async throws -> APIResult<Summary> in
                switch endpoint {
                case .photographer: return try await api.photographerSummary(startDate: range.from, endDate: range.to)
                case .scenicAdmin(let id): return try await api.scenicAdminSummary(startDate: range.from, endDate: range.to, scenicId: id)
                case .storeAdmin(let id): return try await api.storeSummary(startDate: range.from, endDate: range.to, storeId: id)
                }
            }
        }
    }

    private func daily(_ endpoint: StatsEndpoint, range: DateRange, pageSize: Int, timer: CallTimer, sink: CallSink) async throws(FeatureError) -> DailyRows {
        try OrdersFeature.checkPaging(page: 1, pageSize: pageSize)
        let api = operation
        var out = DailyRows(rows: [], pages: 0, total: 0, responses: [])
        var page = 1
        // A range has at most a few hundred days; the page cap only guards against a server that never ends.
        while page <= 10_000 {
            let current = page
            let result = try await sessionGuard.run("stats daily") {
                try await timer.record("GET", endpoint.dailyPath + "?page=\(current)", into: sink) { () async throws -> APIResult<Page<Daily>> in
                    switch endpoint {
                    case .photographer:
                        return try await api.photographerDaily(startDate: range.from, endDate: range.to, page: current, pageSize: pageSize)
                    case .scenicAdmin(let id):
                        return try await api.scenicAdminDaily(startDate: range.from, endDate: range.to, scenicId: id, page: current, pageSize: pageSize)
                    case .storeAdmin(let id):
                        return try await api.storeDaily(startDate: range.from, endDate: range.to, storeId: id, page: current, pageSize: pageSize)
                    }
                }
            }
            out.rows += result.value.list
            out.pages += 1
            out.total = result.value.total
            out.responses.append(result.response)
            if result.value.isLast { break }
            page += 1
        }
        return out
    }
}
