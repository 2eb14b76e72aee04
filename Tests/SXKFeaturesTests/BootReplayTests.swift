import Foundation
import SXKTestSupport
import XCTest
import SXKCore
import SXKAPI
import SXKSession
import SXKSandbox
@testable import SXKFeatures

/// `boot`: seed 000 §1 and §7 replayed on stored state, and the prediction matching what `home` really calls.
final class BootReplayTests: BothSpellingsTestCase {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)
    private let token = "tok_boot_replay_secret_0123456789"

    /// A fresh profile of its own, no sandbox.
    private func makeStore() throws -> AppStore {
        let dir = NSTemporaryDirectory() + "sxk-boot-\(UUID().uuidString)"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let paths = try StatePaths(root: dir + "/state", profile: "p", configDir: dir + "/config")
        return try ProfileStorage(paths: paths, warn: { _ in }, clock: FixedClock(now)).appStore
    }

    private func replay(_ store: AppStore, catalog: MenuCatalog = Harness.catalog) async throws -> BootTrace {
        try await BootReplay(store: store, catalog: catalog, clock: FixedClock(now)).replay()
    }

    private func sdk(_ trace: BootTrace, _ name: String) throws -> SDKDecision {
        try XCTUnwrap(trace.sdks.first { $0.name == name }, "no \(name) decision")
    }

    private let photographer = Account(
        userId: 1001, accountType: "scenic", accountDisplayName: "西湖景区", userName: "photog1001", phone: "13800000001",
        roleCode: "photographer", roleName: "摄影师", scenicId: 1, scenicName: "西湖景区")

    private func storePermissions(_ store: AppStore, role: String, scenic: [ScenicRef]) throws {
        let items = [PermissionItem(uri: "photog/orders", name: "订单"), PermissionItem(uri: "photog/location", name: "位置")]
        try store.saveRolePermissionList([RolePermission(roleCode: role, roleName: role, scenicList: scenic, permissions: items)])
        try store.savePermissionItems(items)
        try store.saveRoleScenicList(scenic)
    }

    func testFreshStateShowsLoginPageWithOnlyWeChatAndConfig() async throws {
        let trace = try await replay(try makeStore())
        XCTAssertEqual(trace.sdks.map(\.name), ["Umeng", "WeChat", "AMap"], "seed §1 order")
        XCTAssertFalse(try sdk(trace, "Umeng").initialised)
        XCTAssertTrue(try sdk(trace, "WeChat").initialised)
        XCTAssertFalse(try sdk(trace, "AMap").initialised)
        XCTAssertEqual(try sdk(trace, "Umeng").reads.map(\.line), ["key_privacy_agreement_accepted = nil"])
        XCTAssertEqual(trace.root.screen, .loginPage)
        XCTAssertEqual(trace.firstScreen, "login page")
        XCTAssertEqual(trace.calls.map { "\($0.method) \($0.path)" }, ["GET /api/app/config"])
        XCTAssertEqual(trace.calls.first?.order, 1)
        XCTAssertEqual(trace.steps.first?.reads.map(\.key), ["key_last_login_username", "key_privacy_agreement_accepted"])
        XCTAssertTrue(trace.checks.isEmpty, "the login page evaluates no home dialog")
    }

    func testPrivacyAcceptedWithoutTokenInitialisesUmengButNotAMap() async throws {
        let store = try makeStore()
        try store.setPrivacyAgreementAccepted(true)
        try store.setLastLoginUsername("13800000002")
        let trace = try await replay(store)
        XCTAssertTrue(try sdk(trace, "Umeng").initialised)
        XCTAssertFalse(try sdk(trace, "AMap").initialised)
        XCTAssertEqual(try sdk(trace, "AMap").reason, "no token stored")
        XCTAssertEqual(trace.root.screen, .loginPage)
        XCTAssertTrue(trace.steps[0].notes.contains("phone field: filled with 13800000002"), "\(trace.steps[0].notes)")
    }

    func testTokenWithoutPrivacyShowsMainTabButNeitherUmengNorAMap() async throws {
        let store = try makeStore()
        try store.saveLogin(token: token, account: photographer, phone: "13800000001", privacyAccepted: false)
        let trace = try await replay(store)
        XCTAssertEqual(trace.root.screen, .mainTab)
        XCTAssertFalse(try sdk(trace, "Umeng").initialised)
        XCTAssertFalse(try sdk(trace, "AMap").initialised, "AMap needs privacy accepted and a token")
        XCTAssertEqual(try sdk(trace, "AMap").reason, "privacy agreement not accepted")
    }

    func testPrivacyAndTokenShowMainTabWithAllSDKsAndHomeSequence() async throws {
        let store = try makeStore()
        try store.saveLogin(token: token, account: photographer, phone: "13800000001", privacyAccepted: true)
        try storePermissions(store, role: "photographer", scenic: [ScenicRef(scenicId: 1, scenicName: "西湖景区")])
        try store.setLocationReminderMinutes(30)
        let trace = try await replay(store)
        XCTAssertEqual(trace.sdks.filter(\.initialised).map(\.name), ["Umeng", "WeChat", "AMap"])
        XCTAssertEqual(trace.root.screen, .mainTab)
        XCTAssertEqual(trace.root.screen.controller, "MainTabBarController")
        XCTAssertEqual(trace.firstScreen, "home")
        XCTAssertEqual(trace.calls.map(\.path), [
            "/api/yf-handset-app/role-permission", "/api/yf-handset-app/photog/loacation/detail?staff_id=1001",
        ])
        XCTAssertEqual(trace.calls.map(\.order), [1, 2])
        let detail = try XCTUnwrap(trace.calls.last)
        XCTAssertTrue(detail.reads.map(\.line).contains("key_in_user_id = 1001"), "staff_id comes from the user id")
        XCTAssertTrue(detail.reads.map(\.line).contains("1001_scenic_key_location_reminder_minutes = 30"))
        XCTAssertEqual(trace.checks.map(\.show), [false, false, false])
        XCTAssertTrue(trace.checks[2].evaluated)
        // Steps in the seed's order: tabs, location restore, display state, permissions, menus, store, dialogs.
        XCTAssertEqual(trace.steps.count, 7)
        XCTAssertTrue(trace.steps[1].name.hasSuffix("locationStateStore.restoreStateIfNeeded()"))
        XCTAssertEqual(trace.steps[2].name, "refreshLocalDisplayState()")
        XCTAssertEqual(trace.steps[3].name, "loadPermissions(api:force: true)")
        XCTAssertTrue(trace.steps[5].skipped, "a photographer loads no stores")
        // The token appears only masked.
        let json = JSONWriter.string(trace.json)
        XCTAssertFalse(json.contains(token))
        XCTAssertTrue(json.contains(Redaction.maskToken(token)))
    }

    func testStoreAdminLoadsStoresAndNeverAsksLocation() async throws {
        let store = try makeStore()
        let admin = Account(
            userId: 3001, accountType: "store", accountDisplayName: "断桥摄影店", userName: "store3001", phone: "13800000003",
            roleCode: "storeAdmin", roleName: "门店管理员", scenicId: 1, scenicName: "西湖景区", storeId: 101)
        try store.saveLogin(token: token, account: admin, phone: "13800000003", privacyAccepted: true)
        try storePermissions(store, role: "storeAdmin", scenic: [ScenicRef(scenicId: 1, scenicName: "西湖景区")])
        try store.setLocationReminderMinutes(10)
        let trace = try await replay(store)
        XCTAssertEqual(trace.calls.map(\.path), ["/api/yf-handset-app/role-permission", "/api/app/store/all"])
        XCTAssertEqual(trace.checks.last?.reason, "role storeAdmin uses the simplified top bar")
        // Without a scenic the store step does not apply (seed §4.3: currentScenicId > 0).
        try store.setCurrentScenic(id: nil, name: nil)
        let noScenic = try await replay(store)
        XCTAssertEqual(noScenic.calls.map(\.path), ["/api/yf-handset-app/role-permission"])
    }

    /// No role-permission list stored: what the forced load answers decides every dialog, so offline
    /// the answer is undecided (inferred), not a dialog judged on lists the load would replace.
    func testNoRolePermissionListStoredLeavesTheDialogsUndecided() async throws {
        let store = try makeStore()
        try store.saveLogin(token: token, account: photographer, phone: "13800000001", privacyAccepted: true)
        try store.setLocationReminderMinutes(30)
        let trace = try await replay(store)
        XCTAssertEqual(trace.calls.map(\.path), ["/api/yf-handset-app/role-permission"])
        XCTAssertNil(trace.checks.first { $0.show })
        XCTAssertTrue(trace.checks.allSatisfy { $0.undecided && $0.rule.basis == .inferred }, "\(trace.checks)")
        XCTAssertEqual(trace.dialogAnswer, .string("undecided"))
        XCTAssertTrue(trace.verdict.hasSuffix("then undecided: the permission load's answer decides every dialog, and no role-permission list is stored"), trace.verdict)
        XCTAssertTrue(trace.changes.isEmpty, "\(trace.changes)")
        // explain dialog says the same, and makes up no count of what the load leaves.
        let (dialog, explanations) = try await ExplainFeature(store: store, catalog: Harness.catalog, clock: FixedClock(now)).dialogs(.permission)
        XCTAssertEqual(dialog, .string("undecided"))
        let values = explanations.flatMap(\.steps).map(\.value)
        XCTAssertTrue(values.contains { $0.hasPrefix("unknown after the load") }, "\(values)")
        XCTAssertFalse(values.contains { $0.contains("permissions after the load") }, "\(values)")
    }

    func testReplayChangesNothingEvenWhenHomeWouldClearState() async throws {
        let store = try makeStore()
        try store.saveLogin(token: token, account: photographer, phone: "13800000001", privacyAccepted: true)
        // Scenic 9 is not in the role's list (kept: only an invalid scenic is cleared), and the last
        // report is 3 hours old (cleared).
        try storePermissions(store, role: "photographer", scenic: [ScenicRef(scenicId: 1, scenicName: "西湖景区")])
        try store.setCurrentScenic(id: 9, name: "别处")
        try store.setOnlineStatus(true)
        try store.setLastLocationReportTime(now.addingTimeInterval(-3 * 3600))
        let before = try XCTUnwrap(FileManager.default.contents(atPath: store.defaults.path))
        let trace = try await replay(store)
        XCTAssertEqual(trace.steps[1].stores, ["1001_scenic_key_online_status removed", "1001_scenic_key_last_location_report_time removed"])
        XCTAssertEqual(trace.steps[2].notes, ["scenic 9 别处 kept: a valid scenic (> 0); the role's list is not consulted here"])
        XCTAssertEqual(trace.steps[2].rule.basis, .inferred)
        XCTAssertNotEqual(trace.checks.first { $0.show }?.dialog, .scenic)
        XCTAssertEqual(FileManager.default.contents(atPath: store.defaults.path), before, "boot wrote to defaults.json")
        XCTAssertEqual(store.currentScenicId, 9)
        XCTAssertEqual(store.onlineStatus, true)
        XCTAssertNil(store.commonMenuURIs(roleCode: "photographer"), "the default common menus are predicted, not written")
    }

    /// Each step shows what it reads as the steps before it left the replay's copy: a scenic the display
    /// step cleared and permissions the load emptied are read so by the later steps, as `home` reads them.
    func testLaterStepsReadWhatEarlierStepsLeft() async throws {
        let store = try makeStore()
        try store.saveLogin(token: token, account: photographer, phone: "13800000001", privacyAccepted: true)
        try storePermissions(store, role: "storeAdmin", scenic: [ScenicRef(scenicId: 1, scenicName: "西湖景区")])
        try store.setCurrentScenic(id: -5, name: "西湖景区")
        let trace = try await replay(store)
        func reads(_ name: String) throws -> [String] {
            try XCTUnwrap(trace.steps.first { $0.name.hasSuffix(name) }, "no step \(name)").reads.map(\.line)
        }
        XCTAssertTrue(try reads("refreshLocalDisplayState()").contains("key_in_current_scenic_id = -5"))
        XCTAssertTrue(try reads("rebuild common menus (HomeCommonMenuStore)").contains("1001_scenic_key_in_permission = 0 permissions"))
        let dialogs = try reads("HomeViewModel.evaluateDialogs(api:)")
        XCTAssertTrue(dialogs.contains("key_in_current_scenic_id = nil"), "\(dialogs)")
        XCTAssertTrue(dialogs.contains("1001_scenic_key_in_permission = 0 permissions"), "\(dialogs)")
        XCTAssertEqual(trace.checks.first { $0.show }?.dialog, .permission)
        XCTAssertEqual(store.currentScenicId, -5, "boot wrote the stored state")
    }

    func testOnlineWithinTwoHoursResumesCountdown() async throws {
        let store = try makeStore()
        try store.saveLogin(token: token, account: photographer, phone: "13800000001", privacyAccepted: true)
        try store.setOnlineStatus(true)
        try store.setLastLocationReportTime(now.addingTimeInterval(-1800))
        let trace = try await replay(store)
        XCTAssertEqual(trace.steps[1].notes, ["online: countdown resumes with 1h30m left of the 2-hour limit"])
        XCTAssertTrue(trace.steps[1].stores.isEmpty)
    }

    /// The prediction is what `home` (the real HomeViewModel.initialize replay) then calls, per role.
    func testPredictedCallsMatchWhatHomeReallyCalls() async throws {
        for (phone, choice, reminder) in [("13800000001", nil, 30), ("13800000003", nil, 30), ("13800000002", nil, 0), ("13800000004", "2", 15)] as [(String, String?, Int)] {
            let h = try Harness()
            _ = try await h.login(phone, choice: choice)
            _ = try h.home.remind(minutes: reminder)
            let predicted = try await BootReplay(store: h.storage.appStore, catalog: Harness.catalog, clock: SystemClock()).replay()
            XCTAssertEqual(predicted.root.screen, .mainTab, phone)
            h.sandbox.resetRequestLog()
            let trace = try await h.home.initializeReplay()
            XCTAssertEqual(predicted.calls.map { "\($0.method) \($0.path)" }, trace.calls.map { "\($0.method) \($0.path)" }, "phone \(phone)")
            XCTAssertEqual(h.requests().count, trace.calls.count, "boot itself sent requests for \(phone)")
        }
    }

    func testBootSendsNoRequest() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        h.sandbox.resetRequestLog()
        _ = try await BootReplay(store: h.storage.appStore, catalog: Harness.catalog, clock: SystemClock()).replay()
        XCTAssertEqual(h.requests().map(\.path), [])
    }
}
