import Foundation
import XCTest
import SXKCore
import SXKSandbox
import SXKSession
@testable import SXKFeatures

/// What a login writes, and when: the account list goes out while the context pair is in flight,
/// the snapshot and the default common menus go in one save after it, and the files are what the
/// separate saves wrote.
final class LoginWritesTests: XCTestCase {
    private static let userInfo = "/api/yf-handset-app/userinfo"
    private static let instant = Date(timeIntervalSince1970: 1_764_000_000)

    private func profileDir(_ h: Harness) -> String { h.stateDir + "/state/sandbox" }

    private func modified(_ path: String) throws -> Date {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try XCTUnwrap(attributes[.modificationDate] as? Date, path)
    }

    func testTheAccountListIsWrittenWhileTheContextPairIsInFlight() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        _ = try await h.login("13800000004", choice: "2")
        let info = try XCTUnwrap(h.requests(Self.userInfo).last)
        let answered = try XCTUnwrap(info.answered)
        let accounts = try modified(profileDir(h) + "/accounts.json")
        let defaults = try modified(profileDir(h) + "/defaults.json")
        // A quarter second apart at least, so the file clock's coarse steps cannot blur the order.
        XCTAssertLessThan(accounts, answered.addingTimeInterval(-0.15), "accounts.json was written after userinfo answered")
        XCTAssertGreaterThan(defaults, info.arrived.addingTimeInterval(0.15), "the snapshot must be written after the context loaded")
        XCTAssertEqual(try h.contexts.store.accountList.read()?.accounts.map(\.userId), [4001, 4002, 4003])
        XCTAssertEqual(h.warnings.all, [])
    }

    func testOneSaveOfSnapshotAndCommonMenusWritesTheBytesOfTwoSaves() async throws {
        let clock = FixedClock(Self.instant)
        let one = try Harness(config: SandboxConfig(ordersPerRole: 20), clock: clock)
        _ = try await one.login("13800000001")
        let role = try XCTUnwrap(one.contexts.permission.roleCode)
        let key = CommonMenuStore(store: one.contexts.store).key(roleCode: role)
        let menus = try XCTUnwrap(one.contexts.store.commonMenuURIs(roleCode: role), "the login wrote no common menus")
        XCTAssertEqual(menus.count, CommonMenuStore.defaultCount)

        // The same login, then the common menus taken out and written by a save of their own, as the
        // login wrote them when they followed the snapshot's save.
        let two = try Harness(config: SandboxConfig(ordersPerRole: 20), clock: clock)
        _ = try await two.login("13800000001")
        let store = two.contexts.store
        store.defaults.set(key, nil)
        try store.defaults.save()
        XCTAssertNil(store.commonMenuURIs(roleCode: role))
        _ = try CommonMenuStore(store: store).commonURIs(roleCode: role, visibleURIs: two.contexts.permission.current.permissions.map(\.uri))

        let first = try XCTUnwrap(FileManager.default.contents(atPath: profileDir(one) + "/defaults.json"))
        let second = try XCTUnwrap(FileManager.default.contents(atPath: profileDir(two) + "/defaults.json"))
        XCTAssertEqual(String(decoding: first, as: UTF8.self), String(decoding: second, as: UTF8.self))
        XCTAssertEqual(try one.contexts.store.accountList.read(), try two.contexts.store.accountList.read())
    }

    func testASnapshotThatCannotBeSavedLeavesNoCommonMenusBehind() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 2_000))
        let defaultsFile = profileDir(h) + "/defaults.json"
        let login = Task { try await h.login("13800000001") }
        // Once the pair is in flight the login's first save is done; from then on the defaults
        // cannot be replaced (a folder where the file was).
        let deadline = Date().addingTimeInterval(10)
        while h.requests(Self.userInfo).isEmpty && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        // Waited for, not slept on: the saves are synced to disk, which a loaded machine makes slow.
        let fm = FileManager.default
        while (!fm.fileExists(atPath: defaultsFile) || !fm.fileExists(atPath: profileDir(h) + "/accounts.json")
               || ((try? fm.contentsOfDirectory(atPath: profileDir(h))) ?? []).contains { $0.contains(".tmp-") }) && Date() < deadline {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        XCTAssertNil(h.requests(Self.userInfo).last?.answered, "the pair answered before the disk was blocked")
        try FileManager.default.removeItem(atPath: defaultsFile)
        try FileManager.default.createDirectory(atPath: defaultsFile + "/blocked", withIntermediateDirectories: true)
        let outcome = try await login.value
        XCTAssertEqual(outcome.warnings.count, 1, "\(outcome.warnings)")
        XCTAssertTrue(outcome.warnings.first?.hasPrefix("logged in, but the account snapshot was not saved: ") ?? false, "\(outcome.warnings)")

        // The snapshot stays to be saved; the common menus were given up, as when they were only
        // tried after a saved snapshot, so the next save does not write them.
        let store = h.contexts.store
        let role = try XCTUnwrap(h.contexts.permission.roleCode)
        let key = CommonMenuStore(store: store).key(roleCode: role)
        XCTAssertNil(store.commonMenuURIs(roleCode: role))
        XCTAssertFalse(store.defaults.isPending(key))
        let permissions = StoreKey.scoped(StoreKey.rolePermissionList, prefix: store.accountCachePrefix)
        XCTAssertTrue(store.defaults.isPending(permissions))
        try FileManager.default.removeItem(atPath: defaultsFile)
        try store.defaults.save()
        let saved = try XCTUnwrap(JSONSerialization.jsonObject(with: XCTUnwrap(FileManager.default.contents(atPath: defaultsFile))) as? [String: Any])
        XCTAssertNil(saved[key], "the given-up common menus were written by a later save")
        XCTAssertNotNil(saved[permissions], "the snapshot was not kept to be saved: \(saved.keys.sorted())")
    }
}
