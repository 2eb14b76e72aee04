import XCTest
@testable import SXKShell

/// README's command table from the specs: one row per visible command, usage and summary, `|` escaped.
final class CommandTableTests: XCTestCase {
    func testOneRowPerVisibleCommandWithItsUsageAndSummary() {
        var hidden = CommandSpec("secret", summary: "not listed")
        hidden.isHidden = true
        var pick = CommandSpec("pick", summary: "choose a|b", discussion: "First line.\nSecond line.",
                               arguments: [ArgumentSpec("WHICH", optional: true, summary: "which")])
        pick.subcommands = [CommandSpec("add", summary: "add", arguments: [ArgumentSpec("URI", summary: "uri")]), CommandSpec("list", summary: "list")]
        let table = CommandTable.markdown(specs: [Fixtures.orders, Fixtures.login, hidden, pick], omitting: ["status", "page"])
        XCTAssertEqual(table, """
            | command | does |
            | --- | --- |
            | `orders / o [--role ROLE] [--ratio RATIO] [--from DATE] [--scenic ID] [--all]` | List orders |
            | `login [--password-stdin] [PHONE]` | Log in |
            | `pick [add URI\\|list] [WHICH]` | choose a\\|b — First line. Second line. |

            """)
    }

    /// A required flag and a required subcommand are written without the brackets of optional ones,
    /// in the table as in `help`'s usage.
    func testRequiredFlagsAndSubcommandsAreNotBracketed() {
        let spec = CommandSpec("probe", summary: "probe", flags: [FlagSpec("as", value: .string, valueName: "ID", required: true, summary: "who")],
                               subcommands: [CommandSpec("menu", summary: "m"), CommandSpec("rules", summary: "r")]).requiringSubcommand()
        XCTAssertEqual(CommandTable.markdown(specs: [spec]), "| command | does |\n| --- | --- |\n| `probe {menu\\|rules} --as ID` | probe |\n")
        XCTAssertEqual(HelpRenderer(specs: [spec]).usage(spec, path: "probe"), "probe {menu|rules} --as ID")
    }

    func testTheTableIsReadBetweenItsMarkers() {
        let text = "# Title\n\n\(CommandTable.begin)\n| a |\n\(CommandTable.end)\n\nmore\n"
        XCTAssertEqual(CommandTable.current(in: text), "| a |\n")
        XCTAssertNil(CommandTable.current(in: "no markers"))
    }
}
