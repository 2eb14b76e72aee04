import SXKCore
import XCTest
@testable import SXKShell

final class TableRendererTests: XCTestCase {
    func testWidths() {
        XCTAssertEqual(TextWidth.width("abc"), 3)
        XCTAssertEqual(TextWidth.width("西湖景区"), 8)
        XCTAssertEqual(TextWidth.width("ＡＢ"), 4)  // fullwidth
        XCTAssertEqual(TextWidth.width("e\u{301}"), 1)  // combining acute
        XCTAssertEqual(TextWidth.width("한국"), 4)
        XCTAssertEqual(TextWidth.truncate("西湖景区", to: 5), "西湖…")
        XCTAssertEqual(TextWidth.truncate("abcdef", to: 4), "abc…")
        XCTAssertEqual(TextWidth.truncate("abc", to: 3), "abc")
        // East_Asian_Width, as terminals draw it: emoji shown as pictures are two columns; pictographs
        // of text presentation (🏔 🗺 🖥 🛠) one; Tangut components and Hangul jamo as their blocks say.
        XCTAssertEqual(TextWidth.width("👍😀🚀🟠"), 8)
        XCTAssertEqual(TextWidth.width("🏔🗺🖥🛠👁"), 5)
        XCTAssertEqual(TextWidth.width("🏔雪山🗺店"), 8)
        XCTAssertEqual(TextWidth.width("\u{16FF0}\u{18D00}\u{1F260}"), 6)
        XCTAssertEqual(TextWidth.width("\u{1100}\u{1161}\u{11A8}"), 2, "a decomposed Hangul syllable is one wide cell")
        XCTAssertEqual(TextWidth.width("\u{2A6D6}\u{3FFFD}"), 4, "planes 2 and 3 are wide, assigned or not")
    }

    func testAlignsCJKColumns() {
        let table = TableRenderer(columns: [.init("ID", alignment: .right), .init("名称"), .init("Store")])
        let out = table.render([["1", "西湖景区", "断桥摄影店"], ["102", "灵隐寺", "x"]])
        XCTAssertEqual(out, """
         ID  名称      Store
          1  西湖景区  断桥摄影店
        102  灵隐寺    x

        """)
        // Every row puts the last column at the same display column.
        let starts = out.split(separator: "\n").map { line -> Int in
            let text = String(line)
            let prefix = text.components(separatedBy: "  ").dropLast().joined(separator: "  ")
            return TextWidth.width(prefix)
        }
        XCTAssertEqual(Set(starts).count, 1, out)
    }

    func testTruncatesToWidth() {
        let table = TableRenderer(columns: [.init("ID", alignment: .right, truncatable: false), .init("名称"), .init("Note")], maxWidth: 24)
        let out = table.render([["1", "西湖景区西湖景区西湖景区", "a very long note that does not fit"]])
        for line in out.split(separator: "\n") {
            XCTAssertLessThanOrEqual(TextWidth.width(String(line)), 24, String(line))
        }
        XCTAssertTrue(out.contains("…"))
        XCTAssertTrue(out.contains(" 1  "))
    }

    func testNoColourWhenOffAndBoldHeaderWhenOn() {
        let plain = TableRenderer(headers: ["A"], color: false).render([["x"]])
        XCTAssertFalse(plain.contains("\u{1B}"))
        let coloured = TableRenderer(headers: ["A"], color: true).render([["x"]])
        XCTAssertTrue(coloured.hasPrefix("\u{1B}[1mA\u{1B}[0m"))
    }

    func testCellsStayOnOneLine() {
        let out = TableRenderer(headers: ["A", "B"]).render([["a\nb", "c"]])
        // The newline is shown as `\n` (TerminalText), so the cell stays on its line.
        XCTAssertEqual(out, "A     B\na\\nb  c\n")
    }

    func testJSONOutputAndErrors() {
        let sink = BufferOutput()
        JSONOutput(sink: sink, pretty: false).print(.object(JSONObject([("name", .string("西湖")), ("id", .int(1))])))
        XCTAssertEqual(sink.text, "{\"name\":\"西湖\",\"id\":1}\n")
        let err = BufferOutput()
        let presenter = ErrorPresenter(sink: err, color: false)
        presenter.error(UsageError("bad\nthing"))
        presenter.warning("careful")
        XCTAssertEqual(err.text, "error: bad\\nthing\nwarning: careful\n")
    }

    /// On a terminal (a sink with a width) errors and warnings wrap at spaces to it, each row after
    /// the first indented two, the label alone coloured; into a pipe or file each stays one line.
    func testMessagesWrapAtSpacesOnATerminalOnly() {
        final class TerminalSink: OutputSink, @unchecked Sendable {
            let buffer = BufferOutput()
            func write(_ text: String) { buffer.write(text) }
            func write(bytes: [UInt8]) { buffer.write(bytes: bytes) }
            func flush() {}
            var messageWidth: Int? { 40 }
        }
        let message = "store 12 is not this account's own store: the server will refuse its orders"
        let terminal = TerminalSink()
        ErrorPresenter(sink: terminal, color: false).warning(message)
        ErrorPresenter(sink: terminal, color: true).error("GET /api/x: server error 100403: 无权限访问该门店的数据")
        let rows = terminal.buffer.text.split(separator: "\n").map(String.init)
        for row in rows { XCTAssertLessThanOrEqual(TextWidth.width(row.replacingOccurrences(of: "\u{1B}[31m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")), 40, row) }
        let warning = rows.prefix { !$0.contains("error:") }
        XCTAssertEqual(warning.joined(separator: "\n").replacingOccurrences(of: "\n  ", with: " "), "warning: " + message)
        XCTAssertEqual(warning.first, "warning: store 12 is not this account's")
        let error = rows.drop { !$0.contains("error:") }
        XCTAssertEqual(error.first, TextStyle.red.apply("error:", enabled: true) + " GET /api/x: server error 100403:")
        XCTAssertEqual(error.dropFirst().first, "  无权限访问该门店的数据")
        let piped = BufferOutput()
        ErrorPresenter(sink: piped, color: false).warning(message)
        XCTAssertEqual(piped.text, "warning: " + message + "\n")
    }

    func testColourPolicy() {
        XCTAssertFalse(Terminal.detect(noColorFlag: true, environment: [:]).colorEnabled)
        XCTAssertFalse(Terminal.detect(noColorFlag: false, environment: ["NO_COLOR": "1"]).colorEnabled)
        // Under `swift test` stdout is not a terminal: no colour either way.
        if isatty(1) == 0 { XCTAssertFalse(Terminal.detect(environment: [:]).colorEnabled) }
    }

    func testStandardOutputWritesToFD() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let out = StandardOutput(fd: fds[1], limit: 1024)
        out.write("hello ")
        out.write(bytes: Array("西湖\n".utf8))
        out.flush()
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fds[0], &buffer, 64)
        close(fds[0])
        XCTAssertEqual(String(decoding: buffer[0..<max(0, n)], as: UTF8.self), "hello 西湖\n")
    }
}
