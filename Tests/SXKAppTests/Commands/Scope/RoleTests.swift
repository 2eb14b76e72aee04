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

    /// A switch the user types is written even when this process already held that role: another
    /// process may have switched since, and the disk must end as the switch said.
    func testASwitchToTheRoleHeldInMemoryIsStillWritten() throws {
        let ws = Workspace()
        let url = SharedSandbox.url
        SXK.login("13800000002", in: ws, baseURL: url)
        let live = try LiveSXK([], in: ws, baseURL: url)
        live.send("whoami --jq .roleCode\n")
        XCTAssertTrue(live.waitForStdout { $0.contains("scenicAdmin") })
        XCTAssertEqual(SXK.run(["role", "photographer"], in: ws, baseURL: url).status, 0)
        live.send("role scenicAdmin\n")
        XCTAssertEqual(live.finish(), 0)
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(who["roleCode"] as? String, "scenicAdmin", "the switch printed success and wrote nothing")
    }
}
