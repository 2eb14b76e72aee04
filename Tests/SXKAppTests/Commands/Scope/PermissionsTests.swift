import Foundation
import XCTest

/// `permissions`: the current role's permission URIs; `--all` the whole role-permission list.
final class PermissionsTests: XCTestCase {
    func testPermissionsAreTheCurrentRolesAndAllIsTheWholeList() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["permissions", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let permissions = try XCTUnwrap(try r.json() as? [[String: Any]], r.summary)
        XCTAssertEqual(permissions.count, 10, r.summary)
        XCTAssertEqual(permissions.first?["uri"] as? String, "home/order", r.summary)
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        XCTAssertEqual(who["permissionCount"] as? Int, permissions.count)
        let all = SXK.run(["permissions", "--all", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(all.status, 0, all.summary)
        let roles = try XCTUnwrap(try all.json() as? [[String: Any]], all.summary)
        XCTAssertEqual(roles.compactMap { $0.wire("roleCode") as? String }, ["photographer"], all.summary)
    }
}
