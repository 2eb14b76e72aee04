import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

/// The tolerant reads through the endpoint functions: snake_case, numeric strings, 0/1 booleans, for every model.
final class ToleranceTests: XCTestCase {
    private func api(_ data: String) -> NetworkBundle {
        NetworkBundle(client: Fixture.client { _ in Fixture.ok(data) })
    }

    private let snakeAccount = """
    {"user_id":"4003","account_type":"store","account_display_name":"千岛湖湖畔影棚","user_name":"zhang","real_name":"张三","avatar":"a.png","phone":"13800000004","role_code":"storeAdmin","role_name":"门店管理员","scenic_id":"3","scenic_name":"千岛湖","store_id":"301","unknown_field":{"x":1}}
    """

    func testAccountAndLoginResultBothSpellings() async throws {
        let login = try await api("{\"token\":\"tmp-1234567890\",\"accounts\":[\(snakeAccount),{\"userId\":4001,\"accountType\":\"scenic\",\"userName\":\"li\",\"roleCode\":\"photographer\"}]}").account.login(username: "13800000004", password: "sandbox123")
        XCTAssertEqual(login.value.tempToken, "tmp-1234567890")
        XCTAssertEqual(login.value.accounts.count, 2)
        let a = login.value.accounts[0]
        XCTAssertEqual(a, Account(userId: 4003, accountType: "store", accountDisplayName: "千岛湖湖畔影棚", userName: "zhang", realName: "张三", avatar: "a.png", phone: "13800000004", roleCode: "storeAdmin", roleName: "门店管理员", scenicId: 3, scenicName: "千岛湖", storeId: 301))
        XCTAssertEqual(login.value.accounts[1].accountDisplayName, "li", "display name falls back to the user name")
        XCTAssertTrue(login.response.bodyText.contains("unknown_field"), "unknown fields stay in the raw body")
    }

    func testSetUserResultSnakeCase() async throws {
        let result = try await api("{\"token\":\"formal-1234567890\",\"user\":\(snakeAccount)}").account.setUser(userId: 4003, accountType: "store", tempToken: "tmp-1234567890")
        XCTAssertEqual(result.value.user.storeId, 301)
        XCTAssertEqual(result.value.token, "formal-1234567890")
    }

    func testAppConfigBooleans() async throws {
        for (text, expected) in [("1", true), ("0", false), ("\"1\"", true), ("\"0\"", false), ("true", true)] {
            let config = try await api("{\"enable_register\":\(text),\"other\":5}").account.config()
            XCTAssertEqual(config.value.enableRegister, expected, text)
        }
        let missing = try await api("{}").account.config()
        XCTAssertNil(missing.value.enableRegister)
    }

    func testUserInfoSnakeAndNumericString() async throws {
        let info = try await api("{\"user_id\":\"1001\",\"user_name\":\"photog1\",\"real_name\":\"王摄影\",\"avatar\":null,\"phone\":\"138****0001\",\"role_name\":\"摄影师\"}").account.userInfo()
        XCTAssertEqual(info.value, UserInfo(userId: 1001, userName: "photog1", realName: "王摄影", avatar: nil, phone: "138****0001", roleName: "摄影师"))
    }

    func testRolePermissionScenicRefAndPermissionItem() async throws {
        let data = "[{\"role_code\":\"scenicAdmin\",\"role_name\":\"景区管理员\",\"scenic_list\":[{\"scenic_id\":\"1\",\"scenic_name\":\"西湖景区\"},{\"scenicId\":2,\"scenicName\":\"灵隐寺\"}],\"permissions\":[{\"uri\":\"order/list\",\"name\":\"订单\",\"group\":\"业务\"},{\"uri\":\"stats\"}]},{\"roleCode\":\"photographer\"}]"
        let roles = try await api(data).account.rolePermissions().value
        XCTAssertEqual(roles.count, 2)
        XCTAssertEqual(roles[0].scenicList, [ScenicRef(scenicId: 1, scenicName: "西湖景区"), ScenicRef(scenicId: 2, scenicName: "灵隐寺")])
        XCTAssertEqual(roles[0].permissions, [PermissionItem(uri: "order/list", name: "订单", group: "业务"), PermissionItem(uri: "stats", name: "stats")])
        XCTAssertEqual(roles[1], RolePermission(roleCode: "photographer", roleName: "", scenicList: [], permissions: []), "no name is made from the code")
    }

