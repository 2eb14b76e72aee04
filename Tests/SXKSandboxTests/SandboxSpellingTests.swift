import Foundation
import SXKCore
import XCTest
@testable import SXKSandbox

/// `--spelling snake`: the other spelling the wire contract allows, on every contract answer.
final class SandboxSpellingTests: SandboxTestCase {
    override func makeConfig() -> SandboxConfig { SandboxConfig(ordersPerRole: 30, spelling: .snake) }

    /// Every member name at every depth, as received (no tolerant lookup).
    private func memberNames(_ value: JSONValue) -> [String] {
        switch value {
        case .object(let object): return object.entries.flatMap { [$0.key] + memberNames($0.value) }
        case .array(let items): return items.flatMap(memberNames)
        default: return []
        }
    }

    /// Every scalar that is not a string or null (a number or a boolean left as such).
    private func nonStringScalars(_ value: JSONValue) -> [JSONValue] {
        switch value {
        case .object(let object): return object.entries.flatMap { nonStringScalars($0.value) }
        case .array(let items): return items.flatMap(nonStringScalars)
        case .number, .bool: return [value]
        case .null, .string: return []
        }
    }

    private func assertSnake(_ response: RawHTTPClient.Response, file: StaticString = #filePath, line: UInt = #line) throws {
        let envelope = try XCTUnwrap(response.json, response.text, file: file, line: line)
        XCTAssertEqual(envelope.objectValue?.keys, ["code", "message", "data"], response.text, file: file, line: line)
        XCTAssertEqual(envelope.objectValue?["code"]?.stringValue.map { _ in true }, true, file: file, line: line)
        for name in memberNames(envelope) {
            XCTAssertFalse(name.contains { $0.isUppercase }, "camelCase member '\(name)' in \(response.text.prefix(300))", file: file, line: line)
        }
        XCTAssertEqual(nonStringScalars(envelope), [], response.text.prefix(300).description, file: file, line: line)
    }

    func testEveryAnswerIsSnakeCaseWithStringScalarsAndMessage() throws {
        let token = try formalToken("13800000004", 4003)
        let accounts = try login("13800000002")
        try assertSnake(accounts)
        XCTAssertNotNil(accounts.json?.objectValue?["data"]?.objectValue?["accounts"]?.arrayValue?.first?.objectValue?["account_display_name"])
        for target in [
            "/api/app/config", "/api/yf-handset-app/userinfo", "/api/yf-handset-app/role-permission", "/api/app/store/all",
            "/api/app/store/order/list?page=1&page_size=3&store_id=301",
            "/api/app/store/analyse/daily?start_date=2026-01-01&end_date=2026-01-31&store_id=301&page=1&page_size=5",
            "/api/yf-handset-app/photog/loacation/detail?staff_id=4001",
        ] {
            let response = try get(target, token: token)
            XCTAssertEqual(response.status, 200, "\(target): \(response.text)")
            try assertSnake(response)
        }
        let detail = try get("/api/yf-handset-app/photog/loacation/detail?staff_id=4001", token: token)
        let object = try XCTUnwrap(detail.json?.objectValue?["data"]?.objectValue)
        XCTAssertEqual(object["staff_id"], JSONValue.string("4001"))
        XCTAssertEqual(object["online"], JSONValue.string("1"), "booleans are \"1\"/\"0\"")
        XCTAssertNotNil(object["last_report_time"])
        // Errors too: the message is `message`, the code a string.
        let bad = try login("13800000001", password: "wrong")
        try assertSnake(bad)
        XCTAssertEqual(bad.json?.objectValue?["code"], .string("100010"))
        XCTAssertEqual(bad.json?.objectValue?["message"], .string("账号或密码错误"))
        let missing = try get("/api/nope", token: token)
        XCTAssertEqual(missing.status, 404)
        try assertSnake(missing)
    }

    func testFaultAnswersFollowTheSpelling() throws {
        let token = try formalToken("13800000001", 1001)
        server.injectFault(path: "/api/yf-handset-app/userinfo", kind: .status500)
        let failed = try get("/api/yf-handset-app/userinfo", token: token)
        XCTAssertEqual(failed.status, 500)
        try assertSnake(failed)
        server.injectFault(path: "/api/yf-handset-app/userinfo", kind: .malformed)
        let malformed = try get("/api/yf-handset-app/userinfo", token: token)
        XCTAssertNil(malformed.json)
        XCTAssertTrue(malformed.text.contains(#""message":"success""#), malformed.text)
    }

    /// Requests may be snake_case too: query names and JSON bodies (set-user's `user_id`, `account_type`).
    func testSnakeCaseRequestsAreRead() throws {
        let accounts = try login("13800000004")
        let temp = try XCTUnwrap(accounts.data?[field: "token"]?.stringValue)
        let wrongType = try call("POST", "/api/app/v9/set-user", token: temp, body: #"{"user_id":"4003","account_type":"scenic"}"#)
        XCTAssertEqual(wrongType.code, 100400, "account_type is read: \(wrongType.text)")
        let select = try call("POST", "/api/app/v9/set-user", token: temp, body: #"{"user_id":"4003","account_type":"store"}"#)
        XCTAssertEqual(select.code, 100000, select.text)
        XCTAssertEqual(select.data?[field: "user"]?[field: "userId"]?.intValue, 4003)
        let formal = try XCTUnwrap(select.data?[field: "token"]?.stringValue)
        let page = try get("/api/app/store/order/list?page=2&page_size=4&store_id=301", token: formal)
        XCTAssertEqual(page.code, 100000, page.text)
        XCTAssertEqual(page.data?[field: "pageSize"]?.intValue, 4)
        XCTAssertEqual(page.data?[field: "page"]?.intValue, 2)
    }

    /// Hostile mode on top of snake: the payload's C1 controls still reach the wire raw.
    func testHostileAnswersKeepRawControls() throws {
        server.setHostile(true)
        let token = try formalToken("13800000001", 1001)
        let info = try get("/api/yf-handset-app/userinfo", token: token)
        try assertSnake(info)
        XCTAssertTrue(info.text.contains("\u{9B}31m"), info.text)
        XCTAssertTrue(info.json?.objectValue?["data"]?.objectValue?["real_name"]?.stringValue?.hasSuffix(SandboxHostile.payload) == true)
    }

    func testControlAPIStaysCamelCaseAndReportsTheSpelling() throws {
        let status = try call("GET", "/__sandbox/status")
        XCTAssertEqual(status.json?.objectValue?["msg"], .string("success"))
        XCTAssertEqual(status.data?.objectValue?["spelling"], .string("snake"))
        XCTAssertNotNil(status.data?.objectValue?["ordersPerRole"])
    }

    func testSpellingNames() {
        XCTAssertEqual(SandboxSpelling(name: "SNAKE"), .snake)
        XCTAssertEqual(SandboxSpelling(name: "snake_case"), .snake)
        XCTAssertEqual(SandboxSpelling(name: "camel"), .camel)
        XCTAssertNil(SandboxSpelling(name: "kebab"))
        XCTAssertEqual(SandboxSpelling.camel.respell(["code": 1, "msg": "x"]), ["code": 1, "msg": "x"])
        XCTAssertEqual(SandboxSpelling.snake.respell(["code": 1, "msg": "x", "data": ["pageSize": 2, "ok": false, "n": nil]]),
                       ["code": "1", "message": "x", "data": ["page_size": "2", "ok": "0", "n": nil]])
    }
}
