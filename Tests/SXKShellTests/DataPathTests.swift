import SXKCore
import XCTest
@testable import SXKShell

/// The path syntax of `let`: parsing, lookups, and the one-line messages when data does not fit.
final class DataPathTests: XCTestCase {
    let page: JSONValue = try! JSONParser.parse(#"""
    {"list":[{"orderId":7001,"orderNo":"SX1","store_name":"断桥摄影店","tags":["a","b"]},
             {"orderId":7002,"orderNo":"SX2","odd key":true}],
     "total":2,"empty":{},"nothing":null,"名称":"西湖"}
    """#)

    func value(_ path: String) throws -> JSONValue { try DataPath(parsing: path).evaluate(page) }

    func testLookups() throws {
        XCTAssertEqual(try value(".list[0].orderId"), .number("7001"))
        XCTAssertEqual(try value(".list[1].orderNo"), .string("SX2"))
        XCTAssertEqual(try value(".total"), .number("2"))
        XCTAssertEqual(try value("."), page)
        XCTAssertEqual(try value(".list[-1].orderId"), .number("7002"))
        XCTAssertEqual(try value(".list.[0].orderId"), .number("7001"))
        XCTAssertEqual(try value(".list[0].tags[1]"), .string("b"))
        XCTAssertEqual(try value(".list[].orderId"), .array([.number("7001"), .number("7002")]))
        XCTAssertEqual(try value(#".list[1]["odd key"]"#), .bool(true))
        XCTAssertEqual(try value(".名称"), .string("西湖"))
        XCTAssertEqual(try value(".nothing"), .null)
        // Tolerant like the rest of the client: camelCase finds snake_case.
        XCTAssertEqual(try value(".list[0].storeName"), .string("断桥摄影店"))
        let array: JSONValue = [1, 2, 3]
        XCTAssertEqual(try DataPath(parsing: "[2]").evaluate(array), .number("3"))
        XCTAssertEqual(try DataPath(parsing: ".[0]").evaluate(array), .number("1"))
    }

    func testMalformedPathsAreUsageErrors() {
        for bad in ["list", ".", "..a", ".a.", ".list[", ".list[x]", ".list[0", #".a["b]"#, ".a b", ".a/b", ""] where bad != "." {
            XCTAssertThrowsError(try DataPath(parsing: bad), bad) { error in
                XCTAssertTrue(error is UsageError, "\(bad): \(error)")
                XCTAssertTrue("\(error)".contains("bad path '\(bad)'"), "\(error)")
            }
        }
        // A key typed in double quotes on the line loses them to the tokenizer: the error shows how to type it.
        XCTAssertThrowsError(try DataPath(parsing: "[minVersion]")) { error in
            XCTAssertTrue("\(error)".contains(#"a key goes in double quotes, typed inside single quotes: '["minVersion"]'"#), "\(error)")
        }
        XCTAssertThrowsError(try DataPath(parsing: ".list[1.5]")) { error in
            XCTAssertFalse("\(error)".contains("a key goes"), "\(error)")
        }
        XCTAssertTrue(DataPath.looksLikePath(".list"))
        XCTAssertTrue(DataPath.looksLikePath("[0]"))
        XCTAssertFalse(DataPath.looksLikePath("orders"))
    }

    func testMissingDataSaysWhereAndWhat() {
        func message(_ path: String) -> String {
            do { _ = try value(path); return "no error" } catch { XCTAssertTrue(error is DataPathError, "\(error)"); return "\(error)" }
        }
        XCTAssertEqual(message(".list[5]"), "[5] is out of range: .list has 2 items")
        XCTAssertEqual(message(".list[0].orderid"),
                       "no key 'orderid' in .list[0] (did you mean 'orderId'?); keys: orderId, orderNo, store_name, tags")
        XCTAssertEqual(message(".total.x"), ".total is a number, so it has no key 'x'")
        XCTAssertEqual(message(".total[0]"), ".total is a number, not an array, so it has no [0]")
        XCTAssertEqual(message(".empty.a"), "no key 'a' in .empty; it is empty")
        XCTAssertEqual(message("[0]"), "the data is an object, not an array, so it has no [0]")
        XCTAssertEqual(message(".list[].odd"), "no key 'odd' in .list[0]; keys: orderId, orderNo, store_name, tags")
    }
}
