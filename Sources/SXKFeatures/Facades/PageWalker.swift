import FoundationEssentials
import SXKAPI

/// Progress of a page walk: pages and rows so far, the server's total (nil when its last answer gave
/// none), and the rate.
public struct WalkProgress: Sendable, Equatable {
    public var pages: Int
    public var rows: Int
    public var total: Int?
    public var elapsed: TimeInterval

    public init(pages: Int, rows: Int, total: Int?, elapsed: TimeInterval) {
        self.pages = pages; self.rows = rows; self.total = total; self.elapsed = elapsed
    }

    /// Rows per second since the walk began (0 before any time has passed).
    public var rowsPerSecond: Double { elapsed > 0 ? Double(rows) / elapsed : 0 }
}

/// Why a page walk ended.
public enum WalkStop: String, Sendable, Equatable {
    /// The last page arrived (`PageRule.isLast`).
    case completed
    /// `limit` rows were delivered.
    case limit
    /// The task was cancelled (Ctrl-C); rows already delivered stay delivered.
    case cancelled
    /// The callback asked to stop (e.g. the output pipe closed).
    case stoppedByCaller
    /// A page held the same rows as the page before it (a server that does not page the list, or
    /// one that never ends it): not delivered, and the walk ends there.
    case repeated
    /// A page held no rows though the total names rows at its place in the list (`"list": null` or `[]`
    /// mid-list): the answers contradict each other, and the walk ends there, not as complete.
    case emptyBeforeTotal
}

/// The end of a page walk: how far it got and why it stopped.
public struct WalkOutcome: Sendable, Equatable {
    public var progress: WalkProgress
    public var stop: WalkStop
}

/// Walks pages in order, handing each page's rows to the caller before the walk moves on, so memory
/// holds a few pages whatever the total (`--all`).
///
/// While `onPage` handles page n, pages n+1 … n+8 are already being fetched: the server works on the
/// next pages while this process parses and decodes the one before, and on a slow link the pages the
/// first answer makes known go out together (page 1, then up to eight at once: two round trips for nine
/// pages, four for twenty) instead of one round trip each. Eight: about what a browser keeps open to one
/// host, a handful of streams on one HTTP/2 connection, and a few pages of memory.
/// Nothing past what the walk needs is asked for: the first page goes alone, and the pages fetched
/// ahead stop at the last page the server's total and page size name and at the page that holds the
/// `limit`-th row; an answer without a total makes only the next page known. A page the server then
/// calls the last (an empty list, a smaller total) ends the walk, and anything still in flight is cancelled.
public enum PageWalker {
    /// How many pages are in flight while the caller handles one: the bound on what memory holds
    /// (the page being handled and these) whatever the total.
    public static let ahead = 8

    /// How many rows of the list come before `page` at `pageSize`; nil when that is not known (no page
    /// size yet, past page 1).
    static func rowsBefore(_ page: Int, pageSize: Int) -> Int? {
        guard pageSize > 0 else { return page <= 1 ? 0 : nil }
        let (rows, overflow) = (page - 1).multipliedReportingOverflow(by: pageSize)
        return overflow ? Int.max : rows
    }

    /// One page as the walker needs it: its rows, the server's total (nil when none), whether it is the
    /// last (`PageRule`), and the page size the server used. Without a total only the next page is fetched
    /// ahead: a server that always answers full pages and no total is walked until `limit` or Ctrl-C, as
    /// one whose total lies is.
    public typealias Answer<Row> = (rows: [Row], total: Int?, isLast: Bool, pageSize: Int)

