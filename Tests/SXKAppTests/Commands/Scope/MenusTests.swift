import Foundation
import XCTest

/// `menus`: the home menus the permissions show; `menus common add|remove URI` edits the common menus.
final class MenusTests: XCTestCase {
    func testMenusFollowThePermissionsAndCommonMenusCanBeEdited() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["menus", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let menus = try XCTUnwrap(try r.json() as? [[String: Any]], r.summary)
        let permissions = try XCTUnwrap(try SXK.run(["permissions", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [[String: Any]])
        XCTAssertEqual(menus.map { $0["uri"] as? String }, permissions.map { $0["uri"] as? String }, r.summary)
        let key = "1001_scenic_role_photographer_common_uris"
        func common() throws -> [String] {
            let keys = try XCTUnwrap(try SXK.run(["keys", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
            return keys[key] as? [String] ?? []
        }
        XCTAssertFalse(try common().contains("home/album"))
        let added = SXK.run(["menus", "common", "add", "home/album"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(added.status, 0, added.summary)
        XCTAssertTrue(try common().contains("home/album"), added.summary)
        let removed = SXK.run(["menus", "common", "remove", "home/album"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(removed.status, 0, removed.summary)
        XCTAssertFalse(try common().contains("home/album"), removed.summary)
    }
}
