import Foundation
import XCTest
@testable import SXKFeatures
import SXKAPI

/// PageWalker against a scripted server: which pages are asked for, how many are in flight, and
/// that rows still reach the caller in page order.
final class PageWalkerTests: XCTestCase {
    /// A server of `total` rows in pages of `pageSize`, answering each page after `delayMs`.
    final class Pages: @unchecked Sendable {
        let total: Int, pageSize: Int, delayMs: UInt64
        /// The page the server calls the last whatever the total says (a list that shrank mid-walk).
        var endsAt: Int?
        /// 0: the answer names no page size.
        var reportedPageSize: Int?
        /// The total the answers report (the rows served stay `total`): a list that shrinks or grows.
        var reportedTotal: Int?
        /// The answers carry no total (the walk learns nothing of the pages ahead).
        var omitsTotal = false
        var ignoresCancellation = false
        private let lock = NSLock()
        private var asked: [Int] = []
        private var inFlight = 0
        private var answered = 0
        private var unfinished = 0
        private(set) var mostInFlight = 0
        /// Pages asked for before any answer came back.
        private(set) var askedBeforeFirstAnswer: [Int] = []

        init(total: Int, pageSize: Int, delayMs: UInt64 = 2) { self.total = total; self.pageSize = pageSize; self.delayMs = delayMs }

        var requested: [Int] { lock.withLock { asked } }
        /// Fetches started and not yet returned or thrown.
        var running: Int { lock.withLock { unfinished } }

