import Foundation
import XCTest

/// `role`: the login's roles, the current one marked; switching to a role the account lacks is refused.
final class RoleTests: XCTestCase {
    func testRoleListsTheRolesAndRefusesOneNotHeld() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["role", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let roles = try XCTUnwrap(try r.json() as? [[String: Any]], r.summary)
        XCTAssertEqual(roles.map { $0["roleCode"] as? String }, ["photographer"], r.summary)
        XCTAssertEqual(roles.first?["current"] as? Bool, true, r.summary)
        let refused = SXK.run(["role", "storeAdmin"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertNotEqual(refused.status, 0, refused.summary)
        XCTAssertEqual(refused.errorLines.count, 1, refused.summary)
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        XCTAssertEqual(who["roleCode"] as? String, "photographer", "a refused switch changed the role")
    }
}
