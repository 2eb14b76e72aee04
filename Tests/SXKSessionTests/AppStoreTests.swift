import Foundation
import XCTest
import SXKCore
import SXKModels
@testable import SXKSession
import SXKFeatures

final class AppStoreTests: XCTestCase {
    func testKeyNamesExactly() {
        XCTAssertEqual(StoreKey.nonScoped, [
            "key_in_token", "key_last_login_username", "key_privacy_agreement_accepted", "key_in_user_id",
            "key_in_user_name", "key_in_real_name", "key_in_avatar", "key_in_phone", "key_in_account_type",
            "key_in_account_display_name", "key_in_role_code", "key_in_role_name", "key_in_current_scenic_id",
            "key_in_current_scenic_name", "key_in_current_store_id",
        ])
        XCTAssertEqual(StoreKey.scoped, [
            "key_in_role_id", "key_role_permission_list", "key_in_permission", "key_current_role_scenic_list",
            "key_online_status", "key_last_location_report_time", "key_location_reminder_minutes",
            "key_is_open_receive_voice",
        ])
        XCTAssertEqual(StoreKey.accountCachePrefix(userId: 5001, accountType: "store"), "5001_store")
        XCTAssertEqual(StoreKey.accountCachePrefix(userId: nil, accountType: "store"), "guest")
        XCTAssertEqual(StoreKey.scoped(StoreKey.permission, prefix: "5001_store"), "5001_store_key_in_permission")
        XCTAssertEqual(StoreKey.commonMenuURIs(prefix: "1001_scenic", roleCode: "photographer"), "1001_scenic_role_photographer_common_uris")
        XCTAssertEqual(StoreKey.kind(of: "5001_store_key_in_permission"), .scoped(prefix: "5001_store", name: "key_in_permission"))
        XCTAssertEqual(StoreKey.kind(of: "guest_key_online_status"), .scoped(prefix: "guest", name: "key_online_status"))
        XCTAssertEqual(StoreKey.kind(of: "1001_scenic_role_photographer_common_uris"), .commonMenus(prefix: "1001_scenic", roleCode: "photographer"))
        XCTAssertEqual(StoreKey.kind(of: "key_in_permission"), .unknown)
        XCTAssertEqual(StoreKey.kind(of: "AppleLanguages"), .unknown)
    }

    func testSaveLoginWritesSeedKeysAndTokenOnlyInTokenFile() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let clock = FixedClock(Date(timeIntervalSince1970: 1_760_000_000))
        let storage = try ProfileStorage(paths: paths, warn: { _ in }, clock: clock)
        try storage.appStore.saveLogin(token: Demo.token, account: Demo.storeAdmin, phone: "13800000003", privacyAccepted: true)

        let onDisk = try XCTUnwrap(readText(paths.defaultsFile))
        XCTAssertFalse(onDisk.contains(Demo.token), "the token never goes into defaults.json")
        XCTAssertEqual(readText(paths.tokenFile), Demo.token + "\n")

        let store = try ProfileStorage(paths: paths, warn: { _ in }, clock: clock).appStore
        XCTAssertEqual(try store.token(), Demo.token)
        XCTAssertEqual(store.lastLoginUsername, "13800000003")
        XCTAssertTrue(store.privacyAgreementAccepted)
        XCTAssertEqual(store.userId, 3001)
        XCTAssertEqual(store.accountType, "store")
        XCTAssertEqual(store.accountDisplayName, "断桥摄影店")
        XCTAssertEqual(store.userName, "store3001")
        XCTAssertEqual(store.phone, "13800000003")
        XCTAssertEqual(store.roleCode, "storeAdmin")
        XCTAssertEqual(store.roleName, "门店管理员")
        XCTAssertEqual(store.currentScenicId, 1)
        XCTAssertEqual(store.currentScenicName, "西湖景区")
        XCTAssertEqual(store.currentStoreId, 101)
        XCTAssertEqual(store.accountCachePrefix, "3001_store")
        XCTAssertEqual(store.snapshotSavedAt, clock.now())