    func testRealNameAndBankCard() async throws {
        let realName = try await api("{\"status\":\"2\",\"real_name\":\"王摄影\",\"id_card_no\":\"3301**********1234\"}").account.realNameInfo().value
        XCTAssertEqual(realName.status, 2)
        XCTAssertEqual(realName.statusText, "verified")
        XCTAssertEqual(realName.idCardNo, "3301**********1234")
        let card = try await api("{\"bound\":1,\"bank_name\":\"招商银行\",\"card_no\":\"6225********1234\",\"holder_name\":\"王*\"}").account.bankCardInfo().value
        XCTAssertEqual(card.bound, true)
        XCTAssertEqual(card.bankName, "招商银行")
        XCTAssertEqual(card.holderName, "王*")
        let unbound = try await api("{\"bound\":\"0\"}").account.bankCardInfo().value
        XCTAssertEqual(unbound.bound, false)
    }

    func testStoreList() async throws {
        let stores = try await api("[{\"store_id\":\"101\",\"store_name\":\"断桥摄影店\",\"scenic_id\":\"1\"},{\"storeId\":102,\"storeName\":\"苏堤旅拍馆\",\"scenicId\":1,\"address\":\"苏堤\"}]").commerce.storeList().value
        XCTAssertEqual(stores, [Store(storeId: 101, storeName: "断桥摄影店", scenicId: 1), Store(storeId: 102, storeName: "苏堤旅拍馆", scenicId: 1, address: "苏堤")])
    }

    func testOrderPageSnakeCaseAndStrings() async throws {
        let data = "{\"list\":[{\"order_id\":\"9001\",\"order_no\":\"SX9001\",\"status\":\"1\",\"status_text\":\"待核销\",\"amount\":\"199.00\",\"create_time\":\"2026-11-28 10:00:00\",\"customer_phone\":\"139****8888\",\"store_name\":\"断桥摄影店\",\"deposit_amount\":\"50\",\"write_off_status\":\"0\"}],\"total\":\"2001\",\"page\":\"3\",\"page_size\":\"20\"}"
        let page = try await api(data).commerce.storeOrders(page: 3, pageSize: 20, storeId: 101).value
        XCTAssertEqual(page.total, 2001)
        XCTAssertEqual(page.page, 3)
        XCTAssertEqual(page.pageSize, 20)
        XCTAssertEqual(page.pageCount, 101)
        XCTAssertFalse(page.isLast)
        let order = try XCTUnwrap(page.list.first)
        XCTAssertEqual(order.orderId, 9001)
        XCTAssertEqual(order.orderNo, "SX9001")
        XCTAssertEqual(order.status, 1)
        XCTAssertEqual(order.amount, 199)
        XCTAssertEqual(order.depositAmount, 50)
        XCTAssertEqual(order.writeOffStatus, 0)
        XCTAssertEqual(order.createTime, "2026-11-28 10:00:00")
        XCTAssertEqual(order.raw[field: "order_id"], .string("9001"), "the row is kept as received")
        let last = try await api("{\"list\":[],\"total\":0}").commerce.photographerOrders(page: 1, pageSize: 20).value
        XCTAssertTrue(last.isLast)
    }

