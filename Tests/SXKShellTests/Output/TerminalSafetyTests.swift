import SXKCore
import XCTest
@testable import SXKShell

/// What the shell layer prints from outside text: table cells, error lines, the prompt, completion
/// lists, and JSON colouring.
final class TerminalSafetyTests: XCTestCase {
    static let hostile = "西湖\u{1B}]52;c;aGk=\u{07}\u{1B}[2J\u{9B}31m\u{9D}0;t\u{07}\u{202E}\n"

    static func assertInert(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let bad = text.unicodeScalars.filter { $0 != "\n" && TerminalText.isControl($0) }
        XCTAssertTrue(bad.isEmpty, "raw controls \(bad.map { String($0.value, radix: 16) }) in \(text.debugDescription)", file: file, line: line)
    }

    func testTableCellsShowControlsAsEscapes() {
        XCTAssertEqual(TableRenderer.clean("a\u{9B}b\u{202E}c\u{1B}"), "a\\u009bb\\u202ec\\x1b")
        let out = TableRenderer(headers: ["NAME", "N"]).render([[Self.hostile, "1"]])
        Self.assertInert(out)
        XCTAssertEqual(out.split(separator: "\n").count, 2, out)
        XCTAssertTrue(out.contains("西湖\\x1b]52;c;aGk=\\x07\\x1b[2J\\u009b31m\\u009d0;t\\x07\\u202e\\n"), out)
    }

    /// A record's labels can be member names the server or an imported file chose (`config -x`,
    /// `keys -x`): inert in the record view, whole and streamed, as in the table view.
    func testRecordLabelsShowControlsAsEscapes() throws {
        let columns = [OutputColumn(Self.hostile, Self.hostile), OutputColumn("n", "N")]
        let rows: [JSONValue] = [.object(JSONObject([(Self.hostile, .string("v")), ("n", .int(1))]))]
        let out = BufferOutput()
        var terminal = Terminal.plain
        terminal.stdoutIsTerminal = true
        terminal.width = 100
        var output = CommandOutput(data: .array(rows))
        output.table(columns, rows)
        try Renderer(io: CommandIO(stdout: out, stderr: BufferOutput(), terminal: terminal), format: OutputFormat(kind: .expanded), secrets: [])
            .renderStatic(output, into: out)
        Self.assertInert(out.text)
        XCTAssertTrue(out.text.contains("西湖\\x1b]52;c;aGk=\\x07"), out.text)
        XCTAssertTrue(out.text.contains(" | v\n"), out.text)
    }

    func testErrorAndWarningLinesAreOneInertLine() {
        let sink = BufferOutput()
        let presenter = ErrorPresenter(sink: sink, color: false)
        presenter.error("server said: " + Self.hostile)
        presenter.warning("unknown keys: " + Self.hostile)
        Self.assertInert(sink.text)
        XCTAssertEqual(sink.text.split(separator: "\n").count, 2, sink.text)
    }

    /// A pasted megabyte quoted by an error is not written whole: its start and end, and how much was
    /// left out, on one line of bounded length.
    func testAVeryLongMessageKeepsItsStartAndEnd() {
        let sink = BufferOutput()
        let word = "A" + String(repeating: "x", count: 1_000_000) + "\u{1B}Z"
        ErrorPresenter(sink: sink, color: false).error("unknown command '" + word + "'")
        let line = sink.text
        XCTAssertEqual(line.split(separator: "\n").count, 1)
        XCTAssertLessThan(line.count, 2_200, "the line is \(line.count) characters")
        XCTAssertTrue(line.hasPrefix("error: unknown command 'Axxx"), String(line.prefix(40)))
        XCTAssertTrue(line.hasSuffix("xx\\x1bZ'\n"), String(line.suffix(40)))
        XCTAssertTrue(line.contains("(998424 characters left out)"), line)
        Self.assertInert(line)
        // Cut between characters (a flag stays a flag), and counted as shown: controls shown as
        // escapes count as the escapes they are.
        let flags = BufferOutput()
        ErrorPresenter(sink: flags, color: false).error(String(repeating: "🇨🇳", count: 3_000))
        XCTAssertTrue(flags.text.hasPrefix("error: " + String(repeating: "🇨🇳", count: 1_200) + " … (1400 characters left out) … "), String(flags.text.prefix(80)))
        let escapes = BufferOutput()
        ErrorPresenter(sink: escapes, color: false).error(String(repeating: "\u{1B}", count: 1_990))
        XCTAssertLessThan(escapes.text.count, 2_200, "1,990 controls printed \(escapes.text.count) characters")
        // A character of 60,000 combining marks is cut too.
        let marks = BufferOutput()
        ErrorPresenter(sink: marks, color: false).error("e" + String(repeating: "\u{301}", count: 60_000))
        XCTAssertLessThan(marks.text.unicodeScalars.count, 10_000)
        // Up to the limit, a message is whole.
        let whole = BufferOutput()
        ErrorPresenter(sink: whole, color: false).warning(String(repeating: "y", count: 1_990))
        XCTAssertEqual(whole.text, "warning: " + String(repeating: "y", count: 1_990) + "\n")
    }

