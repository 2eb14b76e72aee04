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

/// Walks pages one at a time, handing each page's rows to the caller before asking for the next,
/// so memory holds one page whatever the total (issue 6 `--all`).
enum PageWalker {
    /// `fetch(page)` returns the rows, the total and whether that page is the last one.
    /// `onPage` receives the rows (cut at `limit`) with progress so far; returning false stops the walk.
    /// `fetch(page)` returns the rows, the total and whether that page is the last one. While `onPage`
    /// handles page n, page n+1 is already being fetched; `onPage` receives the rows (cut at `limit`)
    /// with progress so far, and returning false stops the walk.
    static func walk<Row: Sendable>(
        limit: Int?,
        fetch: @escaping @Sendable (Int) async throws -> (rows: [Row], total: Int, isLast: Bool),
        onPage: ([Row], WalkProgress) async throws -> Bool
    ) async throws -> WalkOutcome {
        typealias Answer = (rows: [Row], total: Int, isLast: Bool)
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
        var page = 1
        var pending: Task<Answer, any Error>? = Task { try await fetch(1) }
        defer { pending?.cancel() }
        while let current = pending {
            let answer: Answer
            do {
                answer = try await withTaskCancellationHandler {
                    try await current.value
                } onCancel: {
                    current.cancel()
                }
            } catch {
                pending = nil
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
                pending = nil
            } else {
                let next = page + 1
                pending = Task { try await fetch(next) }
            }
            let keepGoing = try await onPage(rows, progress)
            if hitLimit { return WalkOutcome(progress: progress, stop: .limit) }
            if answer.isLast { return WalkOutcome(progress: progress, stop: .completed) }
            if Task.isCancelled { return WalkOutcome(progress: progress, stop: .cancelled) }
            if !keepGoing { return WalkOutcome(progress: progress, stop: .stoppedByCaller) }
            page += 1
        }
        return WalkOutcome(progress: progress, stop: .completed)
    }
}
