import XCTest
@testable import SXKShell

final class ParserTests: XCTestCase {
    let parser = CommandParser(specs: Fixtures.specs)

    func run(_ words: [String]) throws -> ParsedCommand {
        guard case .run(let command) = try parser.parse(words) else { throw UsageError("expected a command") }
        return command
    }

    func error(_ words: [String]) -> String {
        do {
            _ = try parser.parse(words)
            return "no error"
        } catch {
            XCTAssertTrue(error is UsageError)
            return "\(error)"
        }
    }

    func testEveryFlagKind() throws {
        let c = try run(["o", "--role", "storeAdmin", "--status=paid", "-a", "--page", "3", "--ratio", "0.5", "--from", "2024-02-29", "--scenic", "西湖"])
        XCTAssertEqual(c.spec.name, "orders")
        XCTAssertEqual(c.path, ["orders"])
        XCTAssertEqual(c.option("role"), "storeAdmin")
        XCTAssertEqual(c.option("status"), "paid")
        XCTAssertEqual(c.option("page"), "3")
        XCTAssertEqual(c.option("ratio"), "0.5")
        XCTAssertEqual(c.option("from"), "2024-02-29")
        XCTAssertEqual(c.option("scenic"), "西湖")
        XCTAssertTrue(c.has("all"))
        XCTAssertFalse(c.has("missing"))
    }

    func testShortFlagWithValueAndRepeats() throws {
        let c = try run(["orders", "-rphotographer", "--status", "a", "--status", "b", "-a"])
        XCTAssertEqual(c.option("role"), "photographer")
        XCTAssertEqual(c.options["status"], ["a", "b"])
        XCTAssertEqual(c.option("status"), "b")
    }

    func testBadValues() {
        XCTAssertEqual(error(["orders", "--page", "x"]), "'--page' expects an integer, got 'x'")
        XCTAssertTrue(error(["orders", "--ratio", "abc"]).contains("expects a number"))
        XCTAssertTrue(error(["orders", "--ratio", "0x10"]).contains("expects a number"))
        XCTAssertTrue(error(["orders", "--ratio", "infinity"]).contains("expects a number"))
        XCTAssertTrue(error(["orders", "--from", "2023-02-29"]).contains("yyyy-MM-dd"))
        XCTAssertEqual(error(["orders", "--role", "storeadmin"]),
                       "'--role' must be one of photographer, scenicAdmin, storeAdmin, got 'storeadmin' (did you mean 'storeAdmin'?)")
        let trace = CommandParser(specs: [CommandSpec("trace", summary: "t", arguments: [ArgumentSpec("on|off", kind: .choice(["on", "off"]), optional: true, summary: "")])])
        XCTAssertThrowsError(try trace.parse(["trace", "maybe"])) {
            XCTAssertEqual("\($0)", "the argument of 'trace' must be one of on, off, got 'maybe'")
        }
    }

    /// A file value's leading `~/` is the home folder, as a shell reads it and as Tab completes it; other values keep it.
    func testAFileValuesTildeIsTheHomeFolder() {
        XCTAssertEqual(ValueCheck.expanded("~/out.har", kind: .path, home: "/home/u"), "/home/u/out.har")
        XCTAssertEqual(ValueCheck.expanded("~", kind: .path, home: "/home/u"), "/home/u")
        XCTAssertEqual(ValueCheck.expanded("~other/x", kind: .path, home: "/home/u"), "~other/x")
        XCTAssertEqual(ValueCheck.expanded("~/x", kind: .string, home: "/home/u"), "~/x")
        XCTAssertEqual(ValueCheck.expanded("~/x", kind: .path, home: nil), "~/x")
    }

