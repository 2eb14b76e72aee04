import XCTest
@testable import SXKShell

/// Alias definitions, first-word expansion, loop refusal.
final class AliasTableTests: XCTestCase {
    let commands: Set<String> = ["orders", "whoami", "get", "help", "exit"]
    var isCommand: (String) -> Bool { { [commands] in commands.contains($0) } }

    func expand(_ table: AliasTable, _ line: String) throws -> [[String]] {
        try Tokenizer.tokenize(line, lenient: false).flatMap { table.expand($0) }.map { $0.map(\.text) }
    }

    func testFirstWordOnlyWithTheRestAppended() throws {
        let t = AliasTable()
        try t.define("so", as: "orders --role storeAdmin", isCommand: isCommand)
        XCTAssertEqual(try expand(t, "so --json"), [["orders", "--role", "storeAdmin", "--json"]])
        XCTAssertEqual(try expand(t, "get so"), [["get", "so"]])
        XCTAssertEqual(try expand(t, "\\so --json"), [["so", "--json"]], "an escaped word is never an alias")
        XCTAssertEqual(try expand(t, "'so'"), [["so"]])
        XCTAssertEqual(try expand(t, "so; so --limit 1"), [["orders", "--role", "storeAdmin"], ["orders", "--role", "storeAdmin", "--limit", "1"]])
    }

    func testChainsSeveralCommandsAndShadowing() throws {
        let t = AliasTable()
        try t.define("so", as: "orders --role storeAdmin", isCommand: isCommand)
        try t.define("both", as: "whoami; so", isCommand: isCommand)
        XCTAssertEqual(try expand(t, "both --json"), [["whoami"], ["orders", "--role", "storeAdmin", "--json"]])
        // An alias may start with the command it shadows; it expands once.
        try t.define("orders", as: "orders --page-size 50", isCommand: isCommand)
        XCTAssertEqual(try expand(t, "orders --json"), [["orders", "--page-size", "50", "--json"]])
        XCTAssertEqual(try expand(t, "so"), [["orders", "--page-size", "50", "--role", "storeAdmin"]])
        // Variables stay references until the command runs.
        try t.define("byno", as: "orders --keyword $no", isCommand: isCommand)
        let expanded = t.expand(try Tokenizer.tokenize("byno", lenient: false)[0])
        XCTAssertEqual(expanded[0].last?.parts, [.variable("no")])
    }

    func testLoopsAndBadNamesAreRefused() throws {
        let t = AliasTable()
        try t.define("a", as: "b --x", isCommand: isCommand)
        try t.define("b", as: "c", isCommand: isCommand)
        XCTAssertThrowsError(try t.define("c", as: "a", isCommand: isCommand)) {
            XCTAssertEqual("\($0)", "alias c not defined: it would loop (c → a → b → c)")
        }
        XCTAssertNil(t.alias("c"), "a refused alias is not kept")
        XCTAssertThrowsError(try t.define("self", as: "self --json", isCommand: isCommand)) {
            XCTAssertTrue("\($0)".contains("would start with itself"), "\($0)")
        }
        XCTAssertThrowsError(try t.define("loop", as: "whoami; loop", isCommand: isCommand))
        for reserved in ["exit", "help", "let", "vars", "alias", "unalias", "history", "quit"] {
            XCTAssertThrowsError(try t.define(reserved, as: "whoami", isCommand: isCommand), reserved) {
                XCTAssertTrue("\($0)".contains("is a shell command"), "\($0)")
            }
        }
        for bad in ["-x", "a=b", "a b", "$x", ""] {
            XCTAssertThrowsError(try t.define(bad, as: "whoami", isCommand: isCommand), bad)
        }
        XCTAssertThrowsError(try t.define("q", as: "orders 'open", isCommand: isCommand)) {
            XCTAssertTrue("\($0)".contains("unterminated single quote"), "\($0)")
        }
        XCTAssertThrowsError(try t.define("e", as: "  ", isCommand: isCommand))
        // A chain expands to its end.
        XCTAssertEqual(try expand(t, "a"), [["c", "--x"]])
        XCTAssertEqual(AliasTable.definition(t.alias("a")!), "alias a='b --x'")
    }
}
