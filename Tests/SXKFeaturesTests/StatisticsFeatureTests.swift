import Foundation
import SXKTestSupport
import XCTest
import SXKCore
import SXKAPI
import SXKSandbox
@testable import SXKFeatures

final class StatisticsFeatureTests: BothSpellingsTestCase {
    func testDateRanges() throws {
        // 2026-03-15 12:00 Shanghai.
        let now = try XCTUnwrap(WireDate.parseTimestamp("2026-03-15 12:00:00"))
        XCTAssertEqual(try DateRange.resolve(from: nil, to: nil, period: nil, now: now), DateRange(from: "2026-03-15", to: "2026-03-15"))
        XCTAssertEqual(try DateRange.resolve(from: nil, to: nil, period: .week, now: now), DateRange(from: "2026-03-09", to: "2026-03-15"))
        XCTAssertEqual(try DateRange.resolve(from: nil, to: nil, period: .month, now: now), DateRange(from: "2026-02-14", to: "2026-03-15"))
        // On the 1st a period still spans 7 / 30 days, across the month and year boundary.
        let first = try XCTUnwrap(WireDate.parseDay("2026-01-01"))
        XCTAssertEqual(try DateRange.resolve(from: nil, to: nil, period: .month, now: first), DateRange(from: "2025-12-03", to: "2026-01-01"))
        XCTAssertEqual(try DateRange.resolve(from: nil, to: nil, period: .week, now: first), DateRange(from: "2025-12-26", to: "2026-01-01"))
        XCTAssertEqual(try DateRange.resolve(from: nil, to: nil, period: .month, now: first).days.count, 30)
        XCTAssertEqual(try DateRange.resolve(from: "2026-03-01", to: "2026-03-03", period: nil, now: now).days, ["2026-03-01", "2026-03-02", "2026-03-03"])
        XCTAssertThrowsError(try DateRange.resolve(from: "2026-03-05", to: "2026-03-01", period: nil, now: now)) {
            XCTAssertEqual($0 as? FeatureError, .invalidDateRange(from: "2026-03-05", to: "2026-03-01"))
        }
        XCTAssertThrowsError(try DateRange.resolve(from: "2026-02-30", to: nil, period: nil, now: now))
        XCTAssertThrowsError(try DateRange.resolve(from: "2026-03-01", to: nil, period: .week, now: now))
    }

    func testSummaryEqualsSumOfDailyRowsPerRole() async throws {
        let h = try Harness()
        for (phone, path) in [("13800000001", "/api/yf-handset-app/photog/analyse/user"),
                              ("13800000002", "/api/app/scenic-admin/analyse"),
                              ("13800000003", "/api/app/store/analyse")] {
            _ = try await h.login(phone)
            h.sandbox.resetRequestLog()
            let range = try h.stats.range(period: .month)
            let wide = DateRange(from: WireDate.day(Date().addingTimeInterval(-80 * 86400)), to: range.to)
            // The app's first screen: the summary and the first daily page, together.
            let first = try await h.stats.load(range: wide, pageSize: 7)
            XCTAssertEqual(first.daily.pages, 1, "only the first daily page")
            XCTAssertFalse(first.daily.lastPage)
            XCTAssertEqual(Set(h.requests().map(\.path)), [path, first.endpoint.daily.path])
            XCTAssertEqual(h.requests().count, 2)
            h.sandbox.resetRequestLog()
            let report = try await h.stats.load(range: wide, pageSize: 7, allPages: true)
            XCTAssertEqual(report.endpoint.summary.path, path)
            XCTAssertGreaterThan(report.daily.pages, 1, "daily rows paged through")
            XCTAssertEqual(report.daily.rows.count, report.daily.total)
            XCTAssertGreaterThan(report.summary.value.orderCount ?? 0, 0)
            XCTAssertEqual(report.daily.rows.reduce(0) { $0 + ($1.orderCount ?? 0) }, report.summary.value.orderCount)
            XCTAssertEqual(report.daily.rows.reduce(0) { $0 + ($1.orderAmount ?? 0) }, report.summary.value.orderAmount ?? -1, accuracy: 0.01)
            let dailyRequests = h.requests(report.endpoint.daily.path)
            XCTAssertEqual(dailyRequests.count, report.daily.pages)
            XCTAssertEqual(dailyRequests.first?.queryValue("startDate"), wide.from)
            if case .scenicAdmin(let id) = report.endpoint { XCTAssertEqual(dailyRequests.first?.queryValue("scenicId"), String(id)) }
            if case .storeAdmin(let id) = report.endpoint { XCTAssertEqual(dailyRequests.first?.queryValue("storeId"), String(id)) }
        }
    }