    /// `fetch(page)` returns one page, from `first` on. `onPage` receives the rows (cut at `limit`) with
    /// progress so far; returning false stops the walk. When the walk returns or throws, no page task is
    /// left running: the ones still in flight are cancelled and waited for, so nothing they report comes
    /// after the walk's own end.
    /// `same(a, b)` tells two pages' rows apart: given, a page whose rows are the page before's
    /// ends the walk (`.repeated`) before it is delivered.
    public static func walk<Row: Sendable>(
        first: Int = 1,
        limit: Int?,
        same: (([Row], [Row]) -> Bool)? = nil,
        fetch: @escaping @Sendable (Int) async throws -> Answer<Row>,
        onPage: ([Row], WalkProgress) async throws -> Bool
    ) async throws -> WalkOutcome {
        let started = ContinuousClock.now
        func elapsed() -> TimeInterval { (ContinuousClock.now - started).seconds }
        var progress = WalkProgress(pages: 0, rows: 0, total: nil, elapsed: 0)
        if let limit, limit <= 0 { return WalkOutcome(progress: progress, stop: .limit) }
        func cancelled(_ error: any Error) -> Bool {
            error is CancellationError || Task.isCancelled || (error as? APIError)?.kind == .cancelled
        }
        // Pages in flight, in page order; the first is the one awaited next.
        var pending: [(page: Int, task: Task<Answer<Row>, any Error>)] = [(first, Task { try await fetch(first) })]
        // Page numbers saturate: a walk that starts near Int.max ends there instead of overflowing.
        var nextPage: Int? = first == Int.max ? nil : first + 1
        var result: Result<WalkOutcome, any Error>?
        // The largest page size the answers gave (their own, else a full page's length): a short last
        // page's length is not the list's page size.
        var pageSize = 0
        var previous: [Row]?
        walking: while !pending.isEmpty {
            let current = pending.removeFirst()
            let answer: Answer<Row>
            do {
                answer = try await withTaskCancellationHandler {
                    try await current.task.value
                } onCancel: {
                    current.task.cancel()
                }
            } catch {
                result = cancelled(error) ? .success(WalkOutcome(progress: progress, stop: .cancelled)) : .failure(error)
                break walking
            }
            // Judged by the page's place in the list, not by the rows delivered: a walk may start past
            // page 1, and a caller's rows may be whole pages (stats).
            if answer.rows.isEmpty, let total = answer.total ?? progress.total,
               let before = rowsBefore(current.page, pageSize: max(pageSize, answer.pageSize)), before < total {
                progress.total = total
                result = .success(WalkOutcome(progress: progress, stop: .emptyBeforeTotal))
                break walking
            }
            if let same, let previous, !answer.rows.isEmpty, same(previous, answer.rows) {
                result = .success(WalkOutcome(progress: progress, stop: .repeated))
                break walking
            }
            if same != nil { previous = answer.rows }
            pageSize = max(pageSize, answer.pageSize)
            // A page smaller than the largest (its size read from its own length: a short last page)
            // is judged by the list's size: the total reached at the page asked for ends the walk.
            var isLast = answer.isLast
            if !isLast, answer.pageSize < pageSize, let total = answer.total {
                let (reached, overflow) = current.page.multipliedReportingOverflow(by: pageSize)
                isLast = overflow || reached >= total
            }
            var rows = answer.rows
            var hitLimit = false
            if let limit, progress.rows + rows.count >= limit {
                rows = Array(rows.prefix(limit - progress.rows))
                hitLimit = true
            }
            progress.pages += 1
            progress.rows += rows.count
            progress.total = answer.total
            progress.elapsed = elapsed()
            if hitLimit || isLast {
                for p in pending { p.task.cancel() }
            } else if !Task.isCancelled {
                // Up to the server's last page and the page holding the limit-th row; at least the next
                // page (an answer whose numbers say it was the last, but which is not marked so, goes on).
                let (after, overflow) = current.page.addingReportingOverflow(1)
                var last = overflow ? Int.max : after
                if pageSize > 0, let total = answer.total {
                    var wanted = PageRule.pages(rows: total, pageSize: pageSize)
                    // The rows still wanted, counted from the page the walk started on.
                    if let limit {
                        let (through, overflow) = (first - 1).addingReportingOverflow(PageRule.pages(rows: limit, pageSize: pageSize))
                        wanted = min(wanted, overflow ? Int.max : through)
                    }
                    last = max(last, wanted)
                }
                let (horizon, beyond) = current.page.addingReportingOverflow(ahead)
                while let page = nextPage, page <= min(last, beyond ? Int.max : horizon) {
                    pending.append((page, Task { try await fetch(page) }))
                    nextPage = page == Int.max ? nil : page + 1
                }
            }
            let keepGoing: Bool
            do { keepGoing = try await onPage(rows, progress) } catch { result = .failure(error); break walking }
            var stop: WalkStop?
            if hitLimit { stop = .limit }
            else if isLast { stop = .completed }
            else if Task.isCancelled { stop = .cancelled }
            else if !keepGoing { stop = .stoppedByCaller }
            if let stop {
                result = .success(WalkOutcome(progress: progress, stop: stop))
                break walking
            }
        }
        for p in pending { p.task.cancel() }
        for p in pending { _ = try? await p.task.value }
        return try (result ?? .success(WalkOutcome(progress: progress, stop: .completed))).get()
    }
}
