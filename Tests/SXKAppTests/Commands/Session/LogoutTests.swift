import Foundation
import XCTest

/// `logout`: the token and the account context go; the last phone and the privacy choice stay.
final class LogoutTests: XCTestCase {
    func testLogoutClearsTheSessionAndKeepsTheLastPhone() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        XCTAssertNotNil(ws.token())
        let r = SXK.run(["logout"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("logged out"), r.summary)
        XCTAssertEqual(r.stdout, "", r.summary)
        XCTAssertNil(ws.token(), "the token file is still there")
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        XCTAssertEqual(who["phase"] as? String, "loggedOut")
        let keys = try XCTUnwrap(try SXK.run(["keys", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        XCTAssertEqual(keys["key_last_login_username"] as? String, "13800000001", "\(keys)")
        XCTAssertNil(keys["key_in_user_id"], "\(keys)")
    }
}
