import Foundation
import XCTest

/// `stats`: the summary and the daily rows of the role, under the range they cover.
final class StatsTests: XCTestCase {
    func testStatsGivesTheSummaryAndDailyRowsOfTheRange() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["stats", "--from", "2026-11-01", "--to", "2026-11-07", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let stats = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(stats["role"] as? String, "photographer")
        let range = try XCTUnwrap(stats["range"] as? [String: Any])
        XCTAssertEqual(range["from"] as? String, "2026-11-01")
        XCTAssertEqual(range["to"] as? String, "2026-11-07")
        let summary = try XCTUnwrap(stats["summary"] as? [String: Any], r.summary)
        let daily = try XCTUnwrap(stats["daily"] as? [[String: Any]], r.summary)
        XCTAssertFalse(daily.isEmpty, r.summary)
        XCTAssertTrue(daily.allSatisfy { ($0.wire("date") as? String).map { $0 >= "2026-11-01" && $0 <= "2026-11-07" } == true }, r.summary)
        let counted = daily.compactMap { $0.wireInt("orderCount") }.reduce(0, +)
        XCTAssertEqual(summary.wireInt("orderCount"), counted, "the summary counts the daily rows' orders: \(r.summary)")
        let chart = SXK.run(["stats", "summary", "--chart"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(chart.status, 2, "--chart with summary is a usage error: \(chart.summary)")
    }
}