    func testUnknownFlagSuggestsNearest() {
        XCTAssertEqual(error(["orders", "--stauts", "x"]), "unknown flag '--stauts' for 'orders' (did you mean '--status'?)")
        XCTAssertEqual(error(["orders", "-z"]), "unknown flag '-z' for 'orders' (did you mean '-r'?)")
        XCTAssertEqual(error(["orders", "--zzzzzzzz"]), "unknown flag '--zzzzzzzz' for 'orders'")
        XCTAssertEqual(error(["stats", "daily", "--chrat"]), "unknown flag '--chrat' for 'stats daily' (did you mean '--chart'?)")
        // The global --json after a command that has none of its own is the global one; with a value it is not.
        XCTAssertTrue(try run(["login", "--json"]).has("json"))
        XCTAssertEqual(error(["login", "--json=1"]), "unknown flag '--json' for 'login'")
    }

    func testUnknownCommandSuggests() {
        XCTAssertEqual(error(["ordrs"]), "unknown command 'ordrs' (did you mean 'orders'?)")
        XCTAssertEqual(error(["zzzzzz"]), "unknown command 'zzzzzz'")
    }

    func testMissingValue() {
        XCTAssertEqual(error(["orders", "--status"]), "missing value for '--status' (STATUS) in 'orders'")
        XCTAssertEqual(error(["orders", "-r"]), "missing value for '--role' (ROLE) in 'orders'")
        XCTAssertEqual(error(["orders", "--all=yes"]), "flag '--all' takes no value")
    }

    func testSubcommandsAndInheritedFlags() throws {
        let c = try run(["stats", "--period", "week", "daily", "--chart"])
        XCTAssertEqual(c.path, ["stats", "daily"])
        XCTAssertEqual(c.subcommand, "daily")
        XCTAssertEqual(c.option("period"), "week")
        XCTAssertTrue(c.has("chart"))
        let d = try run(["stats", "daily", "--period", "month"])
        XCTAssertEqual(d.option("period"), "month")
        XCTAssertEqual(error(["stats", "dialy"]), "unknown subcommand 'dialy' for 'stats' (did you mean 'daily'?)")
        XCTAssertEqual(try run(["stats"]).path, ["stats"])
    }

    func testPositionals() throws {
        XCTAssertEqual(try run(["get", "/a", "k=v", "x=y"]).positionals, ["/a", "k=v", "x=y"])
        XCTAssertEqual(error(["get"]), "missing argument PATH for 'get'")
        XCTAssertEqual(error(["scenic", "1", "2"]), "unexpected argument '2' for 'scenic'")
        XCTAssertEqual(try run(["scenic", "-5"]).positionals, ["-5"])
        // A word the command takes as it is is named as the word to type, with the command's form.
        let har = CommandSpec("har", summary: "", arguments: [ArgumentSpec("save", kind: .choice(["save"]), summary: ""),
                                                             ArgumentSpec("FILE", kind: .path, summary: ""),
                                                             ArgumentSpec("N", kind: .int, optional: true, summary: "")])
        XCTAssertThrowsError(try CommandParser(specs: [har]).parse(["har"])) { error in
            XCTAssertEqual("\(error)", "'har' needs the word 'save' next (har save FILE [N])")
        }
    }

    func testDoubleDashEndsFlags() throws {
        let c = try run(["get", "--", "--all", "-a"])
        XCTAssertEqual(c.positionals, ["--all", "-a"])
        XCTAssertTrue(c.switches.isEmpty)
    }

    func testHelpFlag() throws {
        XCTAssertEqual(try parser.parse(["orders", "--role", "x", "--help"]), .help([Fixtures.orders]))
        XCTAssertEqual(try parser.parse(["stats", "daily", "-h"]), .help([Fixtures.stats, Fixtures.stats.subcommands[1]]))
    }

    func testEditDistance() {
        XCTAssertEqual(Suggestion.distance("kitten", "sitting"), 3)
        XCTAssertEqual(Suggestion.distance("西湖", "西湖景区"), 2)
        XCTAssertEqual(Suggestion.nearest(to: "--stat", in: ["--status", "--page"]), "--status")
    }
}
