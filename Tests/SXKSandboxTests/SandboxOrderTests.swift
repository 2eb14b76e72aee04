import Foundation
import SXKCore
import XCTest
@testable import SXKSandbox

final class SandboxOrderTests: SandboxTestCase {
    let listPath = "/api/yf-handset-app/photog/order/listv2"

    func testPagingLastPageAndClamping() throws {
        let token = try formalToken("13800000001", 1001)
        let last = expectCode(try get("\(listPath)?page=100&pageSize=20", token: token), 100000)
        XCTAssertEqual(last[field: "list"]?.arrayValue?.count, 20)
        XCTAssertEqual(last[field: "total"]?.intValue, 2000)
        let beyond = expectCode(try get("\(listPath)?page=101&pageSize=20", token: token), 100000)
        XCTAssertEqual(beyond[field: "list"]?.arrayValue?.count, 0)
        let partial = expectCode(try get("\(listPath)?page=7&pageSize=300", token: token), 100000)
        XCTAssertEqual(partial[field: "pageSize"]?.intValue, 100)
        XCTAssertEqual(partial[field: "list"]?.arrayValue?.count, 100)
        let defaults = expectCode(try get("\(listPath)?page=0", token: token), 100000)
        XCTAssertEqual(defaults[field: "page"]?.intValue, 1)
        XCTAssertEqual(defaults[field: "pageSize"]?.intValue, 20)
        expectCode(try get("\(listPath)?page=x", token: token), 100400)
    }

    func testPagesAreNewestFirstAndDisjoint() throws {
        let token = try formalToken("13800000001", 1001)
        var ids = Set<Int>()
        var previous = "9999"
        for page in 1...3 {
            let list = expectCode(try get("\(listPath)?page=\(page)&page_size=100", token: token), 100000)[field: "list"]?.arrayValue ?? []
            for order in list {
                ids.insert(order[field: "orderId"]?.intValue ?? -1)
                let time = order[field: "createTime"]?.stringValue ?? ""
                XCTAssertLessThanOrEqual(time, previous)
                previous = time
            }
        }
        XCTAssertEqual(ids.count, 300)
    }

    func testStatusAndKeywordFilters() throws {
        let token = try formalToken("13800000002", 2001)
        let base = "/api/app/scenic-admin/order/list?scenicId=1"
        var sum = 0
        for status in 1...4 {
            let data = expectCode(try get("\(base)&status=\(status)&pageSize=100&page=2", token: token), 100000)
            let list = data[field: "list"]?.arrayValue ?? []
            XCTAssertFalse(list.isEmpty)
            XCTAssertTrue(list.allSatisfy { $0[field: "status"]?.intValue == status })
            XCTAssertEqual(Set(list.compactMap { $0[field: "statusText"]?.stringValue }).count, 1)
            sum += data[field: "total"]?.intValue ?? 0
        }
        XCTAssertEqual(sum, 2000)
        expectCode(try get("\(base)&status=9", token: token), 100400)

        // Filtered paging reaches the exact last item.
        let refunds = expectCode(try get("\(base)&status=4&pageSize=1", token: token), 100000)
        let refundTotal = refunds[field: "total"]?.intValue ?? 0
        let lastRefund = expectCode(try get("\(base)&status=4&pageSize=1&page=\(refundTotal)", token: token), 100000)
        XCTAssertEqual(lastRefund[field: "list"]?.arrayValue?.first?[field: "status"]?.intValue, 4)
        let pastRefund = expectCode(try get("\(base)&status=4&pageSize=1&page=\(refundTotal + 1)", token: token), 100000)
        XCTAssertEqual(pastRefund[field: "list"]?.arrayValue?.count, 0)

        // Keyword by order number, customer name and photographer name.
        let sample = try XCTUnwrap(expectCode(try get("\(base)&page=5", token: token), 100000)[field: "list"]?.arrayValue?.first)
        let orderNo = try XCTUnwrap(sample[field: "orderNo"]?.stringValue)
        let byNo = expectCode(try get("\(base)&keyword=\(orderNo)", token: token), 100000)
        XCTAssertEqual(byNo[field: "total"]?.intValue, 1)
        XCTAssertEqual(byNo[field: "list"]?.arrayValue?.first?[field: "orderNo"]?.stringValue, orderNo)
        let customer = try XCTUnwrap(sample[field: "customerName"]?.stringValue)
        let encoded = customer.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let byCustomer = expectCode(try get("\(base)&keyword=\(encoded)&pageSize=100", token: token), 100000)
        XCTAssertGreaterThan(byCustomer[field: "total"]?.intValue ?? 0, 0)
        XCTAssertTrue(byCustomer[field: "list"]!.arrayValue!.allSatisfy {
            ($0[field: "customerName"]?.stringValue ?? "").contains(customer) || ($0[field: "orderNo"]?.stringValue ?? "").contains(customer)
        })
        let photographer = "%E5%91%A8%E5%AD%90%E5%A2%A8"  // 周子墨
        let byPhotographer = expectCode(try get("\(base)&keyword=\(photographer)&status=3&pageSize=100", token: token), 100000)
        let hits = byPhotographer[field: "list"]?.arrayValue ?? []
        XCTAssertFalse(hits.isEmpty)
        XCTAssertTrue(hits.allSatisfy { $0[field: "status"]?.intValue == 3 })
        let none = expectCode(try get("\(base)&keyword=zzzz", token: token), 100000)
        XCTAssertEqual(none[field: "total"]?.intValue, 0)
    }

