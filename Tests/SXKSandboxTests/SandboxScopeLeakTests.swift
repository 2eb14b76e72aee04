import Foundation
import SXKCore
import XCTest
@testable import SXKSandbox

/// The scope-leak fault: list pages carry rows of another scenic area or store until it is turned off.
final class SandboxScopeLeakTests: SandboxTestCase {
    func testLeakReplacesTheFirstRowsOfOrderAndDailyPagesWithAForeignScope() throws {
        let admin = try formalToken("13800000002", 2001)
        let store = try formalToken("13800000003", 3001)
        let orders = "/api/app/scenic-admin/order/list?scenicId=1&pageSize=5"
        let daily = "/api/app/store/analyse/daily?storeId=101&startDate=2026-03-01&endDate=2026-03-07"
        let clean = try XCTUnwrap(expectCode(try get(orders, token: admin), 100000)[field: "list"]?.arrayValue)
        XCTAssertEqual(Set(clean.compactMap { $0[field: "scenicName"]?.stringValue }), ["西湖景区"])
        XCTAssertNil(expectCode(try get(daily, token: store), 100000)[field: "list"]?.arrayValue?.first?[field: "storeId"])

        XCTAssertEqual(try call("POST", "/__sandbox/config", body: #"{"leakRows":2}"#).code, 100000)
        XCTAssertEqual(server.scopeLeakRows, 2)
        XCTAssertEqual(try get("/__sandbox/status", token: nil).data?[field: "leakRows"]?.intValue, 2)
        let page = expectCode(try get(orders, token: admin), 100000)
        let leaked = try XCTUnwrap(page[field: "list"]?.arrayValue)
        XCTAssertEqual(leaked.map { $0[field: "scenicName"]?.stringValue }, ["灵隐寺", "灵隐寺", "西湖景区", "西湖景区", "西湖景区"])
        XCTAssertEqual(page[field: "total"]?.intValue, 2000, "the leak changes rows, not the total")
        let days = try XCTUnwrap(expectCode(try get(daily, token: store), 100000)[field: "list"]?.arrayValue)
        XCTAssertEqual(days.map { $0[field: "storeId"]?.intValue }, [201, 201, nil, nil, nil, nil, nil])
        XCTAssertEqual(days[0][field: "scenicId"]?.intValue, 2)

        XCTAssertEqual(try call("POST", "/__sandbox/config", body: #"{"leakRows":-1}"#).status, 400)
        XCTAssertEqual(try call("POST", "/__sandbox/clear-faults").code, 100000)
        XCTAssertEqual(server.scopeLeakRows, 0)
        let again = try XCTUnwrap(expectCode(try get(orders, token: admin), 100000)[field: "list"]?.arrayValue)
        XCTAssertEqual(again.map { JSONWriter.string($0) }, clean.map { JSONWriter.string($0) })
    }
}
