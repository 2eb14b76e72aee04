import Foundation
import SXKTestSupport
import XCTest
import SXKCore
import SXKAPI
import SXKSession
@testable import SXKFeatures

/// Replays that change nothing unless asked, verdicts with their basis, explain, context diff and
/// account switches across processes (docs/app-behaviour.md).
final class ContextDebugTests: BothSpellingsTestCase {
    /// A device export for store manager 3001: a saved store that matches nothing and a scenic
    /// outside the role's list, with the session's real token so the replay's calls are made.
    private func importCraftedExport(_ h: Harness) throws -> [UInt8] {
        _ = try XCTUnwrap(try h.storage.appStore.token())
        let token = try XCTUnwrap(try h.storage.appStore.token())
        let export: JSONValue = [
            "key_in_token": .string(token), "key_in_user_id": .int(3001), "key_in_account_type": .string("store"),
            "key_in_role_code": .string("storeAdmin"), "key_in_role_name": .string("门店管理员"),
            "key_in_current_scenic_id": .int(3), "key_in_current_scenic_name": .string("千岛湖"),
            "key_in_current_store_id": .int(999),
            "3001_store_key_role_permission_list": .array([[
                "roleCode": "storeAdmin", "roleName": "门店管理员",
                "scenicList": .array([["scenicId": 1, "scenicName": "西湖景区"]]),
                "permissions": .array([["uri": "/store/order", "name": "门店订单"]]),
            ]]),
            "3001_store_key_in_permission": .array([["uri": "/store/order", "name": "门店订单"]]),
            "3001_store_key_current_role_scenic_list": .array([["scenicId": 1, "scenicName": "西湖景区"]]),
        ]
        let path = h.stateDir + "/export.json"
        try Data(JSONWriter.bytes(export)).write(to: URL(fileURLWithPath: path))
        _ = try DefaultsImporter().importFile(path, into: h.storage.appStore)
        // A fresh process over the imported profile: restore only, no validation.
        try h.open()
        _ = try h.bootstrapper.restore()
        return try XCTUnwrap(FileManager.default.contents(atPath: h.storage.defaults.path).map { [UInt8]($0) })
    }