        func fetch(_ page: Int) async throws -> PageWalker.Answer<Int> {
            lock.withLock {
                asked.append(page); inFlight += 1; unfinished += 1; mostInFlight = max(mostInFlight, inFlight)
                if answered == 0 { askedBeforeFirstAnswer.append(page) }
            }
            defer { lock.withLock { inFlight -= 1; unfinished -= 1; answered += 1 } }
            if ignoresCancellation {
                // A transfer that finishes its answer even when cancelled.
                let ms = Int(delayMs)
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) { c.resume() }
                }
            } else {
                try await Task.sleep(nanoseconds: delayMs * 1_000_000)
            }
            let first = (page - 1) * pageSize
            var rows = first < total ? Array(first..<min(first + pageSize, total)) : []
            let shown = omitsTotal ? nil : reportedTotal ?? total
            var isLast = PageRule.isLast(count: rows.count, page: page, pageSize: pageSize, total: shown)
            if let endsAt, page >= endsAt { isLast = true; if page > endsAt { rows = [] } }
            return (rows, shown, isLast, reportedPageSize ?? pageSize)
        }
    }

    func walk(_ server: Pages, limit: Int? = nil, onPage: @escaping ([Int]) -> Bool = { _ in true }) async throws -> (rows: [Int], outcome: WalkOutcome) {
        var rows: [Int] = []
        let outcome = try await PageWalker.walk(limit: limit, fetch: { try await server.fetch($0) }) { batch, progress in
            rows += batch
            XCTAssertEqual(progress.rows, rows.count)
            return onPage(batch)
        }
        return (rows, outcome)
    }

    /// Walks to the end and checks it ended well: every row once and in order, stopped as complete, nothing
    /// asked for past `lastPage` and what was fetched ahead of it, and no page task left running.
    @discardableResult
    func walkToTheEnd(_ server: Pages, rows expected: [Int], lastPage: Int, _ note: String = "", stop: WalkStop = .completed,
                      file: StaticString = #filePath, line: UInt = #line) async throws -> WalkOutcome {
        let (rows, outcome) = try await walk(server)
        XCTAssertEqual(rows, expected, note, file: file, line: line)
        XCTAssertEqual(outcome.stop, stop, note, file: file, line: line)
        XCTAssertLessThanOrEqual(server.requested.max() ?? 0, lastPage + PageWalker.ahead, note, file: file, line: line)
        XCTAssertEqual(server.running, 0, "page tasks left running \(note)", file: file, line: line)
        return outcome
    }

    func testEveryPageOnceInOrderWithTwoAhead() async throws {
        let server = Pages(total: 1000, pageSize: 100)
        let (rows, outcome) = try await walk(server)
        XCTAssertEqual(rows, Array(0..<1000), "rows in page order, none twice")
        XCTAssertEqual(outcome.stop, .completed)
        XCTAssertEqual(outcome.progress.pages, 10)
        XCTAssertEqual(server.requested.sorted(), Array(1...10), "each page asked for once, none past the last")
        XCTAssertEqual(server.requested.first, 1)
        XCTAssertLessThanOrEqual(server.mostInFlight, 1 + PageWalker.ahead)
        XCTAssertGreaterThan(server.mostInFlight, 1, "later pages are fetched while the caller handles one")
    }

    func testFirstPageGoesAlone() async throws {
        // Before the first answer the walk knows neither the total nor the page size.
        let server = Pages(total: 1000, pageSize: 100, delayMs: 20)
        let (rows, _) = try await walk(server)
        XCTAssertEqual(rows.count, 1000)
        XCTAssertEqual(server.askedBeforeFirstAnswer, [1])
        let small = Pages(total: 50, pageSize: 100)
        let (few, outcome) = try await walk(small)
        XCTAssertEqual(few.count, 50)
        XCTAssertEqual(outcome.stop, .completed)
        XCTAssertEqual(small.requested, [1], "one page holds it all: nothing else asked for")
    }

    func testHugeLimitAndTotalDoNotOverflow() async throws {
        // `--limit 9223372036854775807`, or a hostile server's total: rounding up must not trap.
        let server = Pages(total: 30, pageSize: 10)
        let (rows, outcome) = try await walk(server, limit: Int.max)
        XCTAssertEqual(rows, Array(0..<30))
        XCTAssertEqual(outcome.stop, .completed)
        let hostile = Pages(total: 30, pageSize: 10)
        hostile.reportedTotal = Int.max
        let (served, end) = try await walk(hostile, limit: 45)
        XCTAssertEqual(served, Array(0..<30), "the walk ends at the first empty page")
        XCTAssertEqual(end.stop, .emptyBeforeTotal, "short of the total it names: partial, not complete")
        XCTAssertLessThanOrEqual(hostile.requested.max() ?? 0, 5, "never past the page holding the limit-th row")
        XCTAssertEqual(PageRule.pages(rows: Int.max, pageSize: 1), Int.max)
        XCTAssertEqual(PageRule.pages(rows: Int.max, pageSize: 100), Int.max / 100 + 1)
        XCTAssertEqual(PageRule.pages(rows: 200, pageSize: 100), 2)
        XCTAssertEqual(PageRule.pages(rows: -5, pageSize: 100), 0)
    }

    func testAnswersWithoutATotalAreWalkedToTheShortOrEmptyPage() async throws {
        let server = Pages(total: 25, pageSize: 10)
        server.omitsTotal = true
        let (rows, outcome) = try await walk(server)
        XCTAssertEqual(rows, Array(0..<25))
        XCTAssertEqual(outcome.stop, .completed)
        XCTAssertNil(outcome.progress.total)
        XCTAssertEqual(server.requested, [1, 2, 3], "one page at a time, up to the first short one")
        XCTAssertEqual(server.mostInFlight, 1, "no total: nothing is known of the pages ahead")
        let even = Pages(total: 20, pageSize: 10)
        even.omitsTotal = true
        let (all, evenEnd) = try await walk(even)
        XCTAssertEqual(all, Array(0..<20))
        XCTAssertEqual(evenEnd.stop, .completed, "without a total, the empty page falls short of nothing")
        XCTAssertEqual(even.requested, [1, 2, 3], "full pages go on to the empty one")
        let limited = Pages(total: 1000, pageSize: 10)
        limited.omitsTotal = true
        let (first, end) = try await walk(limited, limit: 15)
        XCTAssertEqual(first, Array(0..<15))
        XCTAssertEqual(end.stop, .limit)
        XCTAssertEqual(limited.requested.max(), 2, "never past the page holding the limit-th row")
    }

    func testAWrongPageSizeInTheAnswerStillDeliversEveryRowOnce() async throws {
        // The server serves 10 rows a page but its answers say 20 (it looks ahead less), or 5 (it
        // looks further, and what it asked for past the end is cancelled).
        for said in [20, 5] {
            let server = Pages(total: 40, pageSize: 10)
            server.reportedPageSize = said
            try await walkToTheEnd(server, rows: Array(0..<40), lastPage: 4, "page size \(said)")
        }
    }

    /// An empty page is judged by its place in the list: a walk that starts past page 1 and meets the
    /// honest empty page after the total, or a caller whose rows are whole pages, ends as complete; an
    /// empty page where the total still names rows ends as partial.
    func testAnEmptyPageIsJudgedByItsPlaceInTheList() async throws {
        // 2,000 rows of 10 a page: page 201 is past the end.
        @Sendable func list(_ page: Int) -> PageWalker.Answer<Int> {
            page <= 200 ? (Array((page - 1) * 10..<page * 10), 2000, page == 200, 10) : ([], 2000, true, 10)
        }
        let past = try await PageWalker.walk(first: 201, limit: nil, fetch: { list($0) }, onPage: { _, _ in true })
        XCTAssertEqual(past.stop, .completed)
        let last = try await PageWalker.walk(first: 199, limit: nil, fetch: { list($0) }, onPage: { _, _ in true })
        XCTAssertEqual(last.stop, .completed)
        XCTAssertEqual(last.progress.rows, 20)
        // Each delivered "row" a whole page of 10 (as stats walks its daily pages): 3 pages hold the total of 30.
        let whole = try await PageWalker.walk(limit: nil, fetch: { page -> PageWalker.Answer<[Int]> in
            page <= 3 ? ([Array(0..<10)], 30, false, 10) : ([], 30, true, 10)
        }, onPage: { _, _ in true })
        XCTAssertEqual(whole.stop, .completed, "an empty page after three pages of ten, total 30")
        let short = try await PageWalker.walk(limit: nil, fetch: { page -> PageWalker.Answer<[Int]> in
            page <= 2 ? ([Array(0..<10)], 30, false, 10) : ([], 30, true, 10)
        }, onPage: { _, _ in true })
        XCTAssertEqual(short.stop, .emptyBeforeTotal, "page 3 empty where the total names rows 21-30")
        // An empty first page with a total is a contradiction, whatever the page size it names.
        let none = try await PageWalker.walk(limit: nil, fetch: { _ -> PageWalker.Answer<Int> in ([], 5, true, 0) }, onPage: { _, _ in true })
        XCTAssertEqual(none.stop, .emptyBeforeTotal)
        XCTAssertEqual(PageWalker.rowsBefore(3, pageSize: 0), nil)
        XCTAssertEqual(PageWalker.rowsBefore(Int.max, pageSize: 100), Int.max)
    }

    func testTotalShrinkingMidWalkEndsIt() async throws {
        // The first answers promise 100 rows; from then on the list has 25.
        let server = Pages(total: 25, pageSize: 10)
        server.reportedTotal = 100
        // Every answer still names 100: the empty page ends the walk as short of that total.
        try await walkToTheEnd(server, rows: Array(0..<25), lastPage: 4, "the empty page ends the walk", stop: .emptyBeforeTotal)
    }

    func testCancelledWalkAsksForNothingMoreAndLeavesNothingRunning() async throws {
        // Pages that answer even when cancelled: the walk must not start new ones after the cancel,
        // and must not return while the ones in flight still run.
        let server = Pages(total: 100_000, pageSize: 10, delayMs: 40)
        server.ignoresCancellation = true
        // The cancel comes from inside the walk's own task, while it handles page 2: by then it has
        // asked for pages up to 2 + ahead at most, and it must ask for none after. (Cancelling from
        // outside and reading what was asked before would race the walk's own next request.)
        let task = Task { () throws -> WalkOutcome in
            try await PageWalker.walk(limit: nil, fetch: { try await server.fetch($0) }) { _, progress in
                if progress.pages == 2 { withUnsafeCurrentTask { $0?.cancel() } }
                return true
            }
        }
        let outcome = try await task.value
        XCTAssertEqual(outcome.stop, .cancelled)
        XCTAssertEqual(server.running, 0, "every page task finished before the walk returned")
        XCTAssertLessThanOrEqual(server.requested.max() ?? 0, 2 + PageWalker.ahead, "no page asked for after the cancel: \(server.requested)")
    }

    func testNothingFetchedPastTheLimit() async throws {
        let server = Pages(total: 1000, pageSize: 10)
        let (rows, outcome) = try await walk(server, limit: 25)
        XCTAssertEqual(rows, Array(0..<25))
        XCTAssertEqual(outcome.stop, .limit)
        XCTAssertEqual(server.requested.sorted(), [1, 2, 3])
    }

    func testUnknownPageSizeFetchesOneAhead() async throws {
        let server = Pages(total: 40, pageSize: 10)
        server.reportedPageSize = 0
        let (rows, _) = try await walk(server)
        XCTAssertEqual(rows, Array(0..<40))
        XCTAssertEqual(server.requested, [1, 2, 3, 4])
        XCTAssertEqual(server.mostInFlight, 1)
    }

    func testServerEndingEarlyStopsTheWalk() async throws {
        // The total promised 10 pages; page 4 says it is the last: the walk ends there.
        let server = Pages(total: 100, pageSize: 10)
        server.endsAt = 4
        let outcome = try await walkToTheEnd(server, rows: Array(0..<40), lastPage: 4)
        XCTAssertEqual(outcome.progress.pages, 4)
    }

    func testCallerStoppingEndsTheWalk() async throws {
        let server = Pages(total: 1000, pageSize: 10)
        var pages = 0
        let (rows, outcome) = try await walk(server) { _ in pages += 1; return pages < 3 }
        XCTAssertEqual(rows, Array(0..<30))
        XCTAssertEqual(outcome.stop, .stoppedByCaller)
    }

    func testAFailedPageIsThrownAfterTheRowsBeforeIt() async throws {
        struct Boom: Error {}
        var rows: [Int] = []
        do {
            _ = try await PageWalker.walk(limit: nil, fetch: { page -> PageWalker.Answer<Int> in
                if page == 3 { throw Boom() }
                return (Array((page - 1) * 10..<page * 10), 100, false, 10)
            }) { batch, _ in rows += batch; return true }
            XCTFail("expected the page 3 error")
        } catch is Boom {}
        XCTAssertEqual(rows, Array(0..<20))
    }
}

