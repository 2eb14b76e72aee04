import Foundation
import SXKTestSupport
import XCTest
import SXKCore
import SXKAPI
import SXKSession
import SXKSandbox
@testable import SXKFeatures

final class HomeFeatureTests: BothSpellingsTestCase {
    func testVisibleAndCommonMenusDefaultToFirstFour() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        let visible = h.home.visibleMenus()
        XCTAssertEqual(Set(visible.map(\.uri)), Set(h.contexts.permission.permissionURIs))
        // Login = app login + home's first appearance: the default common menus are already written
        // (seed 000 §6.2), the first 4 of the permission list (inferred choice).
        XCTAssertEqual(h.contexts.store.commonMenuURIs(roleCode: "photographer"), Array(h.contexts.permission.permissionURIs.prefix(4)))
        let common = try h.home.commonMenus()
        XCTAssertFalse(common.defaulted)
        XCTAssertEqual(common.key, "1001_scenic_role_photographer_common_uris")
        XCTAssertEqual(common.uris, Array(visible.prefix(4).map(\.uri)))
        XCTAssertEqual(h.contexts.store.commonMenuURIs(roleCode: "photographer"), common.uris)
        XCTAssertFalse(try h.home.commonMenus().defaulted)
        let extra = try XCTUnwrap(visible.dropFirst(4).first)
        XCTAssertEqual(try h.home.addCommonMenu(extra.uri).uris.last, extra.uri)
        XCTAssertFalse(try h.home.removeCommonMenu(common.uris[0]).uris.contains(common.uris[0]))
        XCTAssertThrowsError(try h.home.addCommonMenu("/nope"))
    }

    func testCatalogKeepsUnknownPermissions() {
        let catalog = MenuCatalog([MenuEntry(uri: "/a", title: "A", group: "g")])
        let visible = catalog.visibleMenus(permissions: [PermissionItem(uri: "/b", name: "B"), PermissionItem(uri: "/a", name: "x")])
        // Permission-list order; an unknown URI is still a menu, marked unknown.
        XCTAssertEqual(visible.map(\.uri), ["/b", "/a"])
        XCTAssertEqual(visible.map(\.title), ["B", "A"])
        XCTAssertEqual(visible.map(\.known), [false, true])
        XCTAssertEqual(visible[0].json.objectValue?["catalog"], .string("unknown"))
        XCTAssertEqual(visible[0].json.objectValue?["titleBasis"], .string("inferred"))
    }

    func testReplayForStoreAdminLoadsStoresAndShowsNoDialog() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        h.sandbox.resetRequestLog()
        let trace = try await h.home.initializeReplay()
        XCTAssertEqual(trace.steps.map(\.name).first, "locationStateStore.restoreStateIfNeeded()")
        XCTAssertEqual(trace.calls.map(\.path), ["/api/yf-handset-app/role-permission", "/api/app/store/all"])
        // The server saw both (in either order: they go out together, ConcurrentCallsTests).
        XCTAssertEqual(Set(h.requests().map(\.path)), ["/api/yf-handset-app/role-permission", "/api/app/store/all"])
        XCTAssertEqual(h.requests().count, 2)
        XCTAssertNil(trace.dialog)
        XCTAssertTrue(trace.checks[2].reason.contains("simplified"))
        // The trace encodes to JSON for --json.
        let text = JSONWriter.string(trace.json)
        XCTAssertNotNil(try? JSONParser.parse(text))
        XCTAssertTrue(text.contains("\"verdict\""))
    }

    func testStoreStepSkippedWithoutScenicOrForOtherRoles() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        // A store admin whose scenic is gone: scenic dialog, no store call.
        h.contexts.account.setScenic(id: nil, name: nil)
        try h.contexts.store.setCurrentScenic(id: nil, name: nil)
        h.sandbox.resetRequestLog()
        let trace = try await h.home.initializeReplay()
        XCTAssertTrue(h.requests("/api/app/store/all").isEmpty)
        XCTAssertEqual(trace.dialog, .scenic)
        XCTAssertTrue(trace.steps.first { $0.name.hasPrefix("loadStoreListIfNeeded") }?.skipped ?? false)

        _ = try await h.login("13800000002")
        h.sandbox.resetRequestLog()
        _ = try await h.home.initializeReplay()
        XCTAssertTrue(h.requests("/api/app/store/all").isEmpty)
    }

    func testPermissionDialogWinsWhenNoPermissions() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        _ = try h.home.remind(minutes: 5)
        // The server's list has no entry for the current role: no permissions (never another role's).
        h.sandbox.setRoles([("scenicAdmin", [1])], userId: 1001)
        h.sandbox.resetRequestLog()
        let trace = try await h.home.initializeReplay()
        XCTAssertEqual(trace.dialog, .permission)
        XCTAssertEqual(trace.checks[0].rule.basis, .inferred, "the permission dialog's condition is inferred")
        XCTAssertFalse(trace.checks[1].evaluated)
        XCTAssertFalse(trace.checks[2].evaluated)
        XCTAssertTrue(h.requests("/api/yf-handset-app/photog/loacation/detail").isEmpty)
        XCTAssertEqual(trace.steps[2].rule, Rules.roleMatch)
        XCTAssertTrue(trace.steps[2].notes[0].contains("role photographer has no entry"), trace.steps[2].notes[0])
        XCTAssertTrue(trace.changes.contains { $0.key == "1001_scenic_key_in_permission" && $0.after == .array([]) })
    }

    func testScenicDialogWhenRoleNeedsScenicAndNoneSelected() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        _ = try h.home.remind(minutes: 5)
        h.contexts.account.setScenic(id: nil, name: nil)
        try h.contexts.store.setCurrentScenic(id: nil, name: nil)
        h.sandbox.resetRequestLog()
        let trace = try await h.home.initializeReplay()
        XCTAssertEqual(trace.dialog, .scenic)
        XCTAssertFalse(trace.checks[2].evaluated)
        XCTAssertTrue(h.requests("/api/yf-handset-app/photog/loacation/detail").isEmpty, "no detail call behind a scenic dialog")
    }

    /// Seed 000 §4.2 clears only when there is no valid scenic; one outside the role's list stays.
    func testForeignScenicIsKeptByDisplayState() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        try h.contexts.store.setCurrentScenic(id: 3, name: "千岛湖")
        let trace = try await h.home.initializeReplay()
        XCTAssertEqual(h.contexts.store.currentScenicId, 3)
        XCTAssertNotEqual(trace.dialog, .scenic)
        XCTAssertTrue(trace.steps[1].stores.isEmpty)
        XCTAssertEqual(trace.steps[1].rule, Rules.validScenic)
        XCTAssertFalse(trace.changes.contains { $0.key == "key_in_current_scenic_id" })
    }

    func testInvalidScenicIsClearedOnceAndApplyWritesTheDiff() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        try h.contexts.store.setCurrentScenic(id: 0, name: "x")
        let trace = try await h.home.initializeReplay(apply: true)
        XCTAssertNil(h.contexts.store.currentScenicId)
        XCTAssertEqual(trace.dialog, .scenic)
        XCTAssertEqual(trace.steps.filter { $0.stores.contains("key_in_current_scenic_id removed") }.count, 1, "cleared once")
        for change in trace.changes { XCTAssertEqual(h.contexts.store.defaults[change.key], change.after, change.key) }
        XCTAssertTrue(trace.applied)
    }

    func testLocationTimeoutDialogOnlyWhenConditionsHold() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")   // sandbox: 1001 reported 18 minutes ago
        // No reminder set: no detail call.
        h.sandbox.resetRequestLog()
        var trace = try await h.home.initializeReplay()
        XCTAssertNil(trace.dialog)
        XCTAssertTrue(h.requests("/api/yf-handset-app/photog/loacation/detail").isEmpty)
        XCTAssertTrue(trace.checks[2].reason.contains("no location reminder"))

        // Reminder 10 minutes: detail called with staff_id, report is older → dialog.
        _ = try h.home.remind(minutes: 10)
        h.sandbox.resetRequestLog()
        trace = try await h.home.initializeReplay()
        let detail = h.requests("/api/yf-handset-app/photog/loacation/detail")
        XCTAssertEqual(detail.count, 1)
        XCTAssertEqual(detail.first?.queryValue("staff_id"), "1001")
        XCTAssertEqual(trace.dialog, .locationTimeout)
        XCTAssertTrue(trace.verdict.contains("location-timeout"))

        // Reminder 30 minutes: detail called, report is recent → none.
        _ = try h.home.remind(minutes: 30)
        trace = try await h.home.initializeReplay()
        XCTAssertNil(trace.dialog)
        XCTAssertTrue(trace.checks[2].evaluated)
        XCTAssertTrue(trace.verdict.hasPrefix("no dialog"))
    }

    /// Reminder minutes come from storage, which `import-defaults` fills from a device: any Int must
    /// be judged, not overflow.
    func testHugeReminderMinutesAreJudgedNotOverflowed() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        let detail = try LocationDetail(json: .object(["online": .bool(true), "lastReportTime": .string("2020-01-01 00:00:00")]))
        let (show, reason) = DialogRules.decideTimeout(detail, reminderMinutes: Int.max, storedLast: nil, now: Date())
        XCTAssertFalse(show, reason)
        let (recent, why) = DialogRules.decideTimeout(detail, reminderMinutes: 1, storedLast: nil, now: Date())
        XCTAssertTrue(recent, why)
    }

    /// What the answer does not say is not made up: no `online` is unknown, not offline; a time in
    /// another format is said as sent; a time ahead of the clock is said to be.
    func testLocationAnswersTheTimeoutCannotReadAreSaid() throws {
        let now = Date(timeIntervalSince1970: 1_764_468_000)
        let missing = try LocationDetail(json: ["lastReportTime": "2026-11-30 10:00:00"])
        XCTAssertNil(missing.online)
        let (noOnline, why) = DialogRules.decideTimeout(missing, reminderMinutes: 30, storedLast: nil, now: now)
        XCTAssertFalse(noOnline)
        XCTAssertTrue(why.contains("no readable online") && !why.contains("offline on the server"), why)
        let (_, offWhy) = DialogRules.decideTimeout(try LocationDetail(json: ["online": "off"]), reminderMinutes: 30, storedLast: nil, now: now)
        XCTAssertTrue(offWhy.contains("(online off)"), offWhy)
        let iso = try LocationDetail(json: ["online": true, "lastReportTime": "2026-11-30T10:00:00+08:00"])
        let (_, isoWhy) = DialogRules.decideTimeout(iso, reminderMinutes: 30, storedLast: nil, now: now)
        XCTAssertTrue(isoWhy.contains("'2026-11-30T10:00:00+08:00' is not yyyy-MM-dd HH:mm:ss"), isoWhy)
        let ahead = try LocationDetail(json: ["online": true, "lastReportTime": "2099-01-01 00:00:00"])
        let (_, aheadWhy) = DialogRules.decideTimeout(ahead, reminderMinutes: 30, storedLast: nil, now: now)
        XCTAssertTrue(aheadWhy.contains("in the future"), aheadWhy)
    }

    func testLocationTwoHourRuleWithInjectedClock() async throws {
        let clock = FixedClock(Date())
        let h = try Harness(clock: clock)
        _ = try await h.login("13800000001")
        var state = try h.home.goOnline()
        XCTAssertTrue(state.isOnline)
        XCTAssertEqual(state.countdownSeconds ?? 0, 7200, accuracy: 0.01)
        clock.advance(by: 119 * 60)
        var trace = try await h.home.initializeReplay(apply: true)
        XCTAssertTrue(trace.steps[0].notes[0].contains("countdown resumes"))
        XCTAssertTrue(h.home.locationState().isOnline)
        clock.advance(by: 2 * 60)
        trace = try await h.home.initializeReplay()
        XCTAssertEqual(h.home.locationState().storedOnline, true, "a replay without apply writes nothing")
        // Shown as the app shows it: the status the replay drops is dropped here too, for the same reason.
        XCTAssertFalse(h.home.locationState().isOnline)
        XCTAssertEqual(h.home.locationRestoreChange(h.home.locationState())?.note, trace.steps[0].notes[0])
        XCTAssertThrowsError(try h.home.report(), "a dropped status is not revived by a report")
        trace = try await h.home.initializeReplay(apply: true)
        XCTAssertTrue(trace.steps[0].notes[0].contains("2-hour"))
        state = h.home.locationState()
        XCTAssertFalse(state.isOnline)
        XCTAssertNil(state.lastReportTime)
        XCTAssertNil(h.home.locationRestoreChange(state), "once applied, nothing is left to drop")
    }

    /// `location` answers as the home's restore does, at every outcome, and writes nothing: past the
    /// limit (or online without a report) the status shows dropped with the step's reason.
    func testLocationStateIsTheRestoresOutcome() async throws {
        let clock = FixedClock(Date())
        let h = try Harness(clock: clock)
        _ = try await h.login("13800000001")
        _ = try h.home.goOnline()
        clock.advance(by: 3 * 3600)
        let stored = try XCTUnwrap(FileManager.default.contents(atPath: h.storage.defaults.path))
        let state = h.home.locationState()
        guard case .clearedExpired(let elapsed) = state.restore else { return XCTFail("\(state.restore)") }
        XCTAssertEqual(elapsed, 3 * 3600, accuracy: 0.01)
        XCTAssertFalse(state.isOnline)
        XCTAssertNil(state.countdownSeconds)
        XCTAssertNil(state.lastReportTime)
        XCTAssertEqual(state.storedOnline, true)
        XCTAssertNotNil(state.storedLastReportTime)
        let change = try XCTUnwrap(h.home.locationRestoreChange(state))
        XCTAssertEqual(change.keys, ["1001_scenic_key_online_status", "1001_scenic_key_last_location_report_time"])
        let trace = try await h.home.initializeReplay(offline: true)
        XCTAssertEqual(trace.steps[0].notes, [change.note])
        XCTAssertEqual(trace.steps[0].writes, change.keys)
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.defaults.path), stored, "showing the state wrote")

        // Online without a last report: dropped too.
        try h.storage.appStore.setLastLocationReportTime(nil)
        XCTAssertEqual(h.home.locationState().restore, .clearedNoReport)
        XCTAssertFalse(h.home.locationState().isOnline)
        // Within the limit the countdown is the restore's.
        _ = try h.home.goOnline()
        clock.advance(by: 1800)
        guard case .resumed = h.home.locationState().restore else { return XCTFail("\(h.home.locationState().restore)") }
        XCTAssertEqual(h.home.locationState().countdownSeconds ?? 0, 5400, accuracy: 0.01)
        XCTAssertNil(h.home.locationRestoreChange(h.home.locationState()))
    }

    func testLocationDetailCallsLoacationPath() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        let detail = try await h.home.locationDetail()
        XCTAssertEqual(detail.value.staffId, 1001)
        XCTAssertEqual(detail.value.online, true)
        XCTAssertEqual(h.requests().last?.path, "/api/yf-handset-app/photog/loacation/detail")
        XCTAssertThrowsError(try h.home.remind(minutes: 5000))
    }

    func testReplayWithoutTokenUsesStoredState() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        h.contexts.session.reset()
        h.sandbox.resetRequestLog()
        let trace = try await h.home.initializeReplay()
        XCTAssertTrue(h.requests().isEmpty)
        XCTAssertTrue(trace.offline)
        XCTAssertEqual(trace.steps[2].calls.map(\.made), [false], "listed, not made: the stored answer stands in")
        XCTAssertNil(trace.dialog)
        // With neither token nor account there is nothing to replay.
        try h.auth.logout()
        await assertThrowsFeature({ try await h.home.initializeReplay() }) { $0 == .notLoggedIn }
    }
}
