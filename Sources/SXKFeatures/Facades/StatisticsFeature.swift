import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

/// Daily rows of a range: the pages read (the first, or every one with `--all`).
public struct DailyRows: Sendable {
    public var rows: [Daily]
    public var pages: Int
    /// nil when the last page read gave no total.
    public var total: Int?
    /// The `data` of each page as received (for `--raw`/`--json`).
    public var responses: [APIResponse]
    /// False when the server has pages beyond those read (`--all` reads them).
    public var lastPage = true
    /// Set when `--all` stopped before the server's last page: it named more daily pages than the
    /// range's days fill (a server that never ends its list). The line that says so.
    public var cut: String?
    /// Set when a page after the first failed: the rows are those of the pages before it, and this is
    /// the error to report after them (the session already reset for a rejected token).
    public var failure: FeatureError?
    /// True when `--all` stopped at the page that holds the rows `--limit` asks for.
    public var limited = false

    public init(rows: [Daily], pages: Int, total: Int?, responses: [APIResponse]) {
        self.rows = rows; self.pages = pages; self.total = total; self.responses = responses
    }

}

/// `initStatistics`: the summary and the daily rows of the range.
public struct StatsReport: Sendable {
    public var role: String
    public var endpoint: RoleEndpoints
    public var range: DateRange
    public var summary: APIResult<Summary>
    public var daily: DailyRows
    public var calls: [CallRecord]
}

