import SXKCore
import XCTest
@testable import SXKShell

/// `$name` / `${name}` in the tokenizer: where they are references, where they are text.
final class VariableExpansionTests: XCTestCase {
    func token(_ line: String, _ index: Int = 1) throws -> Token {
        try Tokenizer.tokenize(line, lenient: false)[0][index]
    }

    func testReferencesAndLiterals() throws {
        XCTAssertEqual(try token("get $id").parts, [.variable("id")])
        XCTAssertEqual(try token("get orderId=$id").parts, [.literal("orderId="), .variable("id")])
        XCTAssertEqual(try token("get ${a}x$b_2").parts, [.variable("a"), .literal("x"), .variable("b_2")])
        XCTAssertEqual(try token("get \"q=$id!\"").parts, [.literal("q="), .variable("id"), .literal("!")])
        XCTAssertEqual(try token("get $_").parts, [.variable("_")])
        // The text keeps the reference as typed, so old callers of `split` see the same words.
        XCTAssertEqual(try Tokenizer.split("get orderId=$id \"${x}\""), [["get", "orderId=$id", "${x}"]])
        // Not references: single quotes, escapes, a `$` before a non-name character or at the end.
        for line in ["get '$id'", "get \\$id", "get \"\\$id\"", "get $5", "get a$", "get $-x", "get '${x}'"] {
            XCTAssertEqual(try token(line).parts, [], line)
        }
        XCTAssertEqual(try token("get \\$id").text, "$id")
        XCTAssertEqual(try token("get '$id'x$y").parts, [.literal("$idx"), .variable("y")])
    }

    func testBrokenBracesAreUsageErrors() {
        XCTAssertThrowsError(try Tokenizer.tokenize("get ${id", lenient: false)) { XCTAssertTrue("\($0)".contains("unterminated '${'")) }
        XCTAssertThrowsError(try Tokenizer.tokenize("get ${a-b}", lenient: false)) { XCTAssertTrue("\($0)".contains("bad variable name")) }
        XCTAssertThrowsError(try Tokenizer.tokenize("get ${}", lenient: false)) { XCTAssertTrue($0 is UsageError) }
        // Completion reads half-typed lines leniently.
        XCTAssertNoThrow(try Tokenizer.tokenize("get ${id", lenient: true))
    }

    func testQuotedMarksWordsThatAreNeverAliases() throws {
        XCTAssertFalse(try token("so", 0).quoted)
        XCTAssertTrue(try token("\\so", 0).quoted)
        XCTAssertTrue(try token("'so'", 0).quoted)
    }

    func testValueText() {
        XCTAssertEqual(Variables.text(of: .string("SX1")), "SX1")
        XCTAssertEqual(Variables.text(of: .number("12.50")), "12.50")
        XCTAssertEqual(Variables.text(of: .bool(true)), "true")
        XCTAssertEqual(Variables.text(of: .null), "")
        XCTAssertEqual(Variables.text(of: ["a": [1, 2]]), #"{"a":[1,2]}"#)
        XCTAssertTrue(Variables.isValidName("order_id2"))
        XCTAssertFalse(Variables.isValidName("2x"))
        XCTAssertFalse(Variables.isValidName("a-b"))
        XCTAssertFalse(Variables.isValidName(""))
    }

    func testSanitizeMasksSecretMembersAndHeldSecrets() {
        let token = "tok-0123456789abcdef"
        let value: JSONValue = ["token": .string(token), "note": .string("header token: \(token)"), "list": [.string(token)]]
        let safe = Variables.sanitize(value, secrets: [token])
        XCTAssertFalse(JSONWriter.string(safe).contains(token), JSONWriter.string(safe))
        XCTAssertEqual(safe.objectValue?["token"], .string("***"))
        XCTAssertEqual(safe.objectValue?["note"], .string("header token: ***"))
    }
}
