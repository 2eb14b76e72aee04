import XCTest
@testable import SXKShell

/// Help on a terminal: every line within the width, summaries wrapped under their own column,
/// wide (East Asian) characters counted as two; without a width, lines as the goldens have them.
final class HelpFittingTests: XCTestCase {
    let specs = Builtins.merged(with: Fixtures.specs + [HelpFittingTests.chinese])

    /// A summary without spaces in wide characters, and a discussion longer than any window.
    static let chinese = CommandSpec(
        "景区", summary: "列出当前角色可以切换的全部景区并标出当前景区以及每个景区的门店数量和订单数量",
        discussion: String(repeating: "The long discussion wraps at spaces. ", count: 8),
        flags: [FlagSpec("名称", value: .string, valueName: "NAME", summary: "按名称筛选景区，支持拼音首字母，也支持部分匹配")],
        examples: ["景区 --名称 西湖 " + String(repeating: "--a-very-long-example-word ", count: 4)])

    func texts(width: Int?) -> [(String, String)] {
        let r = HelpRenderer(specs: specs, width: width)
        var all = [("overview", r.overview(title: "A title that is longer than sixty columns of a narrow terminal window")),
                   ("--help", ShellMain.globalHelp(programName: "sxk", specs: specs, width: width))]
        for spec in specs {
            all.append((spec.name, r.page(for: [spec])))
            for sub in spec.subcommands { all.append((spec.name + " " + sub.name, r.page(for: [spec, sub]))) }
        }
        return all
    }

    func testNoLineWiderThanTheWidth() {
        for width in [40, 60, 80] {
            for (name, text) in texts(width: width) {
                for line in text.split(separator: "\n") {
                    XCTAssertLessThanOrEqual(TextWidth.width(String(line)), width, "\(name) at \(width): \(line)")
                }
            }
        }
    }

    /// Wrapping moves words to other lines, never drops or changes one (wide text may be cut between characters).
    func testFittingKeepsEveryWord() {
        let plain = texts(width: nil)
        for width in [40, 60, 80] {
            for ((name, fitted), (_, whole)) in zip(texts(width: width), plain) {
                XCTAssertEqual(fitted.filter { !$0.isWhitespace }, whole.filter { !$0.isWhitespace }, "\(name) at \(width)")
            }
        }
        XCTAssertTrue(plain.contains { $0.1.split(separator: "\n").contains { TextWidth.width(String($0)) > 80 } },
                      "nothing here needs wrapping: the test proves nothing")
    }

    /// The summary column: continuation lines start where the summary starts.
    func testSummariesWrapWithAHangingIndent() throws {
        let page = HelpRenderer(specs: specs, width: 60).page(for: [Self.chinese])
        let lines = page.split(separator: "\n").map(String.init)
        let first = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("      --名称 NAME") })
        let column = try XCTUnwrap(lines[first].range(of: "按")).lowerBound
        let indent = lines[first].distance(from: lines[first].startIndex, to: column)
        XCTAssertEqual(TextWidth.width(String(lines[first][..<column])), indent + 2, "the flag name's wide characters count two")
        let next = lines[first + 1]
        XCTAssertTrue(next.hasPrefix(String(repeating: " ", count: indent + 2)) && next.dropFirst(indent + 2).first != " ", next)
        XCTAssertGreaterThanOrEqual(TextWidth.width(lines[first]), 59, "wide text fills the line: \(lines[first])")
        XCTAssertTrue(next.hasSuffix("匹配"), next)

        let overview = HelpRenderer(specs: specs, width: 60).overview()
        let row = try XCTUnwrap(overview.split(separator: "\n").firstIndex { $0.hasPrefix("  景区 ") })
        let rows = overview.split(separator: "\n").map(String.init)
        let start = TextWidth.width(String(rows[row].prefix { !"列".contains($0) }))
        XCTAssertTrue(rows[row + 1].hasPrefix(String(repeating: " ", count: start)), rows[row + 1])
        XCTAssertTrue(rows[row + 1].contains("数量"), rows[row + 1])
    }

    /// Usage lines break between flags, never inside `[--flag VALUE]`, and continue under the first flag.
    func testUsageBreaksBetweenFlags() {
        let page = HelpRenderer(specs: specs, width: 40).page(for: [Fixtures.orders])
        let usage = page.split(separator: "\n").prefix { !$0.hasPrefix("Aliases") }
        XCTAssertGreaterThan(usage.count, 1, page)
        for line in usage.dropFirst() {
            XCTAssertTrue(line.hasPrefix("              [") , "\(line)")
        }
        for line in usage { XCTAssertEqual(line.filter { $0 == "[" }.count, line.filter { $0 == "]" }.count, String(line)) }
    }

    /// A flag the command cannot run without is not bracketed, in help and in the man page alike.
    func testARequiredFlagIsNotBracketed() {
        let spec = CommandSpec("pick", summary: "pick", flags: [
            FlagSpec("as", value: .string, valueName: "ID", required: true, summary: "who"),
            FlagSpec("json", summary: "json"),
        ])
        XCTAssertEqual(HelpRenderer(specs: [spec]).usage(spec, path: "pick"), "pick --as ID [--json]")
        XCTAssertEqual(ManPage.usage(spec, path: ["pick"]), "\\fBpick\\fR \\fB\\-\\-as\\fR \\fIID\\fR [\\fB\\-\\-json\\fR]")
    }

    func testWrapCutsAWordWiderThanTheLine() {
        XCTAssertEqual(HelpRenderer.wrap(["abcdefghij"], width: 4, first: "", rest: ""), ["abcd", "efgh", "ij"])
        XCTAssertEqual(HelpRenderer.wrap(["一二三四五"], width: 5, first: "", rest: ""), ["一二", "三四", "五"])
        XCTAssertEqual(HelpRenderer.wrap(["aa", "bb", "cc"], width: 8, first: "> ", rest: "  "), ["> aa bb", "  cc"])
        // An indent that leaves too little room shrinks instead of pushing lines past the width.
        XCTAssertEqual(HelpRenderer.wrap(["one", "two"], width: 10, first: String(repeating: " ", count: 9), rest: "   "), ["  one two"])
    }

    /// Without a width (stdout not a terminal) nothing is wrapped: the lines are those of the goldens.
    func testNoWidthLeavesLinesWhole() {
        let r = HelpRenderer(specs: specs)
        XCTAssertTrue(r.page(for: [Self.chinese]).contains(Self.chinese.summary + "\n"))
        XCTAssertTrue(r.page(for: [Self.chinese]).contains(Self.chinese.discussion! + "\n"))
    }
}