    func testDefaultRangeIsToday() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        let range = try h.stats.range()
        XCTAssertEqual(range.from, WireDate.day(Date()))
        XCTAssertEqual(range.from, range.to)
        let report = try await h.stats.load(range: range)
        XCTAssertEqual(report.daily.rows.reduce(0) { $0 + ($1.orderCount ?? 0) }, report.summary.value.orderCount)
    }

    func testRoleNotHeld() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let range = try h.stats.range()
        await assertThrowsFeature({ try await h.stats.load(role: "photographer", range: range) }) {
            if case .roleNotHeld = $0 { return true }; return false
        }
    }

    /// `--all`: the daily pages the first answer makes known go out together (a slow server shows them
    /// in flight at once), after the first page's answer, and arrive in page order.
    func testAllDailyPagesAfterTheFirstGoTogether() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let today = try h.stats.range()
        let wide = DateRange(from: WireDate.day(Date().addingTimeInterval(-40 * 86400)), to: today.to)
        h.sandbox.setLatency(milliseconds: 40)
        defer { h.sandbox.setLatency(milliseconds: 0) }
        h.sandbox.resetRequestLog()
        let report = try await h.stats.load(range: wide, pageSize: 10, allPages: true)
        XCTAssertEqual(report.daily.rows.map(\.date), wide.days.reversed().filter { day in report.daily.rows.contains { $0.date == day } },
                       "rows not in page order")
        let pages = h.requests(report.endpoint.daily.path)
        XCTAssertEqual(pages.compactMap { Int($0.queryValue("page") ?? "") }.sorted(), Array(1...report.daily.pages))
        XCTAssertGreaterThanOrEqual(report.daily.pages, 4)
        let first = try XCTUnwrap(pages.first { $0.queryValue("page") == "1" })
        let rest = pages.filter { $0.queryValue("page") != "1" }
        XCTAssertTrue(rest.allSatisfy { $0.arrived >= (first.answered ?? .distantFuture) })
        for page in rest {
            XCTAssertTrue(rest.allSatisfy { $0.queryValue("page") == page.queryValue("page") || $0.overlaps(page) }, "daily pages not in flight together")
        }
    }

    /// Ctrl-C while a later daily page is out is said as page 1's would be: the request it cut.
    func testACancelOnALaterPageNamesTheRequest() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let today = try h.stats.range()
        let daily = try await h.stats.load(range: today).endpoint.daily.path
        let wide = DateRange(from: WireDate.day(Date().addingTimeInterval(-40 * 86400)), to: today.to)
        h.sandbox.injectFault(SandboxFault(path: daily, kind: .hang, query: "page=2"))
        defer { h.sandbox.clearFaults() }
        h.sandbox.resetRequestLog()
        let stats = try XCTUnwrap(h.stats)
        let task = Task { try await stats.daily(range: wide, pageSize: 10, allPages: true) }
        let deadline = Date().addingTimeInterval(10)
        while !h.requests(daily).contains(where: { $0.queryValue("page") == "2" }), Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("not cancelled")
        } catch let error as FeatureError {
            XCTAssertEqual("\(error)", "stats daily: GET \(daily): cancelled")
            XCTAssertTrue(error.isCancelled, "\(error)")
        }
    }

    /// `stats daily --all --limit N` reads no page past the one holding the N-th row, ahead or not.
    func testAllWithALimitReadsNoPagePastIt() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let today = try h.stats.range()
        let daily = try await h.stats.load(range: today).endpoint.daily.path
        let wide = DateRange(from: WireDate.day(Date().addingTimeInterval(-60 * 86400)), to: today.to)
        let stats = try XCTUnwrap(h.stats)
        h.sandbox.resetRequestLog()
        let all = try await stats.daily(range: wide, pageSize: 10, allPages: true)
        XCTAssertGreaterThanOrEqual(all.pages, 5)
        for (limit, pages) in [(15, 2), (10, 1), (5, 1)] {
            h.sandbox.resetRequestLog()
            let some = try await stats.daily(range: wide, pageSize: 10, allPages: true, limit: limit)
            XCTAssertEqual(some.pages, pages, "--limit \(limit)")
            XCTAssertEqual(Array(some.rows.map(\.date).prefix(limit)), Array(all.rows.map(\.date).prefix(limit)))
            XCTAssertTrue(some.limited, "--limit \(limit)")
            XCTAssertNil(some.cut)
            XCTAssertEqual(Set(h.requests(daily).compactMap { $0.queryValue("page") }), Set((1...pages).map(String.init)), "--limit \(limit)")
        }
    }
}