    func testSameSeedSameOrders() throws {
        let other = SandboxServer(config: SandboxConfig(referenceDate: server.referenceDate))
        let a = server.api.scopes["scenic:1"]!
        let b = other.api.scopes["scenic:1"]!
        XCTAssertEqual(a.json(a.order(17)), b.json(b.order(17)))
        let third = SandboxServer(config: SandboxConfig(seed: 7, referenceDate: server.referenceDate))
        let c = third.api.scopes["scenic:1"]!
        XCTAssertNotEqual(a.json(a.order(17)), c.json(c.order(17)))
    }
}

final class SandboxStatisticsTests: SandboxTestCase {
    /// A fixed reference date so ranges are known: orders span 2026-03-02 … 2026-05-31.
    override func makeConfig() -> SandboxConfig {
        SandboxConfig(referenceDate: WireDate.parseTimestamp("2026-05-31 20:00:00"))
    }

    func dailySum(_ base: String, _ range: String, token: String) throws -> (count: Int, amount: Int, refund: Int, days: Int) {
        var count = 0, amount = 0, refund = 0, days = 0
        var page = 1
        while true {
            let data = expectCode(try get("\(base)/daily?\(range)&page=\(page)&pageSize=7", token: token), 100000)
            let list = data[field: "list"]?.arrayValue ?? []
            for row in list {
                count += row[field: "orderCount"]?.intValue ?? 0
                amount += cents(row[field: "orderAmount"])
                refund += cents(row[field: "refundAmount"])
                days += 1
            }
            if list.isEmpty || page * 7 >= data[field: "total"]?.intValue ?? 0 { break }
            page += 1
        }
        return (count, amount, refund, days)
    }

    func testDailyRowsSumToTheSummary() throws {
        let photographer = try formalToken("13800000001", 1001)
        let store = try formalToken("13800000003", 3001)
        let cases: [(String, String, String)] = [
            ("/api/yf-handset-app/photog/analyse/user", "", photographer),
            ("/api/app/store/analyse", "storeId=101&", store),
        ]
        let ranges = [
            ("2026-05-31", "2026-05-31"), ("2026-05-01", "2026-05-31"), ("2026-02-20", "2026-03-10"),
            ("2026-01-01", "2026-12-31"), ("2026-04-13", "2026-04-29"),
        ]
        for (path, scope, token) in cases {
            for (start, end) in ranges {
                let range = "\(scope)startDate=\(start)&endDate=\(end)"
                let summary = expectCode(try get("\(path)?\(range)", token: token), 100000)
                XCTAssertEqual(summary[field: "startDate"]?.stringValue, start)
                XCTAssertEqual(summary[field: "endDate"]?.stringValue, end)
                let sum = try dailySum(path, range, token: token)
                XCTAssertEqual(sum.count, summary[field: "orderCount"]?.intValue, "\(path) \(range)")
                XCTAssertEqual(sum.amount, cents(summary[field: "orderAmount"]), "\(path) \(range)")
                XCTAssertEqual(sum.refund, cents(summary[field: "refundAmount"]), "\(path) \(range)")
            }
        }
    }