        let object = try JSONParser.parse(onDisk).objectValue!
        XCTAssertEqual(object["key_in_user_id"], .int(3001))
        XCTAssertEqual(object["key_privacy_agreement_accepted"], .bool(true))
        XCTAssertEqual(object["key_in_current_store_id"], .int(101))
    }

    func testScopedListsUseAccountPrefix() throws {
        let dir = makeTempDir(self)
        let storage = try ProfileStorage(paths: try makePaths(dir), warn: { _ in })
        let store = storage.appStore
        try store.saveRolePermissionList(Demo.roles)
        XCTAssertNotNil(storage.defaults["guest_key_role_permission_list"], "no user id → guest scope")
        try store.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        try store.saveRolePermissionList(Demo.roles)
        try store.savePermissionItems(Demo.roles[1].permissions)
        try store.saveRoleScenicList(Demo.roles[1].scenicList)
        XCTAssertNotNil(storage.defaults["1001_scenic_key_role_permission_list"])
        XCTAssertNotNil(storage.defaults["1001_scenic_key_in_permission"])
        XCTAssertNotNil(storage.defaults["1001_scenic_key_current_role_scenic_list"])
        let reopened = try ProfileStorage(paths: try makePaths(dir), warn: { _ in }).appStore
        XCTAssertEqual(reopened.rolePermissionList(), Demo.roles)
        XCTAssertEqual(reopened.permissionItems(), Demo.roles[1].permissions)
        XCTAssertEqual(reopened.roleScenicList(), [Demo.xihu])
    }

    func testApplyUserInfoRoleNameOnlyWhenEmpty() throws {
        let dir = makeTempDir(self)
        let store = try ProfileStorage(paths: try makePaths(dir), warn: { _ in }).appStore
        try store.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        try store.applyUserInfo(UserInfo(userName: "新名字", realName: "李四", avatar: "https://a/b.png", phone: "13800000009", roleName: "别的角色"))
        XCTAssertEqual(store.userName, "新名字")
        XCTAssertEqual(store.realName, "李四")
        XCTAssertEqual(store.avatar, "https://a/b.png")
        XCTAssertEqual(store.phone, "13800000009")
        XCTAssertEqual(store.roleName, "摄影师", "a local role name is kept")
        try store.setRoleName("")
        try store.applyUserInfo(UserInfo(roleName: "别的角色"))
        XCTAssertEqual(store.roleName, "别的角色", "an empty local role name is filled")
        XCTAssertEqual(store.userName, "新名字", "absent fields are left alone")
        try store.setRoleName("摄影师")
        XCTAssertEqual(store.roleName, "摄影师")
    }

    func testLogoutKeepsLastPhoneAndPrivacyAndScopedKeys() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let store = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        try store.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        try store.saveRolePermissionList(Demo.roles)
        try store.setCommonMenuURIs(["photog/orders"], roleCode: "photographer")
        try store.clearAccountSnapshot()

        let after = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        XCTAssertNil(try after.token())
        XCTAssertFalse(exists(paths.tokenFile))
        XCTAssertEqual(after.lastLoginUsername, "13800000001")
        XCTAssertTrue(after.privacyAgreementAccepted)
        for key in StoreKey.accountSnapshot { XCTAssertNil(after.defaults[key], key) }
        XCTAssertFalse(after.hasAccountSnapshot)
        XCTAssertEqual(after.accountCachePrefix, "guest")
        XCTAssertNotNil(after.defaults["1001_scenic_key_role_permission_list"])
        XCTAssertNotNil(after.defaults["1001_scenic_role_photographer_common_uris"])
    }

    func testAllKeysOrderAndMaskedToken() throws {
        let dir = makeTempDir(self)
        let storage = try ProfileStorage(paths: try makePaths(dir), warn: { _ in })
        let store = storage.appStore
        try store.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        try store.setCommonMenuURIs(["photog/orders"], roleCode: "photographer")
        try store.setOnlineStatus(true)
        try store.saveRolePermissionList(Demo.roles)
        storage.defaults.set("some_other_key", .string("x"))
        try storage.defaults.save()

        let entries = store.allKeys()
        let keys = entries.map(\.key)
        XCTAssertEqual(keys, [
            "key_in_token", "key_last_login_username", "key_privacy_agreement_accepted", "key_in_user_id",
            "key_in_user_name", "key_in_real_name", "key_in_phone", "key_in_account_type",
            "key_in_account_display_name", "key_in_role_code", "key_in_role_name", "key_in_current_scenic_id",
            "key_in_current_scenic_name",
            "1001_scenic_key_role_permission_list", "1001_scenic_key_online_status",
            "1001_scenic_role_photographer_common_uris", "some_other_key",
        ])
        XCTAssertEqual(entries[0].value, .string(Redaction.maskToken(Demo.token)))
        XCTAssertTrue(entries[0].masked)
        XCTAssertFalse(entries.contains { JSONWriter.string($0.value).contains(Demo.token) })
    }
}

extension AppStoreTests {
    /// sxk's own per-account bookkeeping (what `role -` goes back to) is sxk's, not an unmodelled key
    /// of the app's: `keys` leaves it out, `keys --all` shows it, a replay's diff skips it.
    func testScopedSxkKeysAreSxksOwn() {
        XCTAssertEqual(StoreKey.kind(of: "5001_store_sxk_previous_role"), .sxk)
        XCTAssertEqual(StoreKey.kind(of: "guest_sxk_previous_scenic"), .sxk)
        XCTAssertEqual(StoreKey.kind(of: "5001_store_queue_voice"), .scopedUnmodelled(prefix: "5001_store", name: "queue_voice"))
        XCTAssertEqual(StoreKey.kind(of: "sxk_imported_from"), .sxk)
    }
}

/// What a failed switch puts back: the switch's keys as memory held them, pending only where they were.
final class ScopeStateTests: XCTestCase {
    func testRestoreScopePutsBackValuesAndWhatWasPending() throws {
        let dir = makeTempDir(self)
        let store = try ProfileStorage(paths: try makePaths(dir), warn: { _ in }).appStore
        try store.setRole(code: "photographer", name: nil)
        try store.setCurrentScenic(id: 3, name: nil)
        store.defaults.set("key_in_current_store_id", .int(301))
        let before = store.scopeState()
        store.defaults.set("key_in_role_code", .string("scenicAdmin"))
        store.defaults.set("key_in_current_scenic_id", .int(1))
        store.defaults.set("key_in_current_store_id", nil)
        store.stagePrevious(.store, "301")
        store.restoreScope(before)
        XCTAssertNil(store.previous(.store), "what `-` goes back to is put back too")
        XCTAssertEqual(store.defaults["key_in_role_code"], .string("photographer"))
        XCTAssertEqual(store.defaults["key_in_current_scenic_id"], .int(3))
        XCTAssertEqual(store.defaults["key_in_current_store_id"], .int(301))
        XCTAssertFalse(store.defaults.isPending("key_in_role_code"), "pending only where it was")
        XCTAssertFalse(store.defaults.isPending("key_in_current_scenic_id"))
        XCTAssertTrue(store.defaults.isPending("key_in_current_store_id"))
    }
}
