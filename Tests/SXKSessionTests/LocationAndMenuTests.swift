import Foundation
import XCTest
import SXKCore
@testable import SXKSession
import SXKFeatures

final class LocationAndMenuTests: XCTestCase {
    private func loggedInStore(_ clock: FixedClock) throws -> (ProfileStorage, AppStore) {
        let storage = try ProfileStorage(paths: try makePaths(makeTempDir(self)), warn: { _ in }, clock: clock)
        try storage.appStore.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        return (storage, storage.appStore)
    }

    func testTwoHourRuleAt1h59mAnd2h01m() throws {
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        let clock = FixedClock(start)
        let (storage, store) = try loggedInStore(clock)
        let location = LocationStateStore(store: store, clock: clock)
        try location.goOnline()
        XCTAssertEqual(storage.defaults["1001_scenic_key_online_status"], .bool(true))
        XCTAssertNotNil(storage.defaults["1001_scenic_key_last_location_report_time"])

        clock.set(start.addingTimeInterval(119 * 60))
        XCTAssertEqual(try location.restore(), .resumed(remaining: 60))
        XCTAssertEqual(location.state.countdownSeconds, 60)
        XCTAssertEqual(store.onlineStatus, true)

        clock.set(start.addingTimeInterval(121 * 60))
        XCTAssertEqual(try location.restore(), .clearedExpired(elapsed: 121 * 60))
        XCTAssertNil(store.onlineStatus)
        XCTAssertNil(store.lastLocationReportTime)
        XCTAssertNil(storage.defaults["1001_scenic_key_online_status"])
        XCTAssertEqual(location.state.isOnline, false)
    }

    func testRestoreWithoutReportOrOffline() throws {
        let clock = FixedClock(Date(timeIntervalSince1970: 1_760_000_000))
        let (_, store) = try loggedInStore(clock)
        let location = LocationStateStore(store: store, clock: clock)
        XCTAssertEqual(try location.restore(), .stopped)
        try store.setOnlineStatus(true)
        XCTAssertEqual(try location.restore(), .clearedNoReport)
        XCTAssertNil(store.onlineStatus)
        try location.goOnline()
        try location.goOffline()
        clock.advance(by: 3 * 3600)
        XCTAssertEqual(try location.restore(), .stopped, "offline: nothing is cleared")
        XCTAssertNotNil(store.lastLocationReportTime)
    }

    func testReportAndRemind() throws {
        let clock = FixedClock(Date(timeIntervalSince1970: 1_760_000_000))
        let (_, store) = try loggedInStore(clock)
        let location = LocationStateStore(store: store, clock: clock)
        XCTAssertThrowsError(try location.report())
        try location.goOnline()
        clock.advance(by: 5400)
        XCTAssertEqual(location.state.countdownSeconds, 1800)
        try location.report()
        XCTAssertEqual(location.state.countdownSeconds, 7200)
        try location.remind(minutes: 30)
        XCTAssertEqual(store.locationReminderMinutes, 30)
        XCTAssertThrowsError(try location.remind(minutes: -5))
        try location.remind(minutes: 0)
        XCTAssertNil(store.locationReminderMinutes)
    }

    func testCommonMenuDefaultOfFourWrittenUnderItsKey() throws {
        let clock = FixedClock(Date(timeIntervalSince1970: 1_760_000_000))
        let (storage, store) = try loggedInStore(clock)
        let menus = CommonMenuStore(store: store)
        let visible = ["a/1", "b/2", "c/3", "d/4", "e/5", "f/6"]
        XCTAssertEqual(menus.key(roleCode: "photographer"), "1001_scenic_role_photographer_common_uris")
        XCTAssertEqual(try menus.commonURIs(roleCode: "photographer", visibleURIs: []), [], "no permissions → nothing written")
        XCTAssertNil(storage.defaults["1001_scenic_role_photographer_common_uris"])
        XCTAssertEqual(try menus.commonURIs(roleCode: "photographer", visibleURIs: visible), ["a/1", "b/2", "c/3", "d/4"])
        XCTAssertEqual(storage.defaults["1001_scenic_role_photographer_common_uris"], ["a/1", "b/2", "c/3", "d/4"])
        XCTAssertEqual(try ProfileStorage(paths: storage.paths, warn: { _ in }).appStore.commonMenuURIs(roleCode: "photographer"), ["a/1", "b/2", "c/3", "d/4"])

        XCTAssertEqual(try menus.add("f/6", roleCode: "photographer", visibleURIs: visible), ["a/1", "b/2", "c/3", "d/4", "f/6"])
        XCTAssertThrowsError(try menus.add("f/6", roleCode: "photographer", visibleURIs: visible), "no duplicates")
        XCTAssertThrowsError(try menus.add("zzz", roleCode: "photographer", visibleURIs: visible), "not visible")
        XCTAssertEqual(try menus.remove("a/1", roleCode: "photographer", visibleURIs: visible), ["b/2", "c/3", "d/4", "f/6"])
        XCTAssertThrowsError(try menus.remove("a/1", roleCode: "photographer", visibleURIs: visible))
        // A record, even one made shorter by the user, is not replaced by the default.
        XCTAssertEqual(try menus.commonURIs(roleCode: "photographer", visibleURIs: visible), ["b/2", "c/3", "d/4", "f/6"])
        // Another role has its own key.
        XCTAssertEqual(try menus.commonURIs(roleCode: "scenicAdmin", visibleURIs: ["x"]), ["x"])
        XCTAssertNotNil(storage.defaults["1001_scenic_role_scenicAdmin_common_uris"])
    }
}
