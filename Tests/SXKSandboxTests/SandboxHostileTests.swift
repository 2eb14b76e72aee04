import Foundation
import SXKCore
import XCTest
@testable import SXKSandbox

/// The hostile-server mode: escapes in names, status texts, error messages and a header; the token
/// echoed inside `userinfo` under names no secret-key rule knows.
final class SandboxHostileTests: SandboxTestCase {
    override func makeConfig() -> SandboxConfig { SandboxConfig(ordersPerRole: 50, hostile: true) }

    func testNamesTextsAndHeaderCarryThePayloadRaw() throws {
        let token = try formalToken("13800000001", 1001)
        let orders = try get("/api/yf-handset-app/photog/order/listv2?page=1&pageSize=5", token: token)
        let list = try XCTUnwrap(expectCode(orders, 100000)[field: "list"]?.arrayValue)
        for row in list {
            for name in ["statusText", "customerName", "scenicName"] {
                XCTAssertTrue(row[field: name]?.stringValue?.hasSuffix(SandboxHostile.payload) == true, name)
            }
            XCTAssertFalse(row[field: "orderNo"]?.stringValue?.contains("\u{1B}") ?? true)
        }
        // On the wire: C1 and U+202E raw, ESC and BEL escaped as JSON requires.
        XCTAssertTrue(orders.text.contains("\u{9B}31m\u{9D}0;t"), orders.text)
        XCTAssertTrue(orders.text.contains("\u{202E}"))
        XCTAssertTrue(orders.text.contains(#"\u001b]52;c;aGk=\u0007"#))
        XCTAssertEqual(orders.header(SandboxHostile.headerName), SandboxHostile.payload)
    }

    func testErrorMessagesCarryThePayload() throws {
        let bad = try login("13800000001", password: "wrong")
        XCTAssertEqual(bad.code, 100010)
        XCTAssertTrue(bad.msg?.hasSuffix(SandboxHostile.payload) == true, bad.text)
    }

    func testUserinfoEchoesTheCallersTokenInNestedMembers() throws {
        let token = try formalToken("13800000001", 1001)
        let data = expectCode(try get("/api/yf-handset-app/userinfo", token: token), 100000)
        XCTAssertEqual(data[field: "debug"]?[field: "state"]?[field: "echo"]?.stringValue, token)
        XCTAssertEqual(data[field: "debug"]?[field: "trail"]?.arrayValue?.last?.stringValue, token)
        XCTAssertTrue(data[field: "realName"]?.stringValue?.hasSuffix(SandboxHostile.payload) == true)
        // The names are not secret-looking: only masking by the live token value catches them.
        XCTAssertEqual(data[field: "debug"]?[field: "shout"]?.stringValue, token.uppercased())
        XCTAssertEqual(data[field: "debug"]?[field: "head"]?.stringValue, String(token.prefix(20)))
        for name in ["debug", "state", "echo", "trail", "shout", "wire", "head"] { XCTAssertFalse(Redaction.isSecretName(name), name) }
    }

    /// The echo route: what it was sent back, members of every secret family planted, look-alikes
    /// visible, a name and a value with zero-width and separator characters; `fail=1` quotes its input.
    func testEchoRouteAnswersWithItsInputAndPlantedSecrets() throws {
        let token = try formalToken("13800000001", 1001)
        let echo = try call("POST", SandboxHostile.echoPath + "?Password=PW-1&x=2", token: token, body: #"{"newPassword":"NP-2"}"#)
        let data = expectCode(echo, 100000)
        XCTAssertEqual(data[field: "query"]?[field: "Password"]?.stringValue, "PW-1")
        XCTAssertEqual(data[field: "body"]?[field: "newPassword"]?.stringValue, "NP-2")
        XCTAssertEqual(data[field: "headers"]?[field: "token"]?.stringValue, token)
        for (name, value) in SandboxHostile.plantedSecrets + SandboxHostile.plantedVisible {
            XCTAssertEqual(data[field: name]?.stringValue, value, name)
        }
        XCTAssertTrue(echo.text.contains("scenic\u{200B}Name\u{2028}"), "raw zero-width and separator characters in a name")
        XCTAssertTrue(echo.text.contains("\u{FEFF}"))
        let failed = try call("POST", SandboxHostile.echoPath + "?fail=1&api_key=AK-3", token: token, body: #"{"newPassword":"NP-2"}"#)
        XCTAssertEqual(failed.code, SandboxCode.badRequest)
        XCTAssertTrue(failed.msg?.contains("api_key=AK-3") == true && failed.msg?.contains("NP-2") == true, failed.text)
        // Off the hostile mode the route does not exist.
        _ = try call("POST", "/__sandbox/config", body: #"{"hostile":false}"#)
        XCTAssertEqual(try get(SandboxHostile.echoPath, token: token).code, SandboxCode.notFound)
    }

    func testControlRouteTurnsTheModeOff() throws {
        let off = try call("POST", "/__sandbox/config", body: #"{"hostile":false}"#)
        XCTAssertEqual(off.data?[field: "hostile"], .bool(false))
        let token = try formalToken("13800000001", 1001)
        let info = try get("/api/yf-handset-app/userinfo", token: token)
        XCTAssertNil(info.header(SandboxHostile.headerName))
        XCTAssertNil(expectCode(info, 100000)[field: "debug"])
        XCTAssertFalse(info.text.contains("\u{1B}") || info.text.contains(#"\u001b"#))
        XCTAssertEqual(try call("POST", "/__sandbox/config", body: #"{"hostile":"maybe"}"#).code, 100400)
        XCTAssertEqual(try call("POST", "/__sandbox/config", body: #"{"hostile":true}"#).data?[field: "hostile"], .bool(true))
    }

    func testRawControlsLeavesEscapedBackslashesAlone() {
        let body = Array(#"{"a":"\\u009b","b":"\u009b","c":"\u0041\u202e"}"#.utf8)
        XCTAssertEqual(String(decoding: SandboxHostile.rawControls(body), as: UTF8.self), "{\"a\":\"\\\\u009b\",\"b\":\"\u{9B}\",\"c\":\"\\u0041\u{202E}\"}")
    }
}
