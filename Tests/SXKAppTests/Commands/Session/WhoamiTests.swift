import Foundation
import XCTest

/// `whoami`: the session as stored, token masked, without a request.
final class WhoamiTests: XCTestCase {
    func testWhoamiShowsTheSessionWithTheTokenMasked() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "login 13800000001 --password-stdin --accept-privacy; whoami --json"], in: ws, baseURL: SharedSandbox.url,
                        stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        let token = try XCTUnwrap(ws.token())
        let who = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(who["phase"] as? String, "loggedIn", r.summary)
        XCTAssertEqual(who["userId"] as? Int, 1001)
        XCTAssertEqual(who["roleCode"] as? String, "photographer")
        XCTAssertEqual(who["phone"] as? String, "138****0001")
        XCTAssertFalse(r.stdout.contains(token), "whoami printed the whole token")
        let table = SXK.run(["whoami"], in: ws, baseURL: SharedSandbox.url)
        // The label column is as wide as its longest label.
        XCTAssertTrue(table.stdout.split(separator: "\n").contains { $0.range(of: #"^role +photographer$"#, options: .regularExpression) != nil }, table.summary)
        XCTAssertTrue(table.stdout.contains("session resets (this process)"), table.summary)
    }
}