extension PageWalkerTests {
    /// Answers without a page size say only their list's length: a short last page's length is not the
    /// list's page size, so the walk plans with the largest seen and asks nothing past the total.
    func testAShortLastPageDoesNotShrinkThePlan() async throws {
        let server = Pages(total: 95, pageSize: 10)
        var rows: [Int] = []
        let outcome = try await PageWalker.walk(limit: nil, fetch: { page in
            let answer = try await server.fetch(page)
            // What an answer without `pageSize` reads as: its own length (`PageRule.pageSize`).
            return (answer.rows, answer.total, PageRule.isLast(count: answer.rows.count, page: page, pageSize: max(answer.rows.count, 1), total: answer.total),
                    max(answer.rows.count, 1))
        }) { batch, _ in
            rows += batch
            return true
        }
        XCTAssertEqual(rows, Array(0..<95))
        XCTAssertEqual(outcome.stop, .completed)
        XCTAssertEqual(server.requested.sorted(), Array(1...10))
    }

    /// A page with the same rows as the one before (a server that ignores the page asked for, or one
    /// that repeats its list forever) ends the walk before it is delivered.
    func testARepeatedPageEndsTheWalk() async throws {
        var delivered: [[Int]] = []
        let outcome = try await PageWalker.walk(limit: nil, same: { $0 == $1 }, fetch: { _ in
            (Array(0..<10), nil, false, 10)
        }) { rows, _ in
            delivered.append(rows)
            return true
        }
        XCTAssertEqual(outcome.stop, .repeated)
        XCTAssertEqual(delivered, [Array(0..<10)])
        XCTAssertEqual(outcome.progress.pages, 1)
    }
}