    /// A builtin's status line (`let NAME = …` shows a preview of server data) is one inert line too.
    func testNoteLinesAreOneInertLine() {
        let sink = BufferOutput()
        ErrorPresenter(sink: sink, color: false).note("name = \"" + Self.hostile + "\"")
        Self.assertInert(sink.text)
        XCTAssertEqual(sink.text.split(separator: "\n").count, 1, sink.text)
        XCTAssertTrue(sink.text.hasPrefix("name = "), sink.text)
    }

    func testPromptSegmentsAreSanitized() {
        let prompt = PromptText([.init("sxk "), .init("photographer@" + Self.hostile, style: .green), .init(" › ")])
        Self.assertInert(prompt.rendered(color: false))
        let coloured = prompt.rendered(color: true, marker: "\u{1}")
        // Only the prompt's own colour escapes (and libedit's markers) remain.
        let stripped = coloured.replacingOccurrences(of: "\u{1}", with: "")
            .replacingOccurrences(of: TextStyle.green.escape, with: "").replacingOccurrences(of: TextStyle.reset, with: "")
        Self.assertInert(stripped)
        XCTAssertFalse(stripped.contains("\n"))
    }

    func testCompletionListsAreSanitized() {
        let candidates = [CompletionCandidate("1", description: Self.hostile), CompletionCandidate("2" + Self.hostile)]
        Self.assertInert(CandidateList.format(candidates, width: 200, color: false))
        Self.assertInert(CandidateList.format([CompletionCandidate("a\u{202E}"), CompletionCandidate("b\u{9B}")], width: 80, color: false))
    }

    func testJSONColourerMarksTokensAndIsPlainWhenOff() {
        let json = #"{"name": "西湖\"x\": 1", "n": -1.5e3, "ok": true, "none": null, "list": [1, "a"]}"#
        XCTAssertEqual(JSONColorizer.colorize(json, enabled: false), json)
        let on = JSONColorizer.colorize(json, enabled: true)
        XCTAssertTrue(on.contains(JSONColorizer.keyStyle + #""name""# + JSONColorizer.reset), on)
        XCTAssertTrue(on.contains(JSONColorizer.stringStyle + #""西湖\"x\": 1""# + JSONColorizer.reset), on)
        XCTAssertTrue(on.contains(JSONColorizer.numberStyle + "-1.5e3" + JSONColorizer.reset), on)
        XCTAssertTrue(on.contains(JSONColorizer.literalStyle + "true" + JSONColorizer.reset), on)
        XCTAssertTrue(on.contains(JSONColorizer.literalStyle + "null" + JSONColorizer.reset), on)
        XCTAssertTrue(on.contains(JSONColorizer.stringStyle + #""a""# + JSONColorizer.reset), on)
        // Removing the styles gives the input back: tokens are never rewritten.
        var plain = on
        for style in [JSONColorizer.keyStyle, JSONColorizer.stringStyle, JSONColorizer.numberStyle, JSONColorizer.literalStyle, JSONColorizer.reset] {
            plain = plain.replacingOccurrences(of: style, with: "")
        }
        XCTAssertEqual(plain, json)
    }

    func testColouredWriterOutputOfHostileDataHasOnlyColourEscapes() {
        let value: JSONValue = .object(JSONObject([("name", .string(Self.hostile)), ("n", .int(3))]))
        let on = JSONColorizer.colorize(JSONWriter.string(value, style: .pretty), enabled: true)
        var rest = on
        for style in [JSONColorizer.keyStyle, JSONColorizer.stringStyle, JSONColorizer.numberStyle, JSONColorizer.reset] {
            rest = rest.replacingOccurrences(of: style, with: "")
        }
        Self.assertInert(rest)
        XCTAssertEqual(try JSONParser.parse(Array(rest.utf8)), value)
    }
}
