import Foundation
import XCTest

/// `explain`: the stored values and rules behind a verdict, each step with the key it read and its basis.
final class ExplainTests: XCTestCase {
    func testExplainScopeNamesTheKeysItReadWithTheirBasis() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let before = ws.read(ws.defaultsFile)
        let r = SXK.run(["explain", "scope", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let explained = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(explained["subject"] as? String, "scope")
        XCTAssertTrue((explained["verdict"] as? String)?.hasPrefix("account scope 1001_scenic, role photographer, scenic 1") == true, r.summary)
        let steps = try XCTUnwrap(explained["steps"] as? [[String: Any]], r.summary)
        XCTAssertEqual(steps.first?["key"] as? String, "key_in_user_id", r.summary)
        XCTAssertTrue(steps.allSatisfy { ["documented", "inferred"].contains($0["basis"] as? String ?? "") }, r.summary)
        XCTAssertEqual(ws.read(ws.defaultsFile), before, "explain wrote the profile")
    }
}
