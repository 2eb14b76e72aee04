import XCTest
@testable import SXKCore
import SXKTestSupport

final class JSONTests: XCTestCase {
    func testRoundTripKeepsKeyOrderAndNumberText() throws {
        let text = #"{"b":1,"a":"x","n":12.50,"e":1e3,"neg":-0.5,"arr":[true,false,null],"o":{}}"#
        let value = try JSONParser.parse(text)
        XCTAssertEqual(JSONWriter.string(value), text)
        XCTAssertEqual(value.objectValue?.keys, ["b", "a", "n", "e", "neg", "arr", "o"])
    }

    func testChineseTextStaysUnescapedAndEscapesDecode() throws {
        let value = try JSONParser.parse(#"{"name":"西湖景区","esc":"\u897f\n\"q\"","pair":"\ud83d\ude00"}"#)
        let o = try XCTUnwrap(value.objectValue)
        XCTAssertEqual(o.string("name"), "西湖景区")
        XCTAssertEqual(o.string("esc"), "西\n\"q\"")
        XCTAssertEqual(o.string("pair"), "😀")
        XCTAssertEqual(JSONWriter.string(.string("西\n\"")), #""西\n\"""#)
    }

    func testRejectsMalformedInput() {
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"abc", "tru", "{\"a\":1}x", "[\"\u{01}\"]", "\"\\x\"", "\"\\ud800\"", "<html>502</html>"] {
            XCTAssertThrowsError(try JSONParser.parse(bad), "should reject \(bad.debugDescription)")
        }
    }

    func testInvalidUTF8IsAnError() {
        XCTAssertThrowsError(try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]))
        // Overlong "/", an encoded surrogate, a cut 3-byte sequence, and the same after an escape (slow path).
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE4, 0xB8], [0x5C, 0x6E, 0xE4, 0xB8]] {
            XCTAssertThrowsError(try JSONParser.parse([0x22] + bad + [0x22]), "should reject \(bad)")
        }
        // A real U+FFFD in the input is valid and kept.
        XCTAssertEqual(try JSONParser.parse([0x22, 0xEF, 0xBF, 0xBD, 0xE4, 0xB8, 0xAD, 0x22]), .string("\u{FFFD}中"))
    }

    func testDeepNestingIsRefusedWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try JSONParser.parse(deep)) { error in
            XCTAssertTrue("\(error)".contains("nesting"))
        }
        let ok = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        XCTAssertNoThrow(try JSONParser.parse(ok))
    }

    func testPrettyOutput() throws {
        let value: JSONValue = ["a": [1, 2], "b": [:]]
        XCTAssertEqual(JSONWriter.string(value, style: .pretty), "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
    }

    func testFuzzedInputsNeverCrash() {
        // Seeded mutations of a corpus: the parser must throw or succeed, never trap or hang.
        let corpus = [
            #"{"code":100000,"msg":"success","data":{"list":[{"orderId":"1","amount":12.5}],"total":1}}"#,
            #"[1,"2",true,null,{"a":[{}]},-1.5e-3]"#, #"{"user_id":"7","name":"\u4e2d\u6587"}"#,
        ].map { Array($0.utf8) }
        var rng = SplitMix64(seed: 20261129)
        let alphabet = Array("{}[]\":,\\u0123456789.eE+-tfnrl \n\t\u{00}".utf8) + [0xE4, 0xB8, 0xAD, 0xFF]
        for _ in 0..<5_000 {
            var bytes = corpus[Int(rng.next() % UInt64(corpus.count))]
            for _ in 0..<(1 + Int(rng.next() % 6)) {
                guard !bytes.isEmpty else { break }
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                }
            }
            if let value = try? JSONParser.parse(bytes) {
                // Whatever parses must serialise to something that parses to the same value.
                XCTAssertEqual(try? JSONParser.parse(JSONWriter.bytes(value)), value)
            }
        }
    }
}

