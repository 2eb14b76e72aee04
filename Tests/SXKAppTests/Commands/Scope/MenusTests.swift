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
        // A URI that is no visible menu, or not a common one, is a value that cannot be used (2).
        for words in [["add", "home/nope"], ["remove", "home/album"]] {
            let refused = SXK.run(["menus", "common"] + words, in: ws, baseURL: SharedSandbox.url)
            XCTAssertEqual(refused.status, 2, refused.summary)
            XCTAssertEqual(refused.errorLines.count, 1, refused.summary)
        }
    }
}

extension MenusTests {
    /// Listing the common menus of a role that has none stored shows the default the app's home would
    /// write, and writes nothing.
    func testListingCommonMenusWritesNothing() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(SXK.run(["role", "photographer"], in: ws, baseURL: SharedSandbox.url).status, 0)
        let before = ws.read(ws.defaultsFile)
        let listed = SXK.run(["menus", "common", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(listed.status, 0, listed.summary)
        let data = try XCTUnwrap(try listed.json() as? [String: Any], listed.summary)
        XCTAssertEqual(data["defaulted"] as? Bool, true, listed.summary)
        XCTAssertFalse((data["uris"] as? [String] ?? []).isEmpty, listed.summary)
        XCTAssertTrue(listed.stderr.contains("not stored by this listing"), listed.summary)
        XCTAssertEqual(ws.read(ws.defaultsFile), before, "listing wrote the profile")
    }

    /// No role stored: the listing is the role the next home takes (the first entry's), as `home`
    /// and `boot` say, with a note; adding one still needs a role.
    func testCommonMenusWithoutAStoredRoleAreTheNextHomesRoles() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let stored = try XCTUnwrap(try SXK.run(["menus", "common", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        try ws.setStored("key_in_role_code", NSNull())
        let before = ws.read(ws.defaultsFile)
        let listed = SXK.run(["menus", "common", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(listed.status, 0, listed.summary)
        let data = try XCTUnwrap(try listed.json() as? [String: Any], listed.summary)
        XCTAssertEqual(data["key"] as? String, stored["key"] as? String, listed.summary)
        XCTAssertEqual(data["uris"] as? [String], stored["uris"] as? [String], listed.summary)
        XCTAssertTrue(listed.stderr.contains("no role stored: the next home's permission load takes the first entry's"), listed.summary)
        XCTAssertEqual(ws.read(ws.defaultsFile), before, "listing wrote the profile")
        let refused = SXK.run(["menus", "common", "add", "home/album"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(refused.status, 1, refused.summary)
        XCTAssertEqual(refused.errorLines.count, 1, refused.summary)
        XCTAssertTrue(refused.stderr.contains("lists the role the next home takes, photographer"), refused.summary)
        XCTAssertTrue(refused.stderr.contains("`role photographer`"), refused.summary)
        XCTAssertEqual(SXK.run(["menus", "common", "remove", "home/order"], in: ws, baseURL: SharedSandbox.url).status, 1)
        XCTAssertEqual(ws.read(ws.defaultsFile), before, "a refused change wrote the profile")
        // Tab offers nothing that add and remove refuse.
        for sub in ["add", "remove"] {
            XCTAssertEqual(SXK.run(["__complete", "menus", "common", sub, ""], in: ws, baseURL: SharedSandbox.url).stdout, "", sub)
        }
    }

    /// A stored role the role-permission list lacks: the next home's load leaves it no permissions, so
    /// the listing, `add` and `remove` agree on one basis (no common menus, nothing to add or remove),
    /// and nothing is written; `menus` still shows the stored permissions, with the note why.
    func testARoleTheListLacksHasOneCommonMenuBasis() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        try ws.setStored("key_in_role_code", "ghost")
        let before = ws.read(ws.defaultsFile)
        let listed = SXK.run(["menus", "common", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(listed.status, 0, listed.summary)
        let data = try XCTUnwrap(try listed.json() as? [String: Any], listed.summary)
        XCTAssertEqual(data["uris"] as? [String], [], listed.summary)
        XCTAssertTrue(listed.stderr.contains("no common menus for role ghost"), listed.summary)
        for words in [["add", "home/order"], ["add", "home/album"]] {
            let r = SXK.run(["menus", "common"] + words, in: ws, baseURL: SharedSandbox.url)
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertTrue(r.stderr.contains("the next home's load leaves role ghost without it"), r.summary)
            XCTAssertFalse(r.stderr.contains("already"), r.summary)
        }
        let removed = SXK.run(["menus", "common", "remove", "home/order"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(removed.status, 2, removed.summary)
        XCTAssertTrue(removed.stderr.contains("is not among the common menus"), removed.summary)
        XCTAssertEqual(ws.read(ws.defaultsFile), before, "a refused change wrote the profile")
        let menus = SXK.run(["menus"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertTrue(menus.stdout.contains("home/order"), menus.summary)
        XCTAssertTrue(menus.stderr.contains("role ghost has no entry"), menus.summary)
        // Tab offers what add and remove take: nothing here.
        for sub in ["add", "remove"] {
            let r = SXK.run(["__complete", "menus", "common", sub, ""], in: ws, baseURL: SharedSandbox.url)
            XCTAssertEqual(r.stdout, "", "\(sub): \(r.summary)")
        }
    }

    /// Tab after `menus common add` offers the visible menus not listed yet, and after `remove` the
    /// listed ones, the default the home would write included (no record stored yet).
    func testCompletionOffersWhatAddAndRemoveTake() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(SXK.run(["role", "photographer"], in: ws, baseURL: SharedSandbox.url).status, 0)
        let listed = try XCTUnwrap(try SXK.run(["menus", "common", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        let uris = try XCTUnwrap(listed["uris"] as? [String])
        XCTAssertFalse(uris.isEmpty)
        let visible = try XCTUnwrap(try SXK.run(["menus", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [[String: Any]]).compactMap { $0["uri"] as? String }
        func offered(_ sub: String) -> [String] {
            SXK.run(["__complete", "menus", "common", sub, ""], in: ws, baseURL: SharedSandbox.url).stdout
                .split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        }
        XCTAssertEqual(offered("remove"), uris)
        XCTAssertEqual(offered("add"), visible.filter { !uris.contains($0) })
    }
}
