import Foundation
import SXKTestSupport
import XCTest
import SXKAPI
import SXKSandbox
@testable import SXKFeatures

final class ProfileFeatureTests: BothSpellingsTestCase {
    func testPhotographerCallsOverlapAndAreNotPersisted() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 150))
        _ = try await h.login("13800000001")
        let report = try await h.profile.reload()
        XCTAssertTrue(report.isPhotographer)
        XCTAssertNotNil(try report.realName?.get().value)
        XCTAssertNotNil(try report.bankCard?.get().value)
        XCTAssertEqual(Set(report.calls.map(\.path)).count, 3)
        XCTAssertTrue(report.sideCallsOverlapped, "real-name and bank-card must run concurrently: \(report.calls)")
        let keys = h.contexts.store.defaults.entries.map(\.key).joined(separator: " ")
        XCTAssertFalse(keys.contains("real_name_info") || keys.contains("bank"))
    }

    func testNonPhotographerGetsUserInfoOnly() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        h.sandbox.resetRequestLog()
        let report = try await h.profile.reload()
        XCTAssertFalse(report.isPhotographer)
        XCTAssertNil(report.realName)
        XCTAssertEqual(h.requests().map(\.path), ["/api/yf-handset-app/userinfo"])
    }

    func testWriteBackRules() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        // Rule 2: a non-empty API roleName replaces a local one.
        try h.contexts.store.setRoleName("旧名字")
        try h.contexts.store.setCurrentScenic(id: 1, name: "西湖景区")
        let report = try await h.profile.reload()
        let apiRoleName = try XCTUnwrap(report.userInfo.value.roleName)
        XCTAssertEqual(h.contexts.store.roleName, apiRoleName)
        XCTAssertEqual(h.contexts.permission.current.roleName, apiRoleName)
        XCTAssertEqual(h.contexts.store.userName, report.userInfo.value.userName)
        XCTAssertEqual(h.contexts.account.current.phone, report.userInfo.value.phone)

        // An empty roleName keeps the local one; absent fields are not touched.
        _ = try h.profile.writeBack(UserInfo(userName: "新用户", roleName: ""))
        XCTAssertEqual(h.contexts.store.roleName, apiRoleName)
        XCTAssertEqual(h.contexts.store.userName, "新用户")
        XCTAssertEqual(h.contexts.store.phone, report.userInfo.value.phone)
        // Rule 1: with no local role name, applyUserInfo fills it.
        try h.contexts.store.setRoleName(nil)
        let written = try h.profile.writeBack(UserInfo(roleName: "摄影师"))
        XCTAssertEqual(h.contexts.store.roleName, "摄影师")
        XCTAssertEqual(written, ["roleName (was empty)"])
    }

    func testValidateRunsUserInfoAndRolePermissionInParallel() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 150))
        _ = try await h.login("13800000002")
        try h.open()
        _ = try h.bootstrapper.restore()
        guard case .loggedIn(let report) = await h.bootstrapper.validate() else { return XCTFail("expected loggedIn") }
        XCTAssertEqual(report.calls.count, 2)
        XCTAssertTrue(report.calls[0].overlaps(report.calls[1]), "\(report.calls)")
    }
}
