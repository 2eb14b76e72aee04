import SXKAPI
import SXKCore
import SXKSession
import XCTest
@testable import SXKFeatures

/// The scope guard's judgement of single rows, and the expectation it builds from the contexts.
final class ScopeGuardTests: XCTestCase {
    let westLake = ScenicRef(scenicId: 1, scenicName: "西湖景区")

    func row(_ object: JSONObject) -> JSONValue { .object(object) }

    func testRowsAreJudgedByIdWhenPresentThenByName() {
        let scenic = ScopeExpectation(scenics: [westLake])
        XCTAssertFalse(scenic.isOutside(row(["scenicId": 1, "scenicName": "别处"])), "the id wins over the name")
        XCTAssertTrue(scenic.isOutside(row(["scenic_id": "2"])))
        XCTAssertFalse(scenic.isOutside(row(["scenicName": "西湖景区"])))
        XCTAssertTrue(scenic.isOutside(row(["scenicName": "千岛湖"])))
        XCTAssertFalse(scenic.isOutside(row(["orderNo": "X"])), "a row naming no scope is not judged")
        XCTAssertFalse(scenic.isOutside(row(["scenicName": ""])))
        XCTAssertFalse(scenic.isOutside(.string("not an object")))

        let store = ScopeExpectation(scenics: [westLake], storeId: 101, storeName: "断桥摄影店")
        XCTAssertTrue(store.isOutside(row(["storeId": 102, "scenicId": 1])))
        XCTAssertTrue(store.isOutside(row(["storeName": "苏堤旅拍馆", "scenicName": "西湖景区"])))
        XCTAssertTrue(store.isOutside(row(["storeName": "断桥摄影店", "scenicName": "千岛湖"])))
        XCTAssertFalse(store.isOutside(row(["storeName": "断桥摄影店", "scenicName": "西湖景区"])))
        XCTAssertEqual(store.countOutside([row(["storeId": 1]), row(["storeId": 101]), row(["storeId": 2])]), 2)

        XCTAssertNil(store.warning(outside: 0))
        XCTAssertEqual(store.warning(outside: 1), "1 row outside the current scope (store 101 断桥摄影店): server-side authorization bug?")
        XCTAssertEqual(ScopeExpectation(scenics: [westLake, ScenicRef(scenicId: 2, scenicName: "灵隐寺")]).warning(outside: 3),
                       "3 rows outside the current scope (scenics 1 西湖景区, 2 灵隐寺): server-side authorization bug?")
    }

    func testExpectationsComeFromTheRequestedScope() throws {
        let h = try Harness()
        let contexts: SessionContexts = try XCTUnwrap(h.contexts)
        contexts.account.setScenic(id: 1, name: "西湖景区")
        contexts.account.setStores([Store(storeId: 101, storeName: "断桥摄影店", scenicId: 1), Store(storeId: 201, storeName: "灵隐禅心摄影", scenicId: 2)])
        AppModel.loadPermissions([
            RolePermission(roleCode: "scenicAdmin", roleName: "景区管理员", scenicList: [westLake, ScenicRef(scenicId: 2, scenicName: "灵隐寺")], permissions: []),
            RolePermission(roleCode: "photographer", roleName: "摄影师", scenicList: [westLake], permissions: []),
        ], into: contexts.permission)
        XCTAssertEqual(ScopeGuard.expectation(for: RoleEndpoints.photographer, contexts: contexts), ScopeExpectation(scenics: [westLake]))
        XCTAssertEqual(ScopeGuard.expectation(for: RoleEndpoints.scenicAdmin(scenicId: 2), contexts: contexts)?.label, "scenic 2 灵隐寺")
        let store = try XCTUnwrap(ScopeGuard.expectation(for: RoleEndpoints.storeAdmin(storeId: 201), contexts: contexts))
        XCTAssertEqual(store.label, "store 201 灵隐禅心摄影")
        XCTAssertEqual(store.scenics.map(\.scenicId), [2], "the store's own scenic, not the current one")
    }
}
