import Foundation
import SXKCore
import SXKModels
import SXKSession
import SXKSandbox
@testable import SXKFeatures
import SXKTestSupport
import XCTest

/// One stored state, one answer: generated states over every branch the launch document names,
/// asked through each view's own entry point. Offline (`home --offline`, `boot`, `explain dialog`)
/// the views must agree with each other; online (`home`, `context diff`) too, on the dialog and on
/// every key the next start would write; `--apply` writes exactly the diff that was shown.
final class AppModelAgreementTests: BothSpellingsTestCase {
    enum RoleEntry: CaseIterable { case present, missing, emptyList }
    enum Scenic: CaseIterable { case kept, invalid, outsideList, none }
    enum StoreID: CaseIterable { case kept, unmatched, none }
    enum Report: CaseIterable { case fresh, stale, missing }

    struct Case: CustomStringConvertible {
        var phone: String
        var role: RoleEntry
        var scenic: Scenic
        var store: StoreID
        var reminder: Int?
        var online: Bool
        var report: Report
        var expired = false
        var description: String { "\(expired ? "rejected token " : "")\(phone) role:\(role) scenic:\(scenic) store:\(store) reminder:\(reminder.map(String.init) ?? "nil") online:\(online) report:\(report)" }
    }

    private func makeState(_ c: Case, _ h: Harness) throws {
        let store = h.storage.appStore
        switch c.role {
        case .present: break
        case .missing:
            let others = store.rolePermissionList().filter { $0.roleCode != store.roleCode }
            try store.saveRolePermissionList(others.isEmpty ? [RolePermission(roleCode: "otherRole", roleName: "其他", scenicList: [], permissions: [])] : others)
        case .emptyList: try store.saveRolePermissionList([])
        }
        switch c.scenic {
        case .kept: break
        case .invalid: try store.setCurrentScenic(id: 0, name: "无效")
        case .outsideList: try store.setCurrentScenic(id: 99, name: "别处")
        case .none: try store.setCurrentScenic(id: nil, name: nil)
        }
        switch c.store {
        case .kept: break
        case .unmatched: try store.setCurrentStoreId(999)
        case .none: try store.setCurrentStoreId(nil)
        }
        let now = Date()
        try store.batch { () throws(SessionError) in
            try store.setLocationReminderMinutes(c.reminder)
            try store.setOnlineStatus(c.online)
            switch c.report {
            case .fresh: try store.setLastLocationReportTime(now.addingTimeInterval(-600))
            case .stale: try store.setLastLocationReportTime(now.addingTimeInterval(-3 * 3600))
            case .missing: try store.setLastLocationReportTime(nil)
            }
        }
    }

