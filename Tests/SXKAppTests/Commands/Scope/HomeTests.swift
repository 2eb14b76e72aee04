import Foundation
import XCTest

/// `home`: the home's first appearance replayed on a copy of the stored state; nothing is written
/// without `--apply`.
final class HomeTests: XCTestCase {
    func testHomeReplaysTheStepsInOrderAndWritesNothing() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let before = ws.read(ws.defaultsFile)
        let r = SXK.run(["home", "--offline", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let replay = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        let steps = try XCTUnwrap(replay["steps"] as? [[String: Any]], r.summary)
        XCTAssertEqual(steps.first?["name"] as? String, "locationStateStore.restoreStateIfNeeded()", r.summary)
        XCTAssertTrue(steps.contains { ($0["name"] as? String)?.hasPrefix("evaluateDialogs") == true }, r.summary)
        XCTAssertEqual(replay["applied"] as? Bool, false, r.summary)
        XCTAssertTrue(replay["dialog"] is NSNull, "a logged-in photographer with a scenic gets no dialog: \(r.summary)")
        XCTAssertEqual(ws.read(ws.defaultsFile), before, "home without --apply wrote the profile")
    }
}