    func testImportedStateIsByteIdenticalAfterReplayAndApplyWritesExactlyTheDiff() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let imported = try importCraftedExport(h)
        h.sandbox.resetRequestLog()
        let trace = try await h.home.initializeReplay()
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.defaults.path).map { [UInt8]($0) }, imported, "the replay wrote")
        XCTAssertEqual(trace.calls.map(\.path), ["/api/yf-handset-app/role-permission", "/api/app/store/all"])
        XCTAssertTrue(trace.calls.allSatisfy(\.made))
        XCTAssertFalse(trace.changes.contains { $0.key == "key_in_current_store_id" }, "store 999 matches nothing: not rewritten")
        XCTAssertFalse(trace.changes.contains { $0.key == "key_in_current_scenic_id" }, "scenic 3 is valid: kept")
        XCTAssertTrue(trace.changes.contains { $0.key == "3001_store_role_storeAdmin_common_uris" })
        for step in trace.steps {
            let basis = step.json.objectValue?["basis"]?.stringValue
            XCTAssertTrue(basis == "documented" || basis == "inferred", step.name)
            XCTAssertNotNil(step.json.objectValue?["source"]?.stringValue, step.name)
        }
        for check in trace.checks { XCTAssertNotNil(check.json.objectValue?["basis"], check.dialog.rawValue) }

        let offline = try await h.home.initializeReplay(offline: true)
        XCTAssertTrue(offline.calls.allSatisfy { !$0.made })
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.defaults.path).map { [UInt8]($0) }, imported)

        let applied = try await h.home.initializeReplay(apply: true)
        XCTAssertTrue(applied.applied)
        XCTAssertFalse(applied.changes.isEmpty)
        try h.storage.appStore.reload()
        for change in applied.changes { XCTAssertEqual(h.storage.defaults[change.key], change.after, change.key) }
        XCTAssertEqual(h.storage.appStore.currentStoreId, 999)
    }

    func testBootListsWhatHomeWouldWriteAndStatesTheColdStartDisagreement() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let imported = try importCraftedExport(h)
        let boot = BootReplay(store: h.storage.appStore, catalog: Harness.catalog, clock: SystemClock())
        let trace = try await boot.replay(apply: false)
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.defaults.path).map { [UInt8]($0) }, imported)
        XCTAssertTrue(trace.changes.contains { $0.key == "3001_store_role_storeAdmin_common_uris" })
        for step in trace.steps { XCTAssertNotNil(step.json.objectValue?["basis"], step.name) }
        let cold = try XCTUnwrap(trace.json.objectValue?["coldStart"]?.objectValue)
        XCTAssertTrue(cold["seed001"]?.stringValue?.contains("userinfo ∥ role-permission") ?? false)
        XCTAssertTrue(cold["sxk"]?.stringValue?.contains("lazily") ?? false)
    }

    func testExplainMenusDialogsScopeAndKeys() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let explain = ExplainFeature(store: h.storage.appStore, catalog: Harness.catalog, clock: SystemClock())
        let visibleURI = try XCTUnwrap(h.contexts.permission.permissionURIs.first)
        let shown = try explain.menu(visibleURI)
        XCTAssertTrue(shown.verdict.contains("shown"), shown.verdict)
        let hidden = try explain.menu("/scenic/order")
        XCTAssertTrue(hidden.verdict.hasPrefix("menu /scenic/order hidden: role storeAdmin's permissions (3001_store_key_in_permission"), hidden.verdict)
        XCTAssertTrue(hidden.steps.allSatisfy { $0.json.objectValue?["basis"] != nil })
        let (answer, dialogs) = try await explain.dialogs()
        XCTAssertEqual(answer, .null, "storeAdmin with permissions and a scenic: no dialog")
        XCTAssertEqual(dialogs.map(\.subject), ["dialog permission", "dialog scenic", "dialog locationTimeout"])
        XCTAssertTrue(dialogs[2].steps.contains { $0.basis == Rules.simplifiedTop }, "storeAdmin: the simplified top rule, inferred")
        XCTAssertEqual(dialogs[0].basis, .inferred)
        let scenicOnly = try await explain.dialogs(.scenic)
        XCTAssertEqual(scenicOnly.explanations.count, 1)
        XCTAssertTrue(try explain.scope().verdict.hasPrefix("account scope 3001_store"))
        let key = try explain.key("3001_store_key_in_permission")
        XCTAssertTrue(key.steps.contains { $0.basis == Rules.roleMatch })
        XCTAssertEqual(try explain.key("nope").basis, .inferred, "sxk cannot know every key of the app: not documented")
    }

    /// Whose token it is: a stored user id other than the server's shows as its own row, not only
    /// as names that differ.
    func testContextDiffComparesTheUserId() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        let own = try XCTUnwrap(h.contexts.store.userId)
        let diffFeature = ContextDiffFeature(account: h.network.account, commerce: h.network.commerce, operation: h.network.operation,
                                             guard: h.sessionGuard, catalog: Harness.catalog, clock: SystemClock())
        var row = try await diffFeature.diff().rows.first { $0.key == "key_in_user_id" }
        XCTAssertEqual(row, ContextDiffRow(key: "key_in_user_id", stored: String(own), server: String(own), same: true))
        h.contexts.store.defaults.set("key_in_user_id", .int(own + 1))
        try h.contexts.store.defaults.save()
        row = try await diffFeature.diff().rows.first { $0.key == "key_in_user_id" }
        XCTAssertEqual(row, ContextDiffRow(key: "key_in_user_id", stored: String(own + 1), server: String(own), same: false))
    }

    /// The same roles with other permissions are a change, not "same" (the next load writes them).
    func testContextDiffComparesTheWholeRoleList() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        let diffFeature = ContextDiffFeature(account: h.network.account, commerce: h.network.commerce, operation: h.network.operation,
                                             guard: h.sessionGuard, catalog: Harness.catalog, clock: SystemClock())
        let key = h.contexts.store.accountCachePrefix + "_key_role_permission_list"
        let first = try await diffFeature.diff()
        XCTAssertEqual(first.rows.first { $0.key == key }?.same, true)
        var stored = h.contexts.store.rolePermissionList()
        stored[0].permissions = []
        try h.contexts.store.saveRolePermissionList(stored)
        let second = try await diffFeature.diff()
        let row = try XCTUnwrap(second.rows.first { $0.key == key })
        XCTAssertFalse(row.same, "\(row)")
        XCTAssertTrue(row.server.hasSuffix("(their permissions or scenic areas differ)"), row.server)
    }

    func testContextDiffAfterTheServerChangesTheRoleList() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002", choice: nil)
        let before = FileManager.default.contents(atPath: h.storage.defaults.path)
        let diffFeature = ContextDiffFeature(account: h.network.account, commerce: h.network.commerce, operation: h.network.operation,
                                             guard: h.sessionGuard, catalog: Harness.catalog, clock: SystemClock())
        var diff = try await diffFeature.diff()
        XCTAssertTrue(diff.rows.filter { $0.key.hasSuffix("key_in_permission") }.allSatisfy(\.same))
        h.sandbox.setRoles([("photographer", [1])], userId: 2001)
        diff = try await diffFeature.diff()
        let list = try XCTUnwrap(diff.rows.first { $0.key == "2001_scenic_key_role_permission_list" })
        XCTAssertEqual(list.stored, "scenicAdmin,photographer")
        XCTAssertEqual(list.server, "photographer")
        // The next start's home, replayed with these answers: no entry for the role → empty lists (inferred), permission dialog.
        let permissions = try XCTUnwrap(diff.nextStart.first { $0.key == "2001_scenic_key_in_permission" }, "\(diff.nextStart.map(\.line))")
        XCTAssertEqual(permissions.basis, Rules.roleMatch)
        XCTAssertTrue(permissions.value.hasSuffix("→ []"), permissions.value)
        XCTAssertEqual(diff.home.dialogAnswer, .string("permission"))
        XCTAssertEqual(diff.json.objectValue?["dialog"], .string("permission"))
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.defaults.path), before, "context diff saved something")
        // The scenic stays when only the role's list lost it: refreshLocalDisplayState clears an invalid scenic only.
        h.sandbox.setRoles([("scenicAdmin", [2]), ("photographer", [1])], userId: 2001)
        diff = try await diffFeature.diff()
        XCTAssertFalse(diff.home.changes.contains { $0.key == "key_in_current_scenic_id" }, "\(diff.nextStart.map(\.line))")
        XCTAssertTrue(diff.home.changes.contains { $0.key == "2001_scenic_key_current_role_scenic_list" })
    }

    func testSwitchAccountAcrossProcessesLogsInAgainWithThePassword() async throws {
        let h = try Harness()
        _ = try await h.login("13800000004", choice: "4001")
        let stored = try XCTUnwrap(try h.storage.appStore.accountList.read())
        XCTAssertEqual(stored.accounts.map(\.userId), [4001, 4002, 4003])
        let raw = try String(contentsOfFile: h.storage.paths.accountsFile, encoding: .utf8)
        XCTAssertFalse(raw.lowercased().contains("token"), "the account list must hold no token")
        var st = stat()
        XCTAssertEqual(stat(h.storage.paths.accountsFile, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)

        // A second "process" over the same state dir: no temporary token in memory.
        try h.open()
        _ = try h.bootstrapper.restore()
        XCTAssertEqual(h.auth.knownAccounts().map(\.userId), [4001, 4002, 4003])
        let asked = Lines()
        let outcome = try await h.auth.switchAccount(to: "4002") { phone, account in
            asked.append("\(phone) \(account.userId)")
            return Harness.password
        }
        XCTAssertEqual(outcome.account.userId, 4002)
        XCTAssertEqual(h.storage.appStore.userId, 4002)
        // Asked at most once, only when no held token could do the set-user.
        XCTAssertLessThanOrEqual(asked.all.count, 1)
        if let line = asked.all.first { XCTAssertEqual(line, "13800000004 4002") }
    }

    func testKeysRightAfterLoginHoldTheCommonMenuKey() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        let keys = h.storage.appStore.allKeys().map(\.key)
        XCTAssertTrue(keys.contains("2001_scenic_role_scenicAdmin_common_uris"), "\(keys)")
        XCTAssertEqual(h.storage.appStore.commonMenuURIs(roleCode: "scenicAdmin"), Array(h.contexts.permission.permissionURIs.prefix(4)))
    }

    func testMissingAccountTypeIsAnErrorAndAnEmptyTypeIsTheGuestScope() {
        XCTAssertThrowsError(try Account(json: ["userId": 1, "roleCode": "photographer"]))
        XCTAssertEqual(StoreKey.accountCachePrefix(userId: 1, accountType: nil), "guest")
        XCTAssertEqual(StoreKey.accountCachePrefix(userId: 1, accountType: "store"), "1_store")
    }

    func testEmptyRoleListIsSavedAsEmpty() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        h.sandbox.setRoles([], userId: 1001)
        _ = try await h.home.initializeReplay(apply: true)
        try h.open()
        XCTAssertTrue(h.storage.appStore.hasRolePermissionList)
        XCTAssertEqual(h.storage.appStore.rolePermissionList().count, 0)
        XCTAssertEqual(h.storage.appStore.permissionItems().count, 0)
        // The context path too: persist writes an empty list (rolesLoaded), not nothing.
        let permission = PermissionContext()
        permission.setCurrentRole(code: "photographer", name: nil)
        let d = AppModel.loadPermissions([], into: permission)
        XCTAssertTrue(permission.current.rolesLoaded)
        XCTAssertEqual(d.reason, "the role-permission list is empty")
    }

    func testStoreMatchWritesOnlyTheSavedStore() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        try h.storage.appStore.setCurrentStoreId(102)
        let trace = try await h.home.initializeReplay()
        let step = try XCTUnwrap(trace.steps.first { $0.name.hasPrefix("loadStoreListIfNeeded") })
        XCTAssertEqual(step.rule.source, "seed 000 §4.3")
        XCTAssertTrue(step.stores.contains("key_in_current_store_id = 102"))
        try h.storage.appStore.setCurrentStoreId(555)
        let none = try await h.home.initializeReplay()
        XCTAssertFalse(none.changes.contains { $0.key == "key_in_current_store_id" }, "no match: no store invented")
    }
}
