import XCTest
@testable import SXKCore

final class TolerantReadTests: XCTestCase {
    func testCamelOrSnakeCase() throws {
        let o = try XCTUnwrap(JSONParser.parse(#"{"user_id":"101","pageSize":20,"role_code":"photographer"}"#).objectValue)
        XCTAssertEqual(o.int("userId"), 101)
        XCTAssertEqual(o.int("pageSize"), 20)
        XCTAssertEqual(o.string("roleCode"), "photographer")
        XCTAssertEqual(JSONObject.snakeCase("accountDisplayName"), "account_display_name")
    }

    func testSnakeCaseMatchIsExactAndCamelWins() throws {
        let object: JSONObject = ["order_no": .string("s"), "orderNo": .null, "scenic_id_x": .int(1), "scenicid": .int(2), "a_b_c": .int(3)]
        XCTAssertEqual(object.field("orderNo"), .string("s"), "a null camelCase member falls back to snake_case")
        XCTAssertNil(object.field("scenicId"), "neither a longer key nor a different spelling matches")
        XCTAssertEqual(object.field("aBC"), .int(3))
        let both: JSONObject = ["user_id": .int(1), "userId": .int(2)]
        XCTAssertEqual(both.field("userId"), .int(2), "the exact name wins over the snake_case one")
    }

    func testMemberKeepsNullAndTheNameReceived() throws {
        let object: JSONObject = ["create_time": .string("t"), "store_id": .null, "orderNo": .null, "order_no": .string("s")]
        XCTAssertEqual(object.member("createTime")?.key, "create_time")
        XCTAssertEqual(object.member("createTime")?.value, .string("t"))
        XCTAssertEqual(object.member("storeId")?.value, .null, "a null member is found, not skipped")
        XCTAssertEqual(object.member("orderNo")?.key, "orderNo", "the exact name wins, null or not")
        XCTAssertNil(object.member("status"))
        XCTAssertNil(object.member("createTimeX"))
    }

    func testBatchRedactionMatchesRowByRow() {
        let secret = "sxk_live_token_1234"
        let rows: [JSONValue] = [
            .object(["note": .string("got \(secret) here"), "token": .string("x")]),
            .object(["orderNo": .string("SO1"), "\(secret)": .int(1)]),
            .string(secret), .int(7),
        ]
        let batch = Redaction.redact(rows: rows, secrets: [secret, "ab"])
        XCTAssertEqual(batch, rows.map { Redaction.redact($0, secrets: [secret, "ab"]) })
        XCTAssertFalse(JSONWriter.string(.array(batch)).contains(secret))
        XCTAssertEqual(JSONObject.snakeCaseLength("accountDisplayName"), "account_display_name".utf8.count)
        XCTAssertEqual(JSONObject.snakeCaseLength("Id"), 2)
    }

    func testTheSecretKeyPrefilterLetsEverySecretKeyThrough() {
        for key in Redaction.secretWords { XCTAssertTrue(Redaction.isSecretName(key), key) }
        for key in ["photographerName", "amount", "tokens", "orderNo", "", "passwordHint"] { XCTAssertFalse(Redaction.isSecretName(key), key) }
    }

    func testByteReplacementAndLiveSecretScrubbing() {
        XCTAssertEqual("aXXbXXXXc".replacingAll("XX", with: "*"), "a*b**c")
        XCTAssertEqual("XXab".replacingAll("XX", with: ""), "ab")
        XCTAssertEqual("西湖tok1234西湖tok1234".replacingAll("tok1234", with: "***"), "西湖***西湖***")
        XCTAssertEqual("short".replacingAll("longer than it", with: "x"), "short")
        XCTAssertEqual("".replacingAll("a", with: "b"), "")
        XCTAssertEqual("断桥摄影店".replacingAll("摄影", with: "*"), "断桥*店")
        let secret = "sxk_live_token_1234"
        let data: JSONValue = .object(["list": .array([.object(["note": .string("got \(secret) here"), "token": .string("x")])]), "n": .int(1)])
        let out = Redaction.redact(data, secrets: [secret, "ab"])
        XCTAssertFalse(JSONWriter.string(out).contains(secret))
        XCTAssertTrue(JSONWriter.string(out).contains("got *** here"))
        XCTAssertTrue(JSONWriter.string(out).contains("\"token\":\"***\""))
        let clean: JSONValue = .object(["list": .array([.string("nothing")])])
        XCTAssertEqual(Redaction.redact(clean, secrets: [secret]), clean)
    }

    func testNumbersAsStringsAndBooleansAsDigits() throws {
        let o = try XCTUnwrap(JSONParser.parse(#"{"a":"12.50","b":1,"c":"0","d":true,"e":"1","f":"x","g":101.0}"#).objectValue)
        XCTAssertEqual(o.double("a"), 12.5)
        XCTAssertEqual(o.bool("b"), true)
        XCTAssertEqual(o.bool("c"), false)
        XCTAssertEqual(o.bool("d"), true)
        XCTAssertEqual(o.bool("e"), true)
        XCTAssertNil(o.int("f"))
        XCTAssertEqual(o.int("g"), 101)
    }

    func testRequiredFieldErrorsNameTheField() throws {
        let o = try XCTUnwrap(JSONParser.parse(#"{"accounts":[],"token":null,"n":[1]}"#).objectValue)
        XCTAssertThrowsError(try o.requireString("token")) { error in
            XCTAssertEqual("\(error)", "field 'token' is missing")
        }
        XCTAssertThrowsError(try o.requireInt("n")) { error in
            XCTAssertEqual("\(error)", "field 'n' is an array, expected an integer")
        }
    }

    func testRedaction() {
        XCTAssertEqual(Redaction.maskToken("abcd1234567890wxyz"), "***", "no part of a token is shown")
        XCTAssertEqual(Redaction.maskToken("short"), "***")
        XCTAssertEqual(Redaction.maskPhone("13800000001"), "138****0001")
        XCTAssertEqual(Redaction.maskPhone("138****0001"), "138****0001")
        XCTAssertEqual(Redaction.redact("token=SECRETVALUE&x=1", secrets: ["SECRETVALUE"]), "token=***&x=1")
        let body: JSONValue = ["username": "13800000001", "password": "hunter22", "nested": [["token": "t-123456"]]]
        let text = JSONWriter.string(Redaction.redact(body))
        XCTAssertFalse(text.contains("hunter22"))
        XCTAssertFalse(text.contains("t-123456"))
        XCTAssertTrue(text.contains("13800000001"))
        let excerpt = Redaction.excerpt(Array(("<html>" + String(repeating: "x", count: 300) + "SECRETVALUE").utf8), secrets: ["SECRETVALUE"])
        XCTAssertLessThanOrEqual(excerpt.count, 201)
        XCTAssertTrue(excerpt.hasSuffix("…"))
        // One line; other controls as the escapes every other line shows.
        XCTAssertEqual(Redaction.excerpt(Array("<h1>\u{1B}]52;c;x\u{07}\r\nbad\u{202E}</h1>".utf8), secrets: []), "<h1>\\x1b]52;c;x\\x07  bad\\u202e</h1>")
    }

    func testWireDates() {
        XCTAssertNotNil(WireDate.parseDay("2026-02-28"))
        XCTAssertNil(WireDate.parseDay("2026-02-30"))
        XCTAssertNil(WireDate.parseDay("2026-2-3"))
        let t = WireDate.parseTimestamp("2026-11-29 08:30:00")!
        XCTAssertEqual(WireDate.timestamp(t), "2026-11-29 08:30:00")
        XCTAssertEqual(WireDate.day(t), "2026-11-29")
        XCTAssertEqual(JSONWriter.format(12.5, digits: 2), "12.50")
        XCTAssertEqual(JSONWriter.format(-0.004, digits: 2), "0.00")
    }
}
