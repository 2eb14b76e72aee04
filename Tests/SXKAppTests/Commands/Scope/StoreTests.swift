import Foundation
import XCTest

/// `store`: the current scenic area's stores, fetched afresh; `store ID` switches and `store -` goes back.
final class StoreTests: XCTestCase {
    func testStoreListsTheScenicsStoresAndSwitchesAndGoesBack() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["store", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let stores = try XCTUnwrap(try r.json() as? [[String: Any]], r.summary)
        XCTAssertEqual(stores.map { $0.wireInt("storeId") }, [101, 102, 103], r.summary)
        XCTAssertTrue(stores.allSatisfy { $0["current"] as? Bool == false }, r.summary)
        let switched = SXK.run(["-c", "store 102; whoami --jq .storeId; store 103; store -; whoami --jq .storeId"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(switched.status, 0, switched.summary)
        XCTAssertEqual(switched.stdout, "102\n102\n", switched.summary)
    }
}
