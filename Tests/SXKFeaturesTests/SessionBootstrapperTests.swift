import Foundation
import SXKTestSupport
import XCTest
import SXKCore
import SXKAPI
import SXKSession
import SXKSandbox
@testable import SXKFeatures

final class SessionBootstrapperTests: BothSpellingsTestCase {
    func testRestoreFromSnapshotMakesNoRequestUntilValidate() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let before = h.contexts.account.current
        try h.open()
        h.sandbox.resetRequestLog()
        let restored = try h.bootstrapper.restore()
        XCTAssertEqual(restored, RestoreResult(phase: .restoring, hadToken: true, hadSnapshot: true))
        XCTAssertEqual(h.contexts.account.current.userId, 3001)
        XCTAssertEqual(h.contexts.account.current.scenicId, before.scenicId)
        XCTAssertEqual(h.contexts.account.current.storeId, 101)
        XCTAssertEqual(h.contexts.permission.roleCode, "storeAdmin")
        XCTAssertFalse(h.contexts.permission.current.permissions.isEmpty)
        XCTAssertTrue(h.requests().isEmpty, "restore must not touch the network")
        XCTAssertTrue(h.bootstrapper.needsValidation)

        guard case .loggedIn(let report) = await h.bootstrapper.validate() else { return XCTFail("expected loggedIn") }
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
        XCTAssertEqual(report.store?.matched?.storeId, 101)
        // The store list goes out with the pair: the snapshot already says storeAdmin with a scenic.
        let paths = h.requests().map(\.path)
        XCTAssertEqual(Set(paths), ["/api/yf-handset-app/userinfo", "/api/yf-handset-app/role-permission", "/api/app/store/all"])
        XCTAssertEqual(paths.count, 3)
        // userinfo and role-permission ran in parallel: both were sent before either answered.
        let calls = report.calls
        XCTAssertEqual(calls.count, 3)
        XCTAssertFalse(h.bootstrapper.needsValidation)
    }

    /// Another account's state written under the same token (an import that kept it): a scope save
    /// onto it is refused, and the next command reads the stored session again instead of refusing
    /// every save from then on.
    func testAnotherAccountUnderTheSameTokenIsReadAgainAfterARefusedSave() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        XCTAssertNil(try h.bootstrapper.readAgainIfChangedElsewhere(), "nothing changed")
        let other = try ProfileStorage(paths: h.storage.paths, warn: { _ in })
        other.appStore.defaults.set("key_in_user_id", 4003)
        try other.appStore.defaults.save()
        XCTAssertThrowsError(try h.contexts.store.setCurrentStoreId(102))
        let notice = try h.bootstrapper.readAgainIfChangedElsewhere()
        XCTAssertTrue(notice?.contains("now user 4003") == true, "\(String(describing: notice))")
        XCTAssertEqual(h.contexts.account.current.userId, 4003)
        try h.contexts.store.setCurrentStoreId(301)
        XCTAssertNil(try h.bootstrapper.readAgainIfChangedElsewhere(), "said once")
    }

    func testRestoreWithoutTokenIsLoggedOut() throws {
        let h = try Harness()
        XCTAssertEqual(try h.bootstrapper.restore(), RestoreResult(phase: .loggedOut, hadToken: false, hadSnapshot: false))
        XCTAssertTrue(h.requests().isEmpty)
    }

    func testRestoreWithExpiredTokenLogsOut() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        try h.open()
        h.sandbox.expireTokens()
        XCTAssertEqual(try h.bootstrapper.restore().phase, .restoring)
        guard case .loggedOut(let notice) = await h.bootstrapper.validate() else { return XCTFail("expected loggedOut") }
        XCTAssertEqual(notice, SessionGuard.expiredNotice)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
        XCTAssertNil(try h.contexts.store.token())
        XCTAssertNil(h.contexts.store.userId)
        XCTAssertEqual(h.contexts.store.lastLoginUsername, "13800000001")
        XCTAssertEqual(h.sessionGuard.resetCount, 1)
    }

    func testRestoreWithTokenTTLLogsOut() async throws {
        let clock = FixedClock(Date())
        let h = try Harness(config: SandboxConfig(ordersPerRole: 50, tokenTTL: 60, clock: clock))
        _ = try await h.login("13800000001")
        clock.advance(by: 120)
        try h.open()
        _ = try h.bootstrapper.restore()
        guard case .loggedOut = await h.bootstrapper.validate() else { return XCTFail("expected loggedOut") }
        XCTAssertNil(try h.contexts.store.token())
    }

    func testRestoreWithSandboxDownKeepsSnapshotOffline() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        h.sandbox.stop()
        try h.open()
        _ = try h.bootstrapper.restore()
        guard case .offline(let failure) = await h.bootstrapper.validate() else { return XCTFail("expected offline") }
        XCTAssertEqual(failure.apiError?.kind, .network, "\(failure)")
        let s = h.contexts.session.current
        XCTAssertTrue(s.offline)
        XCTAssertNotNil(s.token)
        XCTAssertEqual(h.contexts.account.current.userId, 2001)
        XCTAssertEqual(h.contexts.permission.roleCode, "scenicAdmin")
        XCTAssertNotNil(try h.contexts.store.token())
        XCTAssertTrue(h.bootstrapper.needsValidation)
    }

    func testExpiryMidCommandResetsOnce() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        h.sandbox.expireTokens()
        // Several commands in flight see the expiry; the session is reset exactly once.
        let orders = h.orders!
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { _ = try? await orders.fetchPage(page: 1, pageSize: 5) }
            }
        }
        XCTAssertEqual(h.sessionGuard.resetCount, 1)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
        XCTAssertNil(try h.contexts.store.token())
        XCTAssertEqual(h.contexts.store.lastLoginUsername, "13800000002")
        await assertThrowsFeature({ try await h.orders.fetchPage() }) { $0 == .notLoggedIn }
        // The API client also reported one expiry to its observer.
        XCTAssertEqual(h.expiries.all.count, 1)
    }

    func testExpiryErrorMapsToSessionExpiredKind() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        h.sandbox.expireTokens()
        await assertThrowsFeature({ try await h.orders.fetchPage() }) { $0.apiError?.kind == .sessionExpired }
    }
}