/// Seed 001 statistics facade: the six role endpoints, a validated date range (default today), the first
/// screen's requests from the app model, daily rows paged through to the end with `--all`. Nothing is stored.
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
    public func endpoint(role requested: String? = nil) throws(FeatureError) -> (role: String, endpoint: RoleEndpoints) {
        try sessionGuard.requireSession()
        let (role, endpoints) = try RoleEndpoints.resolve(requested, contexts: contexts, feature: "stats")
        return (role, endpoints)
    }

    /// `initStatistics` (seed 000 §5.2) as the app model plans it (`AppModel.statsFirstScreen`): the
    /// summary and the first daily page, asked together; with `allPages` the other daily pages follow.
    /// They read as if asked one after another, summary first as the app loads it first: a summary
    /// failure is the one reported, and the daily page is cancelled with whatever it answered, a
    /// rejected token included (`SessionGuard.run`).
    public func load(role: String? = nil, range: DateRange, pageSize: Int = StatisticsFeature.defaultPageSize,
                     allPages: Bool = false) async throws(FeatureError) -> StatsReport {
        let (role, endpoint) = try endpoint(role: role)
        try OrdersFeature.checkPaging(page: 1, pageSize: pageSize)
        let timer = CallTimer()
        let sink = CallSink()
        let screen = AppModel.statsFirstScreen(endpoint, range: range, pageSize: pageSize)
        var summary: APIResult<Summary>?
        var daily = DailyRows(rows: [], pages: 0, total: 0, responses: [])
        do {
            try await sessionGuard.run("stats") {
                async let first = firstPage(screen.daily, pageSize: pageSize, timer: timer, sink: sink)
                // Thrown, the summary's failure leaves the scope: the daily page is cancelled and waited for.
                summary = try await self.summary(screen.summary, timer: timer, sink: sink)
                let page = try await first.get()
                try await collect(page, endpoint, range: range, pageSize: pageSize, allPages: allPages, timer: timer, sink: sink, into: &daily)
            }
        } catch {
            // The summary read, and the daily pages up to a later one's failure.
            guard summary != nil, let partial = Self.partial(daily, after: error) else { throw error }
            daily = partial
        }
        // Set by the body whenever it returns (it throws otherwise).
        guard let summary else { throw .failed("stats: no summary was read") }
        return StatsReport(role: role, endpoint: endpoint, range: range, summary: summary, daily: daily,
                           calls: sink.records(inOrderOf: [endpoint.summary.endpoint.path, endpoint.daily.endpoint.path]))
    }

    /// The rows read before a later page failed, with that failure to report after them: `--all`'s pages
    /// are read in order, so they are the range's first rows. Nil (the error stands alone) when no page
    /// was read, or for Ctrl-C, after which no partial list stands for the range.
    static func partial(_ daily: DailyRows, after error: FeatureError) -> DailyRows? {
        guard daily.pages > 0, !error.isCancelled else { return nil }
        var partial = daily
        partial.failure = error
        partial.lastPage = false
        return partial
    }

    /// The summary alone.
    public func summary(role: String? = nil, range: DateRange) async throws(FeatureError) -> APIResult<Summary> {
        let (_, endpoint) = try endpoint(role: role)
        return try await sessionGuard.run("stats summary") {
            try await summary(AppModel.statsSummary(endpoint, range: range), timer: CallTimer(), sink: CallSink())
        }
    }

    /// The daily rows alone: the first page, or every page with `allPages`.
    /// `limit`: with `allPages`, no page is read past the one that holds that many rows.
    public func daily(role: String? = nil, range: DateRange, pageSize: Int = StatisticsFeature.defaultPageSize,
                      allPages: Bool = false, limit: Int? = nil) async throws(FeatureError) -> DailyRows {
        let (_, endpoint) = try endpoint(role: role)
        try OrdersFeature.checkPaging(page: 1, pageSize: pageSize)
        let timer = CallTimer(), sink = CallSink()
        var out = DailyRows(rows: [], pages: 0, total: 0, responses: [])
        do {
            try await sessionGuard.run("stats daily") {
                let first = try await dailyPage(AppModel.statsDailyPage(endpoint, range: range, page: 1, pageSize: pageSize), page: 1, pageSize: pageSize, timer: timer, sink: sink)
                try await collect(first, endpoint, range: range, pageSize: pageSize, allPages: allPages, limit: limit, timer: timer, sink: sink, into: &out)
            }
        } catch {
            guard let partial = Self.partial(out, after: error) else { throw error }
            return partial
        }
        return out
    }

    /// Calls made inside `sessionGuard.run`, which resets the session for the one failure it reports.
    private func summary(_ request: PlannedRequest<Summary>, timer: CallTimer, sink: CallSink) async throws(FeatureError) -> APIResult<Summary> {
        let api = operation
        return try await FeatureError.catching("stats summary") {
            try await timer.record("GET", request.label, into: sink) { () async throws -> APIResult<Summary> in
                try await api.client.call(request.endpoint, request.arguments)
            }
        }
    }

    private func firstPage(_ request: PlannedRequest<Page<Daily>>, pageSize: Int, timer: CallTimer, sink: CallSink) async -> Result<APIResult<Page<Daily>>, FeatureError> {
        do { return .success(try await dailyPage(request, page: 1, pageSize: pageSize, timer: timer, sink: sink)) } catch {
            return .failure(error)
        }
    }

    /// Adds `first` to `out`, then, with `allPages`, the following pages until the server's last: the
    /// pages the first answer makes known go out together (`PageWalker`), read in page order; the first
    /// failure in that order is the one reported, and what is still in flight is cancelled.
    private func collect(_ first: APIResult<Page<Daily>>, _ endpoint: RoleEndpoints, range: DateRange, pageSize: Int, allPages: Bool,
                         limit: Int? = nil, timer: CallTimer, sink: CallSink, into out: inout DailyRows) async throws(FeatureError) {
        func add(_ result: APIResult<Page<Daily>>) {
            out.rows += result.value.list
            out.pages += 1
            out.total = result.value.total
            out.lastPage = result.value.isLast
            out.responses.append(result.response)
        }
        guard allPages, !first.value.isLast else { return add(first) }
        if let limit, first.value.list.count >= limit {
            add(first)
            out.limited = true
            return
        }
        let feature = self
        typealias Answer = PageWalker.Answer<APIResult<Page<Daily>>>
        // A page is one "row" of the walk; an empty one is none, so the walk sees a page without rows
        // before the total (`WalkStop.emptyBeforeTotal`).
        @Sendable func answer(_ r: APIResult<Page<Daily>>) -> Answer { (r.value.list.isEmpty ? [] : [r], r.value.total, r.value.isLast, r.value.pageSize) }
        // One row a day: the range's days fill this many pages of the largest size the answers gave. A
        // server that names more (full pages and no total, or a total past the range) is not followed further.
        let days = range.days.count
        var largest = first.value.pageSize
        let outcome: WalkOutcome
        do {
            // `--limit` rows fill this many pages of the first page's length (a full page: it is not the
            // last), so no page past them is asked for, ahead or not.
            let pages = limit.map { PageRule.pages(rows: $0, pageSize: max(1, first.value.list.count)) }
            outcome = try await PageWalker.walk(limit: pages, same: { $0.first?.value.list.map(\.raw) == $1.first?.value.list.map(\.raw) }, fetch: { @Sendable page in
                if page == 1 { return answer(first) }
                let result = try await feature.dailyPage(AppModel.statsDailyPage(endpoint, range: range, page: page, pageSize: pageSize),
                                                         page: page, pageSize: pageSize, timer: timer, sink: sink)
                if result.value.namesAnotherPage { throw FeatureError.pageNotAsked(asked: page, answered: result.value.page) }
                return answer(result)
            }, onPage: { pages, _ in
                pages.forEach(add)
                largest = max(largest, pages.map(\.value.pageSize).max() ?? 0)
                return out.pages < max(1, PageRule.pages(rows: days, pageSize: largest))
            })
        } catch {
            throw FeatureError.from(error, context: "stats daily")
        }
        // Interrupted: no partial list stands for the range. Said as page 1's would be: the request it cut.
        if outcome.stop == .cancelled {
            let cut = AppModel.statsDailyPage(endpoint, range: range, page: out.pages + 1, pageSize: pageSize)
            throw .api(.cancelled(request: RequestLabel(method: "GET", path: cut.endpoint.path)), context: "stats daily")
        }
        // The walk judged the last page with the list's page size (a short last page's own length is not it).
        if outcome.stop == .completed { out.lastPage = true }
        if outcome.stop == .limit, !out.lastPage {
            if let limit, out.rows.count < limit {
                out.cut = "--all stopped after \(out.pages) daily pages, which should hold the \(limit) rows --limit asks for: a later page was shorter than the first; the rows may be partial"
            } else {
                out.limited = true
            }
        }
        if outcome.stop == .emptyBeforeTotal {
            out.lastPage = false
            out.cut = "--all stopped at daily page \(out.pages + 1): the server listed no rows there though its total is \(outcome.progress.total.map(String.init) ?? "larger"); the rows may be partial"
        } else if outcome.stop == .repeated {
            out.cut = "--all stopped at daily page \(out.pages + 1): the server answered it with the same rows as page \(out.pages) (it does not page this list); the rows may be partial"
        } else if outcome.stop == .stoppedByCaller, !out.lastPage, !out.limited, out.total.map({ $0 > out.rows.count }) ?? (out.rows.count < days) {
            out.cut = "--all stopped after \(out.pages) daily pages, which hold the range's \(days) days: the server named more (\(out.total.map { "a total of \($0) rows" } ?? "full pages and no total")); the rows may be partial"
        }
    }

    private func dailyPage(_ request: PlannedRequest<Page<Daily>>, page: Int, pageSize: Int, timer: CallTimer, sink: CallSink) async throws(FeatureError) -> APIResult<Page<Daily>> {
        let api = operation
        return try await FeatureError.catching("stats daily") {
            try await timer.record("GET", request.label, into: sink) { () async throws -> APIResult<Page<Daily>> in
                var result = try await api.client.call(request.endpoint, request.arguments)
                result.value.asked(page, pageSize: pageSize)
                return result
            }
        }
    }
}
