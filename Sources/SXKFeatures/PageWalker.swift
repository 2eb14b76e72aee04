import Foundation
import SXKAPI

/// Progress of a page walk: pages and rows so far, the server's total, and the rate.
public struct WalkProgress: Sendable, Equatable {
    public var pages: Int
    public var rows: Int
    public var total: Int
    public var elapsed: TimeInterval

    public init(pages: Int, rows: Int, total: Int, elapsed: TimeInterval) {
        self.pages = pages; self.rows = rows; self.total = total; self.elapsed = elapsed
    }

    /// Rows per second since the walk began (0 before any time has passed).
    public var rowsPerSecond: Double { elapsed > 0 ? Double(rows) / elapsed : 0 }
}

/// Why a page walk ended.
public enum WalkStop: String, Sendable, Equatable {
    /// The last page arrived (`page * pageSize >= total` or an empty list).
    case completed
    /// `limit` rows were delivered.
    case limit
    /// The task was cancelled (Ctrl-C); rows already delivered stay delivered.
    case cancelled
    /// The callback asked to stop (e.g. the output pipe closed).
    case stoppedByCaller
}

/// The end of a page walk: how far it got and why it stopped.
public struct WalkOutcome: Sendable, Equatable {
    public var progress: WalkProgress
    public var stop: WalkStop
}

/// Walks pages in order, handing each page's rows to the caller before the walk moves on, so memory
/// holds a few pages whatever the total (issue 6 `--all`).
///
/// While `onPage` handles page n, pages n+1 and n+2 are already being fetched: the server works on
/// the next page while this process parses and decodes the one before, instead of waiting for it.
/// Nothing past what the walk needs is asked for: the first page goes alone, and the pages fetched
/// ahead stop at the last page the server's total and page size name and at the page that holds the
/// `limit`-th row. A page the server then calls the last (an empty list, a smaller total) ends the
/// walk, and anything still in flight is cancelled.
enum PageWalker {
    /// How many pages are in flight while the caller handles one.
    static let ahead = 2

    /// One page as the walker needs it: its rows, the server's total, whether the server calls it the
    /// last, and the page size the server used (0 when unknown; nothing is fetched ahead then).
    typealias Answer<Row> = (rows: [Row], total: Int, isLast: Bool, pageSize: Int)

    /// `fetch(page)` returns one page. `onPage` receives the rows (cut at `limit`) with progress so far;
    /// returning false stops the walk.
    static func walk<Row: Sendable>(
        limit: Int?,
        fetch: @escaping @Sendable (Int) async throws -> Answer<Row>,
        onPage: ([Row], WalkProgress) async throws -> Bool
    ) async throws -> WalkOutcome {
        let started = ContinuousClock.now
        func elapsed() -> TimeInterval {
            let d = ContinuousClock.now - started
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
        var progress = WalkProgress(pages: 0, rows: 0, total: 0, elapsed: 0)
        if let limit, limit <= 0 { return WalkOutcome(progress: progress, stop: .limit) }
        func cancelled(_ error: any Error) -> Bool {
            error is CancellationError || Task.isCancelled || (error as? APIError)?.kind == .cancelled
        }
        // Pages in flight, in page order; the first is the one awaited next.
        var pending: [(page: Int, task: Task<Answer<Row>, any Error>)] = [(1, Task { try await fetch(1) })]
        defer { for p in pending { p.task.cancel() } }
        var nextPage = 2
        while !pending.isEmpty {
            let current = pending.removeFirst()
            let answer: Answer<Row>
            do {
                answer = try await withTaskCancellationHandler {
                    try await current.task.value
                } onCancel: {
                    current.task.cancel()
                }
            } catch {
                if cancelled(error) { return WalkOutcome(progress: progress, stop: .cancelled) }
                throw error
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
            if hitLimit || answer.isLast {
                for p in pending { p.task.cancel() }
                pending = []
            } else {
                // The last page worth asking for: the server's last page, or the one holding the
                // limit-th row; only the next page when the page size is unknown.
                var last = current.page + 1
                if answer.pageSize > 0 {
                    last = max(last, (answer.total + answer.pageSize - 1) / answer.pageSize)
                    if let limit { last = min(last, (limit + answer.pageSize - 1) / answer.pageSize) }
                    last = max(last, current.page + 1)
                }
                while nextPage <= min(last, current.page + ahead) {
                    let page = nextPage
                    pending.append((page, Task { try await fetch(page) }))
                    nextPage += 1
                }
                if pending.isEmpty {
                    let page = nextPage
                    pending.append((page, Task { try await fetch(page) }))
                    nextPage += 1
                }
            }
            let keepGoing = try await onPage(rows, progress)
            if hitLimit { return WalkOutcome(progress: progress, stop: .limit) }
            if answer.isLast { return WalkOutcome(progress: progress, stop: .completed) }
            if Task.isCancelled { return WalkOutcome(progress: progress, stop: .cancelled) }
            if !keepGoing { return WalkOutcome(progress: progress, stop: .stoppedByCaller) }
        }
        return WalkOutcome(progress: progress, stop: .completed)
    }
}
