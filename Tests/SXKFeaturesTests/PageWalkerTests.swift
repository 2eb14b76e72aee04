import Foundation
import XCTest
@testable import SXKFeatures

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
        private let lock = NSLock()
        private var asked: [Int] = []
        private var inFlight = 0
        private(set) var mostInFlight = 0

        init(total: Int, pageSize: Int, delayMs: UInt64 = 2) { self.total = total; self.pageSize = pageSize; self.delayMs = delayMs }

        var requested: [Int] { lock.withLock { asked } }

        func fetch(_ page: Int) async throws -> PageWalker.Answer<Int> {
            lock.withLock { asked.append(page); inFlight += 1; mostInFlight = max(mostInFlight, inFlight) }
            defer { lock.withLock { inFlight -= 1 } }
            try await Task.sleep(nanoseconds: delayMs * 1_000_000)
            let first = (page - 1) * pageSize
            var rows = Array(first..<min(first + pageSize, total))
            var isLast = page * pageSize >= total
            if let endsAt, page >= endsAt { isLast = true; if page > endsAt { rows = [] } }
            return (rows, total, isLast, reportedPageSize ?? pageSize)
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
        let server = Pages(total: 50, pageSize: 100)
        let (rows, outcome) = try await walk(server)
        XCTAssertEqual(rows.count, 50)
        XCTAssertEqual(outcome.stop, .completed)
        XCTAssertEqual(server.requested, [1])
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
        let (rows, outcome) = try await walk(server)
        XCTAssertEqual(rows, Array(0..<40))
        XCTAssertEqual(outcome.stop, .completed)
        XCTAssertEqual(outcome.progress.pages, 4)
        XCTAssertLessThanOrEqual(server.requested.max() ?? 0, 4 + PageWalker.ahead)
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
