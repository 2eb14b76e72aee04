import Foundation
import SXKTestSupport
import XCTest
import SXKAPI
import SXKSandbox
@testable import SXKFeatures

final class ScopeFeatureTests: BothSpellingsTestCase {
    func testRolesListAndSwitchChangesPermissions() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        let roles = try await h.scope.roles()
        XCTAssertEqual(Set(roles.map(\.code)), ["scenicAdmin", "photographer"])
        XCTAssertEqual(roles.filter(\.isCurrent).map(\.code), ["scenicAdmin"])
        XCTAssertEqual(roles.first { $0.code == "scenicAdmin" }?.scenicCount, 2)
        let adminPerms = Set(h.contexts.permission.permissionURIs)
        let change = try await h.scope.selectRole("photographer")
        XCTAssertEqual(change.roleCode, "photographer")
        let photoPerms = Set(h.contexts.permission.permissionURIs)
        XCTAssertFalse(photoPerms.isEmpty)
        XCTAssertNotEqual(adminPerms, photoPerms)
        XCTAssertEqual(h.contexts.store.roleCode, "photographer")
        XCTAssertEqual(Set(h.contexts.store.permissionItems().map(\.uri)), photoPerms)
        await assertThrowsFeature({ try await h.scope.selectRole("boss") }) {
            if case .unknownRole("boss", let valid) = $0 { return Set(valid) == ["scenicAdmin", "photographer"] }
            return false
        }
        XCTAssertEqual(h.contexts.permission.roleCode, "photographer")
    }

    func testScenicSwitchByIdAndNamePrefix() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        XCTAssertEqual(try h.scope.scenics().map(\.scenic.scenicId), [1, 2])
        var change = try await h.scope.selectScenic("灵隐")
        XCTAssertEqual(change.scenic?.scenicId, 2)
        XCTAssertEqual(h.contexts.store.currentScenicId, 2)
        XCTAssertEqual(h.contexts.store.currentScenicName, "灵隐寺")
        change = try await h.scope.selectScenic("1")
        XCTAssertEqual(change.scenic?.scenicName, "西湖景区")
        await assertThrowsFeature({ try await h.scope.selectScenic("千岛湖") }) { if case .scenicNotFound = $0 { return true }; return false }
    }

    func testAmbiguousScenicPrefix() throws {
        let list = [ScenicRef(scenicId: 1, scenicName: "西湖景区"), ScenicRef(scenicId: 5, scenicName: "西溪湿地")]
        XCTAssertThrowsError(try ScopeFeature.match("西", in: list, id: \.scenicId, name: \.scenicName,
            notFound: { FeatureError.scenicNotFound($0, available: $1) },
            ambiguous: { FeatureError.ambiguousScenic($0, matches: $1) })) { error in
            XCTAssertEqual(error as? FeatureError, .ambiguousScenic("西", matches: ["1 西湖景区", "5 西溪湿地"]))
        }
    }

    /// `scenic(matching:)` and `store(matching:)` are what `selectScenic` and `selectStore` (and `compare
    /// --as scenic:NAME|store:NAME`) match with: an exact name before a longer one it begins, among the
    /// current role's scenic areas and the current scenic's stores only.
    func testNamesAreMatchedExactFirstAmongWhatTheSwitchesOffer() async throws {
        let h = try Harness()
        _ = try await h.login("13800000004", choice: "4003")
        h.contexts.account.setStores(h.contexts.account.current.stores + [Store(storeId: 309, storeName: "梅峰", scenicId: 3),
                                                                          Store(storeId: 109, storeName: "断桥", scenicId: 1)])
        let exact = try await h.scope.store(matching: "梅峰")
        XCTAssertEqual(exact.storeId, 309)
        let chosen = try await h.scope.selectStore("梅峰")
        XCTAssertEqual(chosen.storeId, 309)
        let longer = try await h.scope.store(matching: "梅峰观")
        XCTAssertEqual(longer.storeId, 302)
        // Another scenic's store, even one named exactly, is not one `store` offers.
        await assertThrowsFeature({ try await h.scope.store(matching: "断桥") }) { if case .storeNotFound = $0 { return true }; return false }
        XCTAssertEqual(try h.scope.scenic(matching: "千岛湖").scenicId, 3)
        XCTAssertThrowsError(try h.scope.scenic(matching: "西湖")) { XCTAssertEqual($0 as? FeatureError, .scenicNotFound("西湖", available: ["3 千岛湖"])) }
    }

    /// A current store is kept when one of the new scenic's stores has its id, as `selectRole` and the
    /// home's match (`AppModel.storesOfScenic`) judge it, whichever entry of the list comes first.
    func testScenicSwitchKeepsAStoreTheNewScenicHolds() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        h.contexts.account.setStores([Store(storeId: 101, storeName: "断桥摄影店", scenicId: 1), Store(storeId: 101, storeName: "灵隐分店", scenicId: 2)])
        h.contexts.account.setStoreId(101)
        let change = try await h.scope.selectScenic("2")
        XCTAssertEqual(change.storeId, 101, "\(change.notes)")
        XCTAssertEqual(AppModel.matchStore(in: h.contexts.account.current.stores, scenicId: 2, savedStoreId: 101)?.storeId, 101)
        XCTAssertTrue(change.notes.isEmpty, "\(change.notes)")
    }

    func testScenicSwitchClearsForeignStore() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        // Give the scenic admin a store of scenic 1, then move to scenic 2.
        h.contexts.account.setStoreId(102)
        let change = try await h.scope.selectScenic("2")
        XCTAssertNil(change.storeId)
        XCTAssertNil(h.contexts.store.currentStoreId)
        XCTAssertTrue(change.notes.contains { $0.contains("102") })
        // A store of the same scenic stays.
        _ = try await h.scope.selectScenic("1")
        h.contexts.account.setStoreId(103)
        _ = try await h.scope.selectScenic("西湖")
        XCTAssertEqual(h.contexts.store.currentStoreId, 103)
    }

    func testFailedStoreLoadLeavesScopeIntact() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        h.contexts.account.setStores([])
        h.contexts.account.setStoreId(101)
        h.sandbox.injectFault(path: "/api/app/store/all", kind: .status500)
        await assertThrowsFeature({ try await h.scope.selectScenic("2") }) { $0.apiError != nil }
        XCTAssertEqual(h.contexts.account.current.scenicId, 1)
        XCTAssertEqual(h.contexts.account.current.storeId, 101)
        XCTAssertEqual(h.contexts.store.currentScenicId, 1)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
    }

    func testStoresFilteredByScenicAndSelect() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let stores = try await h.scope.stores()
        XCTAssertEqual(stores.map(\.store.storeId), [101, 102, 103])
        XCTAssertEqual(stores.filter(\.isCurrent).map(\.store.storeId), [101])
        _ = try await h.scope.selectStore("苏堤")
        XCTAssertEqual(h.contexts.store.currentStoreId, 102)
        _ = try await h.scope.selectStore("103")
        XCTAssertEqual(h.contexts.account.current.storeId, 103)
        await assertThrowsFeature({ try await h.scope.selectStore("301") }) { if case .storeNotFound = $0 { return true }; return false }
        // The store list is never persisted.
        XCTAssertFalse(h.contexts.store.defaults.entries.contains { $0.key.contains("store_list") })
        // A store the list gives no scenic: not the current scenic's, so the next home could not match
        // it; it is neither listed nor chosen (one rule with the home's match).
        h.contexts.account.setStores(h.contexts.account.current.stores + [Store(storeId: 909, storeName: "无景区门店", scenicId: nil)])
        let listed = try await h.scope.stores()
        XCTAssertFalse(listed.contains { $0.store.storeId == 909 })
        await assertThrowsFeature({ try await h.scope.selectStore("909") }) { if case .storeNotFound = $0 { return true }; return false }
        let all = h.contexts.account.current.stores
        XCTAssertNil(AppModel.matchStore(in: all, scenicId: 1, savedStoreId: 909))
        XCTAssertEqual(AppModel.storesOfScenic(all, scenicId: 1).map(\.storeId), AppModel.storesToChoose(all, scenicId: 1).map(\.storeId))
        // No scenic (none, or 0 stored): the home matches none, and any store may be chosen.
        for none in [nil, 0] as [Int?] { XCTAssertEqual(AppModel.storesToChoose(all, scenicId: none).count, all.count) }
    }

    func testLoginLoadsStoresOnlyForStoreAdminWithScenic() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        XCTAssertTrue(h.requests("/api/app/store/all").isEmpty)
        _ = try await h.login("13800000002")
        XCTAssertTrue(h.requests("/api/app/store/all").isEmpty)
        _ = try await h.login("13800000003")
        XCTAssertEqual(h.requests("/api/app/store/all").count, 1)
    }
}