    private func cases(count: Int, seed: UInt64) -> [Case] {
        var g = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            Case(phone: g.pick(["13800000001", "13800000002", "13800000003"]), role: g.pick(RoleEntry.allCases),
                 scenic: g.pick(Scenic.allCases), store: g.pick(StoreID.allCases), reminder: g.pick([nil, 30, 240]),
                 online: g.pick([true, false]), report: g.pick(Report.allCases))
        }
    }

    func testOfflineViewsOfOneStateAgree() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SXK_MODEL_SEED"] ?? "") ?? 20_261_201
        var seen = Set<String>()
        for c in cases(count: 36, seed: seed) {
            let h = try Harness()
            _ = try await h.login(c.phone)
            try makeState(c, h)
            let store = h.storage.appStore
            let before = try XCTUnwrap(FileManager.default.contents(atPath: store.defaults.path))
            let home = try await h.home.initializeReplay(offline: true)
            let boot = try await BootReplay(store: store, catalog: Harness.catalog, clock: SystemClock()).replay()
            let explain = try await ExplainFeature(store: store, catalog: Harness.catalog, clock: SystemClock()).dialogs()
            XCTAssertEqual(home.dialogAnswer, boot.dialogAnswer, "home --offline vs boot: \(c) (seed \(seed))")
            XCTAssertEqual(home.dialogAnswer, explain.dialog, "home --offline vs explain dialog: \(c) (seed \(seed))")
            XCTAssertEqual(boot.json.objectValue?["dialog"], home.json.objectValue?["dialog"])
            XCTAssertEqual(home.checks.map(\.state), boot.checks.map(\.state), "\(c)")
            XCTAssertEqual(home.changes, boot.changes, "the key diff boot shows is home's: \(c)")
            XCTAssertEqual(FileManager.default.contents(atPath: store.defaults.path), before, "an offline view wrote: \(c)")
            seen.insert(home.dialogAnswer.stringValue ?? "none")
        }
        // The generator reaches every answer the views can give offline.
        XCTAssertEqual(seen, ["permission", "scenic", "undecided", "none"], "seed \(seed)")
    }

    func testOnlineViewsOfOneStateAndServerAgreeAndApplyWritesTheDiffShown() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SXK_MODEL_SEED"] ?? "") ?? 7_771
        var g = SplitMix64(seed: seed ^ 0xA5A5)
        var expiredCases = 0
        for var c in cases(count: 24, seed: seed) {
            c.expired = g.next() % 5 == 0
            if c.expired { expiredCases += 1 }
            let h = try Harness()
            _ = try await h.login(c.phone)
            try makeState(c, h)
            if c.expired { h.sandbox.expireTokens() }
            let store = h.storage.appStore
            let diff = try await ContextDiffFeature(
                account: h.network.account, commerce: h.network.commerce, operation: h.network.operation,
                guard: h.sessionGuard, catalog: Harness.catalog, clock: SystemClock()).diff()
            let home = try await h.home.initializeReplay()
            XCTAssertEqual(diff.home.dialogAnswer, home.dialogAnswer, "context diff vs home: \(c) (seed \(seed))")
            XCTAssertEqual(diff.home.changes.map(\.key), home.changes.map(\.key), "next-start writes vs home's diff: \(c)")
            XCTAssertEqual(diff.json.objectValue?["dialog"], home.json.objectValue?["dialog"])
            // Every key the replay would write is in context diff's next-start list.
            for change in home.changes { XCTAssertTrue(diff.nextStart.contains { $0.key == change.key }, "\(change.key) missing: \(c)") }
            // A store row never says DIFFERS beside a verdict of a match.
            if let row = diff.rows.first(where: { $0.key == StoreKey.currentStoreId }) {
                let storeStep = try XCTUnwrap(diff.home.steps.first { $0.name == "loadStoreListIfNeeded(api:)" })
                let verdictMatched = storeStep.notes.contains { $0.contains(" matched among ") }
                XCTAssertEqual(row.same, verdictMatched, "store row \(row) beside the verdict \(storeStep.notes): \(c)")
            } else {
                XCTAssertFalse(diff.calls.contains { $0.path == Endpoint.storeList.path }, "store/all asked without a store row: \(c)")
            }
            // The store list is asked for only under the launch document's condition (storeAdmin, scenic > 0).
            let asked = diff.calls.contains { $0.path == Endpoint.storeList.path }
            let valid = (store.currentScenicId ?? 0) > 0
            XCTAssertEqual(asked, store.roleCode == RoleCode.storeAdmin && valid, "\(c)")
            XCTAssertEqual(diff.home.sessionExpired, c.expired, "\(c)")
            XCTAssertEqual(home.sessionExpired, c.expired, "\(c)")
            // --apply writes exactly the diff that was shown.
            var expected = Dictionary(store.defaults.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            for change in home.changes { expected[change.key] = change.after }
            let applied = try await h.home.initializeReplay(apply: true)
            XCTAssertEqual(applied.changes, home.changes, "\(c)")
            try store.reload()
            var after = Dictionary(store.defaults.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            after[StoreKey.snapshotSavedAt] = nil
            expected[StoreKey.snapshotSavedAt] = nil
            XCTAssertEqual(after.filter { $0.value != .null }, expected.compactMapValues { $0 }.filter { $0.value != .null }, "apply wrote other than the diff: \(c)")
            // The token file too: removed exactly when the diff shows its removal.
            let tokenRemoved = home.changes.contains { $0.key == StoreKey.token && $0.after == nil }
            XCTAssertEqual(tokenRemoved, c.expired, "\(c)")
            XCTAssertEqual(try store.token() == nil, tokenRemoved, "apply and the shown diff disagree on the token: \(c)")
        }
        XCTAssertGreaterThan(expiredCases, 0, "the generator reaches a rejected token (seed \(seed))")
    }

    /// A role without an entry in the stored list: every offline view says "permission" (the forced
    /// load leaves it no permissions), whatever the stale flat permissions say.
    func testRoleWithoutAnEntryGivesThePermissionDialogInEveryOfflineView() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        let store = h.storage.appStore
        try store.saveRolePermissionList(store.rolePermissionList().filter { $0.roleCode != store.roleCode })
        XCTAssertFalse(store.permissionItems().isEmpty, "the stale flat permissions stay stored")
        let home = try await h.home.initializeReplay(offline: true)
        let boot = try await BootReplay(store: store, catalog: Harness.catalog, clock: SystemClock()).replay()
        let explain = try await ExplainFeature(store: store, catalog: Harness.catalog, clock: SystemClock()).dialogs(.permission)
        XCTAssertEqual(home.dialogAnswer, .string("permission"))
        XCTAssertEqual(boot.dialogAnswer, .string("permission"))
        XCTAssertEqual(explain.dialog, .string("permission"))
        XCTAssertTrue(explain.explanations[0].verdict.hasPrefix("permission dialog shown"), explain.explanations[0].verdict)
        let permissionStep = try XCTUnwrap(boot.steps.first { $0.name == "loadPermissions(api:force: true)" })
        XCTAssertFalse(permissionStep.notes.joined().contains("else its first entry"), "\(permissionStep.notes)")
        XCTAssertEqual(permissionStep.rule, Rules.roleMatch)
    }

    /// Codes that only look alike read apart in the messages comparing them; plain codes stay as they are.
    func testRoleCodesThatOnlyLookAlikeAreShownApart() {
        XCTAssertEqual(AppModel.shownCode("storeAdmin"), "storeAdmin")
        XCTAssertEqual(AppModel.shownCode("scenic_admin-2"), "scenic_admin-2")
        XCTAssertEqual(AppModel.shownCode(" storeAdmin"), #"'\u{20}storeAdmin'"#)
        XCTAssertEqual(AppModel.shownCode("storeAdmin\u{A0}"), #"'storeAdmin\u{a0}'"#)
        XCTAssertEqual(AppModel.shownCode("store\u{200B}Admin"), #"'store\u{200b}Admin'"#)
        XCTAssertEqual(AppModel.shownCode("storeAdm\u{456}n"), #"'storeAdm\u{456}n'"#)
        XCTAssertEqual(AppModel.shownCode("店长"), "'店长'")
        var state = PermissionContext.State()
        state.roleCode = " storeAdmin"
        state.roles = [RolePermission(roleCode: "storeAdmin", roleName: "", scenicList: [], permissions: [])]
        state.permissions = [PermissionItem(uri: "home/order", name: "订单")]
        state.rolesLoaded = true
        XCTAssertTrue(AppModel.permissionsChangedAtNextLoad(state)?.hasPrefix(#"role '\u{20}storeAdmin' has no entry in the stored role-permission list (entries: storeAdmin)"#) == true,
                      AppModel.permissionsChangedAtNextLoad(state) ?? "nil")
    }

    /// The server rejects the token during a replay: a step of the replay, nothing written; this
    /// process goes on logged out (one reset) and never sends that token again: a later replay is
    /// answered by the rejection it saw.
    func testARejectedTokenIsAStepOfTheReplayAndChangesNothing() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let store = h.storage.appStore
        let before = try XCTUnwrap(FileManager.default.contents(atPath: store.defaults.path))
        h.sandbox.expireTokens()
        let home = try await h.home.initializeReplay()
        XCTAssertTrue(home.sessionExpired)
        XCTAssertEqual(home.dialogAnswer, .null)
        XCTAssertEqual(home.steps.last?.rule, Rules.sessionExpiry)
        XCTAssertTrue(home.changes.contains { $0.key == StoreKey.userId && $0.after == nil }, "the diff shows what the app would clear")
        let diff = try await ContextDiffFeature(
            account: h.network.account, commerce: h.network.commerce, operation: h.network.operation,
            guard: h.sessionGuard, catalog: Harness.catalog, clock: SystemClock()).diff()
        XCTAssertTrue(diff.home.sessionExpired)
        XCTAssertEqual(FileManager.default.contents(atPath: store.defaults.path), before)
        XCTAssertNotNil(try store.token(), "the token file stays")
        XCTAssertEqual(h.sessionGuard.resetCount, 1, "one reset, in memory only")
        XCTAssertNil(h.contexts.session.token)
        XCTAssertEqual(h.sessionGuard.rejectedToken, try store.token())
        let sent = h.sandbox.requestLog().count
        let again = try await h.home.initializeReplay()
        XCTAssertTrue(again.sessionExpired, again.verdict)
        XCTAssertEqual(again.calls.map(\.made), [false])
        XCTAssertTrue(again.verdict.contains("not sent again"), again.verdict)
        let boot = try await BootReplay(store: store, catalog: Harness.catalog, clock: SystemClock(), rejectedToken: h.sessionGuard.rejectedToken).replay()
        XCTAssertTrue(boot.sessionExpired, boot.verdict)
        XCTAssertEqual(boot.dialogAnswer, .null)
        let diffAgain = try await ContextDiffFeature(
            account: h.network.account, commerce: h.network.commerce, operation: h.network.operation,
            guard: h.sessionGuard, catalog: Harness.catalog, clock: SystemClock()).diff()
        XCTAssertTrue(diffAgain.home.sessionExpired)
        XCTAssertTrue(diffAgain.calls.isEmpty)
        XCTAssertEqual(h.sandbox.requestLog().count, sent, "the rejected token was sent again")
        XCTAssertEqual(FileManager.default.contents(atPath: store.defaults.path), before)
        XCTAssertEqual(h.sessionGuard.resetCount, 1)
    }
}

extension AppModelAgreementTests {
    /// explain menu and the next home agree: a stale flat permission whose role has no entry in the
    /// stored list shows now but not at the next home, and explain says both.
    func testExplainMenuSaysWhatTheNextHomeWouldShow() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        let store = h.storage.appStore
        let uri = try XCTUnwrap(store.permissionItems().first?.uri)
        try store.saveRolePermissionList(store.rolePermissionList().filter { $0.roleCode != store.roleCode })
        let explained = try ExplainFeature(store: store, catalog: Harness.catalog, clock: SystemClock()).menu(uri)
        XCTAssertTrue(explained.verdict.contains("shown") && explained.verdict.hasSuffix("at the next home it would be hidden"), explained.verdict)
        let home = try await h.home.initializeReplay(offline: true)
        XCTAssertTrue(home.changes.contains { $0.key.hasSuffix("key_in_permission") && $0.after == .array([]) })
    }
}

extension AppModelAgreementTests {
    /// A stored flat list that is not the role's entry in the stored role-permission list is said by
    /// the views of the stored state: the next load replaces it (as `home --offline` shows).
    func testAFlatListOtherThanTheRolesEntryIsSaid() {
        let mine = [PermissionItem(uri: "home/order", name: "订单")]
        let other = [PermissionItem(uri: "home/store-manage", name: "门店"), PermissionItem(uri: "home/order", name: "订单")]
        var state = PermissionContext.State()
        state.roleCode = "photographer"
        state.roles = [RolePermission(roleCode: "photographer", roleName: "摄影师", scenicList: [], permissions: mine)]
        state.rolesLoaded = true
        state.permissions = other
        let note = AppModel.permissionsChangedAtNextLoad(state)
        XCTAssertTrue(note?.contains("the stored permissions (2) are not role photographer's entry") ?? false, "\(String(describing: note))")
        state.permissions = mine
        XCTAssertNil(AppModel.permissionsChangedAtNextLoad(state))
        state.roleCode = "cashier"
        XCTAssertTrue(AppModel.permissionsChangedAtNextLoad(state)?.contains("has no entry") ?? false)

        // A stored empty list is the server's last answer, as the replays take it: the next load
        // leaves no permissions, and the default common menus are none.
        state.roleCode = "photographer"
        state.roles = []
        XCTAssertTrue(AppModel.permissionsChangedAtNextLoad(state)?.contains("the stored role-permission list is empty") ?? false)
        XCTAssertEqual(AppModel.permissionsAtNextHome(state), [])
        // No role stored: the load takes the first entry's role, said with the rule's basis.
        var roleless = state
        roleless.roleCode = nil
        roleless.roles = [RolePermission(roleCode: "scenicAdmin", roleName: "", scenicList: [], permissions: other)]
        let taken = AppModel.permissionsChangedAtNextLoad(roleless) ?? ""
        XCTAssertTrue(taken.contains("takes its first entry's role, scenicAdmin, with 2 permissions") && taken.contains(Rules.roleMatch.marker), taken)
        roleless.roles = []
        XCTAssertTrue(AppModel.permissionsChangedAtNextLoad(roleless)?.contains("no role stored and the stored role-permission list is empty") ?? false)
        // No list stored at all: nothing to stand in, the flat list stays.
        state.rolesLoaded = false
        XCTAssertNil(AppModel.permissionsChangedAtNextLoad(state))
        XCTAssertEqual(AppModel.permissionsAtNextHome(state), mine)

        // A role listed twice: which entry counts is sxk's reading, and said so.
        state.rolesLoaded = true
        state.permissions = other
        state.roles = [RolePermission(roleCode: "photographer", roleName: "", scenicList: [], permissions: mine),
                       RolePermission(roleCode: "photographer", roleName: "", scenicList: [], permissions: other)]
        let twice = AppModel.permissionsChangedAtNextLoad(state) ?? ""
        XCTAssertTrue(twice.contains("first entry (of 2)") && twice.contains(Rules.roleMatch.marker), twice)
    }
}
