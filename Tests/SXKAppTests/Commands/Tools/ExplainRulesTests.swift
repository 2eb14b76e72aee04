import Foundation
import XCTest

/// `explain rules`: the app model's rules registry as a table and as JSON, with its count.
final class ExplainRulesTests: XCTestCase {
    func testExplainRulesListsEveryRuleWithItsFunctionAndBasis() throws {
        let ws = Workspace()
        let table = SXK.run(["explain", "rules"], in: ws, baseURL: nil)
        XCTAssertEqual(table.status, 0, table.summary)
        XCTAssertTrue(table.stdout.contains("AppModel.completeLogin"), table.summary)
        XCTAssertTrue(table.stdout.contains("AppModel.statsFirstScreen"), table.summary)
        let json = try XCTUnwrap(try SXK.run(["explain", "rules", "--json"], in: ws, baseURL: nil).json() as? [[String: Any]])
        let documented = json.filter { $0["basis"] as? String == "documented" }
        let inferred = json.filter { $0["basis"] as? String == "inferred" }
        XCTAssertEqual(documented.count + inferred.count, json.count)
        XCTAssertTrue(documented.allSatisfy { ($0["source"] as? String ?? "").hasPrefix("seed 00") }, "\(documented)")
        XCTAssertTrue(inferred.allSatisfy { ($0["source"] as? String ?? "").hasPrefix("docs/app-behaviour.md#") }, "\(inferred)")
        // The count goes to stderr, the table alone to stdout.
        XCTAssertTrue(table.stderr.contains("\(json.count) rules: \(documented.count) documented, \(inferred.count) inferred"), table.summary)
        let logout = try XCTUnwrap(json.first { $0["function"] as? String == "AppModel.logout" })
        XCTAssertEqual(logout["source"] as? String, "seed 001 登录和退出")
        XCTAssertTrue((logout["keys"] as? [String] ?? []).contains("key_in_token"))
        // The inferred rules that decide the location dialog and the offline replay are entries too,
        // as the views that cite them say: each cited source has its rule listed.
        let whats = json.compactMap { $0["what"] as? String ?? $0["rule"] as? String }.joined(separator: "\n")
        for phrase in ["0 or less count as not set", "staff_id is the stored user id", "no stored user id: no location detail call",
                       "stands in for the forced load's answer", "ahead of the clock"] {
            XCTAssertTrue(whats.contains(phrase), "\(phrase) missing from: \(whats)")
        }
    }
}
