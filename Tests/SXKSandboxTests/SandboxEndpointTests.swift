import Foundation
import SXKCore
import SXKModels
import XCTest
@testable import SXKSandbox

final class SandboxEndpointTests: SandboxTestCase {
    func testPhotographerEndpoints() throws {
        let token = try formalToken("13800000001", 1001)
        let info = expectCode(try get("/api/yf-handset-app/userinfo", token: token), 100000)
        XCTAssertEqual(info[field: "realName"]?.stringValue, "林晓峰")
        XCTAssertEqual(info[field: "phone"]?.stringValue, "13800000001")
        XCTAssertEqual(info[field: "roleName"]?.stringValue, "摄影师")

        let roles = try XCTUnwrap(expectCode(try get("/api/yf-handset-app/role-permission", token: token), 100000).arrayValue)
        XCTAssertEqual(roles.count, 1)
        XCTAssertEqual(roles[0][field: "roleCode"]?.stringValue, "photographer")
        XCTAssertEqual(roles[0][field: "scenicList"]?.arrayValue?.first?[field: "scenicName"]?.stringValue, "西湖景区")
        let uris = roles[0][field: "permissions"]?.arrayValue?.compactMap { $0[field: "uri"]?.stringValue } ?? []
        XCTAssertTrue((6...15).contains(uris.count))
        XCTAssertTrue(uris.contains("home/order") && uris.contains("home/real-name"))
        XCTAssertTrue(uris.allSatisfy { uri in SandboxCatalog.permissions.contains { $0.uri == uri } })

        let realName = expectCode(try get("/api/yf-handset-app/photog/real-name/info", token: token), 100000)
        XCTAssertEqual(realName[field: "status"]?.intValue, 2)
        XCTAssertEqual(realName[field: "idCardNo"]?.stringValue?.contains("****"), true)
        let card = expectCode(try get("/api/yf-handset-app/photog/wallet/bank-card/info", token: token), 100000)
        XCTAssertEqual(card[field: "bound"], .bool(true))
        XCTAssertEqual(card[field: "cardNo"]?.stringValue?.contains("****"), true)

        let location = expectCode(try get("/api/yf-handset-app/photog/loacation/detail?staff_id=1001", token: token), 100000)
        XCTAssertEqual(location[field: "online"], .bool(true))
        XCTAssertEqual(location[field: "staffId"]?.intValue, 1001)
        let reported = try XCTUnwrap(WireDate.parseTimestamp(location[field: "lastReportTime"]?.stringValue ?? ""))
        XCTAssertLessThan(Date().timeIntervalSince(reported), 3 * 3600)
        XCTAssertEqual(location[field: "latitude"]?.doubleValue ?? 0, 30.26, accuracy: 0.05)
        XCTAssertEqual(location[field: "longitude"]?.doubleValue ?? 0, 120.15, accuracy: 0.05)
        expectCode(try get("/api/yf-handset-app/photog/loacation/detail", token: token), 100400)

        let orders = expectCode(try get("/api/yf-handset-app/photog/order/listv2?page=1&pageSize=5", token: token), 100000)
        let list = try XCTUnwrap(orders[field: "list"]?.arrayValue)
        XCTAssertEqual(list.count, 5)
        XCTAssertEqual(orders[field: "total"]?.intValue, 2000)
        let first = try XCTUnwrap(list.first?.objectValue)
        for key in ["orderId", "orderNo", "status", "statusText", "amount", "createTime", "customerPhone", "scenicName", "photographerName"] {
            XCTAssertNotNil(first[key], "order has \(key)")
        }
        XCTAssertEqual(first.string("photographerName"), "林晓峰")
        XCTAssertNotNil(first.string("customerPhone")?.range(of: #"^1\d\d\*{4}\d{4}$"#, options: .regularExpression))
        XCTAssertNotNil(WireDate.parseTimestamp(first.string("createTime") ?? ""))

        let range = "startDate=2020-01-01&endDate=2029-12-31"
        let summary = expectCode(try get("/api/yf-handset-app/photog/analyse/user?\(range)", token: token), 100000)
        XCTAssertGreaterThan(summary[field: "orderCount"]?.intValue ?? 0, 1000)
        let daily = expectCode(try get("/api/yf-handset-app/photog/analyse/user/daily?startDate=2026-01-01&endDate=2026-01-31&pageSize=10", token: token), 100000)
        XCTAssertEqual(daily[field: "total"]?.intValue, 31)
        XCTAssertEqual(daily[field: "list"]?.arrayValue?.first?[field: "date"]?.stringValue, "2026-01-31")
    }

    func testScenicAdminEndpoints() throws {
        let token = try formalToken("13800000002", 2001)
        let roles = try XCTUnwrap(expectCode(try get("/api/yf-handset-app/role-permission", token: token), 100000).arrayValue)
        XCTAssertEqual(roles.compactMap { $0[field: "roleCode"]?.stringValue }, ["scenicAdmin", "photographer"])
        XCTAssertEqual(roles[0][field: "scenicList"]?.arrayValue?.compactMap { $0[field: "scenicId"]?.intValue }, [1, 2])

        let orders = expectCode(try get("/api/app/scenic-admin/order/list?scenicId=2&pageSize=3", token: token), 100000)
        XCTAssertEqual(orders[field: "list"]?.arrayValue?.first?[field: "scenicName"]?.stringValue, "灵隐寺")
        let summary = expectCode(try get("/api/app/scenic-admin/analyse?scenic_id=1&start_date=2020-01-01&end_date=2029-12-31", token: token), 100000)
        XCTAssertGreaterThan(summary[field: "orderCount"]?.intValue ?? 0, 0)
        let daily = expectCode(try get("/api/app/scenic-admin/analyse/daily?scenicId=1&startDate=2026-03-01&endDate=2026-03-02", token: token), 100000)
        XCTAssertEqual(daily[field: "total"]?.intValue, 2)
        // The extra photographer role reaches the photographer endpoints with its own orders.
        let own = expectCode(try get("/api/yf-handset-app/photog/order/listv2?pageSize=1", token: token), 100000)
        XCTAssertEqual(own[field: "list"]?.arrayValue?.first?[field: "photographerName"]?.stringValue, "陈静怡")
    }

    func testStoreAdminEndpoints() throws {
        let token = try formalToken("13800000003", 3001)
        let stores = try XCTUnwrap(expectCode(try get("/api/app/store/all", token: token), 100000).arrayValue)
        XCTAssertEqual(stores.compactMap { $0[field: "storeId"]?.intValue }, [101, 102, 103, 201, 301, 302])
        XCTAssertEqual(stores[0][field: "storeName"]?.stringValue, "断桥摄影店")
        XCTAssertEqual(stores[4][field: "scenicId"]?.intValue, 3)

        let orders = expectCode(try get("/api/app/store/order/list?storeId=101&pageSize=50", token: token), 100000)
        let list = try XCTUnwrap(orders[field: "list"]?.arrayValue)
        XCTAssertEqual(list.count, 50)
        for order in list {
            XCTAssertEqual(order[field: "storeName"]?.stringValue, "断桥摄影店")
            XCTAssertLessThanOrEqual(cents(order[field: "depositAmount"]), cents(order[field: "amount"]))
            let writeOff = order[field: "writeOffStatus"]?.intValue
            XCTAssertEqual(writeOff, order[field: "status"]?.intValue == 3 ? 1 : 0)
        }
        expectCode(try get("/api/app/store/analyse?storeId=101&startDate=2026-01-01&endDate=2026-12-31", token: token), 100000)
        expectCode(try get("/api/app/store/analyse/daily?storeId=101&startDate=2026-01-01&endDate=2026-12-31", token: token), 100000)
    }

    func testRoleAndScopeRules() throws {
        let photographer = try formalToken("13800000001", 1001)
        let scenicAdmin = try formalToken("13800000002", 2001)
        let storeAdmin = try formalToken("13800000003", 3001)
        let forbidden = try get("/api/app/scenic-admin/order/list?scenicId=1", token: photographer)
        expectCode(forbidden, 100403)
        XCTAssertEqual(forbidden.msg, "无权限访问")
        expectCode(try get("/api/app/store/order/list?storeId=101", token: photographer), 100403)
        expectCode(try get("/api/app/store/analyse?storeId=101&startDate=2026-01-01&endDate=2026-01-02", token: scenicAdmin), 100403)
        expectCode(try get("/api/yf-handset-app/photog/order/listv2", token: storeAdmin), 100403)
        expectCode(try get("/api/yf-handset-app/photog/real-name/info", token: storeAdmin), 100403)

        let missingScenic = try get("/api/app/scenic-admin/order/list", token: scenicAdmin)
        expectCode(missingScenic, 100400)
        XCTAssertTrue(missingScenic.msg?.contains("scenicId") == true)
        expectCode(try get("/api/app/scenic-admin/order/list?scenicId=3", token: scenicAdmin), 100403)
        expectCode(try get("/api/app/scenic-admin/analyse?scenicId=3&startDate=2026-01-01&endDate=2026-01-02", token: scenicAdmin), 100403)
        expectCode(try get("/api/app/scenic-admin/order/list?scenicId=abc", token: scenicAdmin), 100400)
        let missingStore = try get("/api/app/store/order/list", token: storeAdmin)
        expectCode(missingStore, 100400)
        XCTAssertTrue(missingStore.msg?.contains("storeId") == true)
        expectCode(try get("/api/app/store/order/list?storeId=102", token: storeAdmin), 100403)
        expectCode(try get("/api/app/store/analyse/daily?storeId=301&startDate=2026-01-01&endDate=2026-01-02", token: storeAdmin), 100403)
    }

    func testUnknownPathAndWrongMethod() throws {
        let missing = try get("/api/app/nothing", token: nil)
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.code, 100404)
        let wrongMethod = try call("GET", "/api/app/v9/login")
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.code, 100405)
    }
}
