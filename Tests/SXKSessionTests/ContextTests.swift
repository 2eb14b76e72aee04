import Foundation
import XCTest
import SXKCore
import SXKModels
@testable import SXKSession
import SXKFeatures

final class ContextTests: XCTestCase {
    func testSelectRoleReDerivesPermissionsAndScenicList() {
        let permission = PermissionContext()
        permission.setCurrentRole(code: "photographer", name: nil)
        var d = AppModel.loadPermissions(Demo.roles, into: permission)
        XCTAssertTrue(d.exactMatch)
        XCTAssertEqual(d.matched?.roleCode, "photographer")
        XCTAssertEqual(permission.current.permissionURIs, ["photog/orders"])
        XCTAssertEqual(permission.current.scenicList, [Demo.xihu])
        XCTAssertEqual(permission.current.roleName, "摄影师")

        d = AppModel.selectRole("scenicAdmin", in: permission)
        XCTAssertTrue(d.exactMatch)
        XCTAssertEqual(permission.current.roleCode, "scenicAdmin")
        XCTAssertEqual(permission.current.roleName, "景区管理员")
        XCTAssertEqual(permission.permissionURIs, ["orders/list", "stats/scenic", "staff/manage"])
        XCTAssertEqual(permission.current.scenicList, [Demo.xihu, Demo.lingyin])
    }

    /// No entry for the current role: no permissions and a stated reason, never another role's data.
    func testUnknownRoleGetsNoPermissionsAndAReason() {
        let permission = PermissionContext()
        permission.setCurrentRole(code: "storeAdmin", name: "门店管理员")
        let d = AppModel.loadPermissions(Demo.roles, into: permission)
        XCTAssertFalse(d.exactMatch)
        XCTAssertNil(d.matched)
        XCTAssertTrue(d.reason?.contains("role storeAdmin has no entry") ?? false, d.reason ?? "")
        XCTAssertEqual(permission.current.roleCode, "storeAdmin", "the account's role code is kept")
        XCTAssertEqual(permission.current.roleName, "门店管理员")
        XCTAssertEqual(permission.current.permissions.count, 0)
        XCTAssertEqual(permission.current.scenicList.count, 0)

        let empty = PermissionContext()
        let none = AppModel.loadPermissions(Demo.roles, into: empty)
        XCTAssertEqual(empty.current.roleCode, "scenicAdmin", "no role yet → the first entry's")
        XCTAssertFalse(none.exactMatch)
        XCTAssertEqual(AppModel.loadPermissions([], into: empty).matched, nil)
        XCTAssertEqual(empty.current.permissions, [])
    }

    /// An entry without `roleName` has no name: the permission load keeps the stored role name (it does
    /// not write the role code as one), and the list re-encodes without a name, as the server sent it.
    func testAnEntryWithoutARoleNameKeepsTheStoredName() throws {
        let answer = try JSONParser.parse(#"[{"roleCode":"scenicAdmin","scenicList":[],"permissions":[{"uri":"orders/list"}]}]"#)
        let roles = try RolePermission.list(json: answer)
        XCTAssertEqual(roles.first?.roleName, "")
        XCTAssertNil(roles.first?.json.objectValue?["roleName"], "no name is invented on re-encoding")

        let permission = PermissionContext()
        permission.setCurrentRole(code: "scenicAdmin", name: "景区管理员")
        XCTAssertTrue(AppModel.loadPermissions(roles, into: permission).exactMatch)
        XCTAssertEqual(permission.current.roleName, "景区管理员")

        let fresh = PermissionContext()
        AppModel.loadPermissions(roles, into: fresh)
        XCTAssertEqual(fresh.current.roleCode, "scenicAdmin")
        XCTAssertNil(fresh.current.roleName, "the first entry's code is not its name")
    }

    func testSessionPhasesAndReset() {
        let session = AppSession()
        XCTAssertEqual(session.phase, .loggedOut)
        session.beginRestoring(token: Demo.token)
        XCTAssertEqual(session.current, AppSession.State(phase: .restoring, token: Demo.token, offline: false))
        session.setOffline(true)
        XCTAssertTrue(session.isOffline)
        session.logIn(token: Demo.token)
        XCTAssertEqual(session.phase, .loggedIn)
        XCTAssertFalse(session.isOffline)
        session.reset()
        XCTAssertEqual(session.current, AppSession.State(phase: .loggedOut, token: nil, offline: false))
    }

    func testAccountContextApplyAndReset() {
        let account = AccountContext()
        account.apply(Demo.storeAdmin)
        account.setStores([
            Store(storeId: 101, storeName: "断桥摄影店", scenicId: 1), Store(storeId: 201, storeName: "灵隐禅心摄影", scenicId: 2),
        ])
        XCTAssertEqual(account.accountCachePrefix, "3001_store")
        account.applyUserInfo(UserInfo(userName: "u", realName: "r"))
        XCTAssertEqual(account.current.userName, "u")
        XCTAssertEqual(account.current.displayName, "断桥摄影店")
        account.reset()
        XCTAssertEqual(account.current, AccountContext.State())
        XCTAssertEqual(account.accountCachePrefix, "guest")
    }

    func testContextsRoundTripThroughSnapshot() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let store = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        let account = AccountContext()
        let permission = PermissionContext()
        account.apply(Demo.photographer)
        account.setStores([Store(storeId: 101, storeName: "断桥摄影店", scenicId: 1)])
        permission.setCurrentRole(code: "photographer", name: "摄影师")
        AppModel.loadPermissions(Demo.roles, into: permission)
        AppModel.selectRole("scenicAdmin", in: permission)
        account.setScenic(id: 2, name: "灵隐寺")
        try store.persistContexts(account: account, permission: permission)

        let reopened = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        let account2 = AccountContext()
        let permission2 = PermissionContext()
        XCTAssertTrue(reopened.restoreContexts(account: account2, permission: permission2))
        var expected = account.current
        expected.stores = []
        XCTAssertEqual(account2.current, expected, "the store list is memory only")
        XCTAssertEqual(permission2.current, permission.current)
        XCTAssertEqual(reopened.defaults["1001_scenic_key_in_permission"]?.arrayValue?.count, 3)

        try reopened.clearAccountSnapshot()
        XCTAssertFalse(reopened.restoreContexts(account: account2, permission: permission2))
        XCTAssertEqual(account2.current, AccountContext.State())
        XCTAssertEqual(permission2.current, PermissionContext.State())
    }

    func testContextsAreSafeAcrossThreads() {
        let permission = PermissionContext()
        AppModel.loadPermissions(Demo.roles, into: permission)
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            if i % 2 == 0 {
                AppModel.selectRole(i % 4 == 0 ? "photographer" : "scenicAdmin", in: permission)
            } else {
                let state = permission.current
                let expected = state.role(state.roleCode ?? "")?.permissions
                XCTAssertEqual(state.permissions, expected)
            }
        }
    }
}