    func testWholeSpanAgreesWithTheOrderList() throws {
        let token = try formalToken("13800000002", 2001)
        let summary = expectCode(try get("/api/app/scenic-admin/analyse?scenicId=2&startDate=2026-01-01&endDate=2026-06-30", token: token), 100000)
        var paid = 0
        for status in 2...4 {
            paid += expectCode(try get("/api/app/scenic-admin/order/list?scenicId=2&status=\(status)&pageSize=1", token: token), 100000)[field: "total"]?.intValue ?? 0
        }
        XCTAssertEqual(summary[field: "orderCount"]?.intValue, paid)
        let refunds = expectCode(try get("/api/app/scenic-admin/order/list?scenicId=2&status=4&pageSize=1", token: token), 100000)
        XCTAssertEqual(summary[field: "refundCount"]?.intValue, refunds[field: "total"]?.intValue)
        // Orders end at the reference date and begin 90 days before it.
        let newest = expectCode(try get("/api/app/scenic-admin/order/list?scenicId=2&pageSize=1", token: token), 100000)
        XCTAssertEqual(newest[field: "list"]?.arrayValue?.first?[field: "createTime"]?.stringValue?.prefix(10), "2026-05-31")
        let outside = expectCode(try get("/api/app/scenic-admin/analyse?scenicId=2&startDate=2026-06-01&endDate=2026-06-30", token: token), 100000)
        XCTAssertEqual(outside[field: "orderCount"]?.intValue, 0)
        XCTAssertEqual(outside[field: "orderAmount"], .number("0.00"))
    }

    func testInvalidDatesAreBusinessErrors() throws {
        let token = try formalToken("13800000001", 1001)
        let path = "/api/yf-handset-app/photog/analyse/user"
        let missing = try get("\(path)?endDate=2026-01-01", token: token)
        expectCode(missing, 100400)
        XCTAssertTrue(missing.msg?.contains("startDate") == true)
        for query in ["startDate=2026-1-01&endDate=2026-01-02", "startDate=2026-02-30&endDate=2026-03-01",
                      "startDate=2026-03-02&endDate=2026-03-01", "startDate=abc&endDate=2026-03-01",
                      "startDate=1990-01-01&endDate=2026-03-01"] {
            expectCode(try get("\(path)?\(query)", token: token), 100400)
            expectCode(try get("\(path)/daily?\(query)", token: token), 100400)
        }
    }
}

final class SandboxLargeDataTests: XCTestCase {
    func testAMillionOrdersArePagedWithoutMaterialising() throws {
        let server = SandboxServer(config: SandboxConfig(ordersPerRole: 1_000_000))
        let scope = server.api.scopes["photographer:1001"]!
        let last = scope.page(status: nil, keyword: nil, page: 50_000, pageSize: 20)
        XCTAssertEqual(last.total, 1_000_000)
        XCTAssertEqual(last.orders.count, 20)
        XCTAssertEqual(last.orders.last?.index, 999_999)
        XCTAssertLessThan(last.orders.last!.unix, last.orders.first!.unix)
        let refunds = scope.page(status: 4, keyword: nil, page: 1000, pageSize: 20)
        XCTAssertTrue(refunds.orders.allSatisfy { $0.status == 4 })
        XCTAssertGreaterThan(refunds.total, 50_000)
        let days = scope.totals(from: 0, to: 100_000)
        XCTAssertGreaterThan(days.orderCount, 800_000)
    }
}