    /// A page's numbers come from the server: none of them can trap the reader, and an answer without a usable
    /// total (absent, negative, past what an Int holds) is never taken for the last page unless its list is empty.
    func testPageNumbersFromAHostileServer() async throws {
        let order = "{\"orderId\":1}"
        func page(_ members: String) async throws -> Page<Order> {
            try await api("{\"list\":[\(order)],\(members)}").commerce.photographerOrders(page: 1, pageSize: 100).value
        }
        let hugeSize = try await page("\"total\":30,\"page\":2,\"page_size\":9223372036854775807")
        XCTAssertTrue(hugeSize.isLast, "page × page size past Int.max is past any total")
        XCTAssertEqual(hugeSize.pageCount, 1)
        let hugeTotal = try await page("\"total\":\"9223372036854775807\",\"page\":1,\"pageSize\":100")
        XCTAssertFalse(hugeTotal.isLast)
        XCTAssertEqual(hugeTotal.pageCount, Int.max / 100 + 1)
        let hugePage = try await page("\"total\":30,\"page\":9223372036854775807,\"pageSize\":2")
        XCTAssertTrue(hugePage.isLast)
        for members in ["\"page\":1,\"pageSize\":1", "\"total\":-1,\"page\":1,\"pageSize\":1", "\"total\":1e20,\"page\":1,\"pageSize\":1",
                        "\"total\":\"lots\",\"page\":1,\"pageSize\":1"] {
            let unknown = try await page(members)
            XCTAssertNil(unknown.total, members)
            XCTAssertNil(unknown.pageCount, members)
            XCTAssertFalse(unknown.isLast, "\(members): a full page without a total is not the last")
        }
        // A Java backend writes an empty result as null: an empty page, so the last one.
        let nullList = try await api("{\"list\":null,\"total\":0}").commerce.photographerOrders(page: 1, pageSize: 100).value
        XCTAssertEqual(nullList.list.count, 0)
        XCTAssertTrue(nullList.isLast)
        // A bad element is named by its place in the list, and a number past an Int says so.
        let badAccount = await Fixture.expectError { try await self.api("{\"token\":\"t-1234567890\",\"accounts\":[{\"userId\":1,\"accountType\":\"scenic\"},{\"userId\":2}]}").account.login(username: "13800000001", password: "x") }
        XCTAssertTrue(badAccount?.description.contains("field 'data.accounts[1].accountType' is missing") == true, "\(String(describing: badAccount))")
        let bigId = await Fixture.expectError { try await self.api("{\"list\":[{\"orderId\":99999999999999999999,\"orderNo\":\"A\"}],\"total\":1}").commerce.photographerOrders(page: 1, pageSize: 20) }
        XCTAssertTrue(bigId?.description.contains("field 'data.list[0].orderId' is 99999999999999999999, past the integers sxk reads") == true, "\(String(describing: bigId))")
        let badStore = await Fixture.expectError { try await self.api("[{\"storeId\":1},{\"storeName\":\"x\"}]").commerce.storeList() }
        XCTAssertTrue(badStore?.description.contains("field 'data[1].storeId' is missing") == true, "\(String(describing: badStore))")
        // So is `"data": null`, for a page and for the lists: not an error while `"list": null` is fine.
        let nullData = try await api("null").operation.photographerDaily(startDate: "2026-11-01", endDate: "2026-11-01", page: 1, pageSize: 31).value
        XCTAssertEqual(nullData.list.count, 0)
        XCTAssertTrue(nullData.isLast)
        let noStores = try await api("null").commerce.storeList().value
        XCTAssertEqual(noStores, [])
        let noRoles = try await api("null").account.rolePermissions().value
        XCTAssertEqual(noRoles, [])
        let emptyWithoutTotal = try await api("{\"list\":[]}").commerce.photographerOrders(page: 3, pageSize: 100).value
        XCTAssertTrue(emptyWithoutTotal.isLast)
        let shortWithoutTotal = try await page("\"page\":4,\"page_size\":100")
        XCTAssertTrue(shortWithoutTotal.isLast, "a page shorter than its own page size, without a total, is the last")
        let zeroSize = try await page("\"total\":30,\"page\":1,\"pageSize\":0")
        XCTAssertEqual(zeroSize.pageSize, 1, "a page size under 1 is the list's length")
        XCTAssertFalse(zeroSize.isLast)
        XCTAssertEqual(PageRule.pages(rows: 0, pageSize: 10), 0)
        XCTAssertEqual(PageRule.pages(rows: 10, pageSize: 0), 0)
    }

    func testSummaryDailyAndLocationDetail() async throws {
        let summary = try await api("{\"order_count\":\"12\",\"order_amount\":\"1234.50\",\"refund_count\":1,\"refund_amount\":\"99.9\",\"start_date\":\"2026-11-01\",\"end_date\":\"2026-11-29\"}").operation.storeSummary(startDate: "2026-11-01", endDate: "2026-11-29", storeId: 101).value
        XCTAssertEqual(summary.orderCount, 12)
        XCTAssertEqual(summary.orderAmount, 1234.5)
        XCTAssertEqual(summary.refundCount, 1)
        XCTAssertEqual(summary.refundAmount, 99.9)
        XCTAssertEqual(summary.startDate, "2026-11-01")
        let daily = try await api("{\"list\":[{\"date\":\"2026-11-01\",\"order_count\":\"3\",\"order_amount\":300,\"refund_amount\":\"0\"}],\"total\":1,\"page\":1,\"pageSize\":31}").operation.scenicAdminDaily(startDate: "2026-11-01", endDate: "2026-11-01", scenicId: 1, page: 1, pageSize: 31).value
        XCTAssertEqual(daily.list.first?.orderCount, 3)
        XCTAssertEqual(daily.list.first?.orderAmount, 300)
        XCTAssertTrue(daily.isLast)
        let location = try await api("{\"staff_id\":\"1001\",\"online\":\"1\",\"last_report_time\":\"2026-11-29 08:00:00\",\"latitude\":\"30.25\",\"longitude\":120.15}").operation.locationDetail(staffId: 1001).value
        XCTAssertEqual(location.staffId, 1001)
        XCTAssertEqual(location.online, true)
        XCTAssertEqual(location.lastReportTime, "2026-11-29 08:00:00")
        XCTAssertEqual(location.latitude, 30.25)
        XCTAssertEqual(location.longitude, 120.15)
        let offline = try await api("{\"online\":0}").operation.locationDetail(staffId: 1).value
        XCTAssertEqual(offline.online, false)
        XCTAssertNil(offline.lastReportTime)
    }
}
