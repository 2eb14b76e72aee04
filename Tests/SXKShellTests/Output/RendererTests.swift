import SXKCore
import XCTest
@testable import SXKShell

/// The renderer's formats, column choice, masking, fitting and record view, on a made-up table.
final class RendererTests: XCTestCase {
    let columns = [
        OutputColumn("orderNo", "ORDER NO", priority: 100, cuttable: false),
        OutputColumn("customerName", "CUSTOMER", priority: 60),
        OutputColumn("scenicName", "SCENIC", priority: 20),
        OutputColumn("amount", "AMOUNT", alignment: .right, priority: 90, cuttable: false),
    ]
    let rows: [JSONValue] = [
        ["orderNo": "SO1", "customerName": "张三, \"Li\"", "scenicName": "西湖景区一个很长很长的名字", "amount": .double(12.5), "token": "tok-secret-1"],
        ["orderNo": "SO2", "customerName": "live tok-LIVE-9999 here", "scenicName": "灵隐", "amount": .int(3)],
    ]

    func render(_ kind: OutputFormat.Kind, columns names: [String]? = nil, width: Int? = nil, limit: Int? = nil, wide: Bool = false) throws -> (String, String, CommandIO) {
        let out = BufferOutput(), err = BufferOutput()
        var terminal = Terminal.plain
        if let width { terminal.stdoutIsTerminal = true; terminal.width = width }
        let io = CommandIO(stdout: out, stderr: err, terminal: terminal)
        var format = OutputFormat(kind: kind)
        format.columns = names
        format.limit = limit
        format.wide = wide
        var output = CommandOutput(data: ["list": .array(rows), "total": .int(2)])
        output.table(columns, rows)
        output.raw = [#"{"code":"200","data":{"t":"tok-LIVE-9999"}}"#]
        try Renderer(io: io, format: format, secrets: ["tok-LIVE-9999"]).renderStatic(output, into: out)
        return (out.text, err.text, io)
    }

    func testEveryFormatMasksLiveAndNamedSecrets() throws {
        for kind in OutputFormat.Kind.allCases {
            let (text, _, _) = try render(kind)
            XCTAssertFalse(text.contains("tok-LIVE-9999"), "\(kind): live token printed")
            XCTAssertFalse(text.contains("tok-secret-1"), "\(kind): secret-named member printed")
        }
    }

    func testCSVQuotesAndUsesDataKeys() throws {
        let (text, _, _) = try render(.csv)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "orderNo,customerName,scenicName,amount")
        XCTAssertEqual(lines[1], #"SO1,"张三, ""Li""",西湖景区一个很长很长的名字,12.5"#)
    }

    /// A column of the server's member shown through a text (`–` for none) writes the member as
    /// received in CSV and TSV: an empty cell where the row lacks it, not the table's placeholder.
    func testAReceivedColumnWritesNoPlaceholderInCSV() throws {
        let refunded = OutputColumn("refundAmount", "REFUNDED", received: true) { $0.objectValue?["refundAmount"].map { OutputColumn.plain($0) } ?? "–" }
        let computed = OutputColumn("state", "STATE") { _ in "computed" }
        let rows: [JSONValue] = [["date": "2026-12-01", "refundAmount": .number("1.5")], ["date": "2026-12-02"]]
        for (kind, separator) in [(OutputFormat.Kind.csv, ","), (.tsv, "\t")] {
            let out = BufferOutput()
            var output = CommandOutput(data: .array(rows))
            output.table([OutputColumn("date"), refunded, computed], rows)
            try Renderer(io: CommandIO(stdout: out, stderr: BufferOutput(), terminal: Terminal.plain), format: OutputFormat(kind: kind), secrets: []).renderStatic(output, into: out)
            XCTAssertEqual(out.text, ["date,refundAmount,state", "2026-12-01,1.5,computed", "2026-12-02,,computed", ""].joined(separator: "\n")
                .replacingOccurrences(of: ",", with: separator))
        }
    }

    func testTSVAndNDJSON() throws {
        XCTAssertEqual(try render(.tsv, columns: ["ORDER NO", "amount"]).0, "orderNo\tamount\nSO1\t12.5\nSO2\t3\n")
        let nd = try render(.ndjson, columns: ["orderno"]).0
        XCTAssertEqual(nd, "{\"orderNo\":\"SO1\"}\n{\"orderNo\":\"SO2\"}\n")
    }

    func testJSONWithColumnsAndLimitKeepsTheSameData() throws {
        let (text, _, io) = try render(.json, columns: ["customer", "amount"], limit: 1)
        // The rows are selected where they are: the page keeps its other members.
        XCTAssertEqual(text, "{\"list\":[{\"customerName\":\"张三, \\\"Li\\\"\",\"amount\":12.5}],\"total\":2}\n")
        let (_, _, tableIO) = try render(.table, limit: 1)
        guard case .array(let list)? = tableIO.data.value?.objectValue?["list"] else { return XCTFail("no data kept") }
        XCTAssertEqual(list.count, 1)
        _ = io
    }

    /// A server may spell members snake_case with numbers as strings: cells come from `order_no` for
    /// column `orderNo` (the default text, CSV's member as received), `--columns` finds a member by its
    /// camelCase name, and `--json --columns` keeps the name as received.
    func testSnakeCaseRowsFillTheSameCells() throws {
        let snakeRows: [JSONValue] = [["order_no": "SO1", "customer_name": "张三", "scenic_name": "灵隐", "amount": "12.50", "create_time": "2026-06-01 10:00:00", "customer_phone": "151****0083"]]
        let columns = self.columns + [OutputColumn("createTime", "CREATED") { _ in "human text" }]
        func render(_ kind: OutputFormat.Kind, _ names: [String]? = nil) throws -> String {
            let out = BufferOutput(), err = BufferOutput()
            let io = CommandIO(stdout: out, stderr: err, terminal: Terminal.plain)
            var format = OutputFormat(kind: kind)
            format.columns = names
            var output = CommandOutput(data: ["list": .array(snakeRows)])
            output.table(columns, snakeRows)
            try Renderer(io: io, format: format, secrets: []).renderStatic(output, into: out)
            return out.text
        }
        // The header is the key the server sent (`--columns` selects, never renames).
        XCTAssertEqual(try render(.csv), "order_no,customer_name,scenic_name,amount,create_time\nSO1,张三,灵隐,12.50,2026-06-01 10:00:00\n")
        let table = try render(.table)
        XCTAssertTrue(table.contains("SO1") && table.contains("张三") && table.contains("12.50") && table.contains("human text"), table)
        XCTAssertEqual(try render(.json, ["orderNo", "createTime"]), "{\"list\":[{\"order_no\":\"SO1\",\"create_time\":\"2026-06-01 10:00:00\"}]}\n")
        XCTAssertEqual(try render(.tsv, ["customerName"]), "customer_name\n张三\n")
        XCTAssertEqual(try render(.csv, ["orderNo", "customerPhone"]), "order_no,customer_phone\nSO1,151****0083\n", "an undeclared member by its camelCase name")
        XCTAssertEqual(try render(.csv, ["customer_phone"]), "customer_phone\n151****0083\n", "an undeclared member by its own name")
        XCTAssertThrowsError(try render(.table, ["foo"])) { error in
            let text = String(describing: error)
            XCTAssertFalse(text.contains("order_no"), "a member a declared column shows is not listed twice: \(text)")
        }
    }

    func testUnknownColumnIsAUsageErrorListingValidNames() {
        XCTAssertThrowsError(try render(.table, columns: ["foo"])) { error in
            XCTAssertTrue(error is UsageError)
            let text = String(describing: error)
            XCTAssertTrue(text.contains("orderNo (ORDER NO)") && text.contains("customerName (CUSTOMER)"), text)
        }
    }

    func testTableFitsEveryWidthAndKeepsIdentifiers() throws {
        for width in [30, 40, 60, 80] {
            let (text, _, _) = try render(.table, width: width)
            for line in text.split(separator: "\n") {
                XCTAssertLessThanOrEqual(TextWidth.width(String(line)), width, "\(width): \(line)")
            }
            XCTAssertTrue(text.contains("SO1") && text.contains("SO2"), text)
        }
        // At 30 columns the scenic (lowest priority) goes before anything is cut to nothing.
        let narrow = try render(.table, width: 30).0
        XCTAssertFalse(narrow.contains("SCENIC"), narrow)
        let wide = try render(.table, width: 40, wide: true).0
        XCTAssertTrue(wide.contains("西湖景区一个很长很长的名字"), wide)
    }

    /// The note of the columns hidden to fit comes with rows only: with none there is nothing `--wide`
    /// would show.
    func testTheHiddenColumnsNoteNeedsARow() throws {
        for rows in [self.rows, []] {
            let out = BufferOutput(), err = BufferOutput()
            var terminal = Terminal.plain
            terminal.stdoutIsTerminal = true
            terminal.stderrIsTerminal = true
            terminal.width = 30
            var output = CommandOutput(data: .array(rows))
            output.table(columns, rows)
            try Renderer(io: CommandIO(stdout: out, stderr: err, terminal: terminal), format: OutputFormat(kind: .table), secrets: [])
                .renderStatic(output, into: out)
            XCTAssertEqual(err.text.contains("hidden to fit"), !rows.isEmpty, "\(rows.count) rows: \(err.text)")
            XCTAssertTrue(out.text.hasPrefix("ORDER NO"), out.text)
        }
    }

    func testRecordView() throws {
        let (text, _, _) = try render(.expanded)
        XCTAssertTrue(text.hasPrefix("-[ RECORD 1 ]"), text)
        XCTAssertTrue(text.contains("ORDER NO | SO1\n"), text)
        XCTAssertTrue(text.contains("-[ RECORD 2 ]"), text)
    }

    /// Rows to be read whole: a table that fits stays one; one that would be cut becomes records whose
    /// values wrap under the value column, every word kept (Chinese cut between characters, not with `…`).
    func testRowsToReadWholeWrapAsRecordsWhereTheTableWouldCut() throws {
        let text = "a rule that is much longer than the terminal is wide: 店铺管理员的门店列表为空时不写当前门店"
        let cols = [OutputColumn("source", "SOURCE", priority: 90), OutputColumn("what", "RULE", priority: 80)]
        func render(width: Int?, readWhole: Bool = true) throws -> String {
            let out = BufferOutput()
            var terminal = Terminal.plain
            if let width { terminal.stdoutIsTerminal = true; terminal.width = width }
            var output = CommandOutput(data: .array([]))
            output.table(cols, [["source": "seed 000 §4.3", "what": .string(text)]])
            output.readWhole = readWhole
            try Renderer(io: CommandIO(stdout: out, stderr: BufferOutput(), terminal: terminal), format: OutputFormat(), secrets: [])
                .renderStatic(output, into: out)
            return out.text
        }
        XCTAssertTrue(try render(width: nil).hasPrefix("SOURCE"), "a pipe gets the table")
        XCTAssertTrue(try render(width: 200).hasPrefix("SOURCE"), "a table that fits stays one")
        let narrow = try render(width: 40)
        XCTAssertTrue(narrow.hasPrefix("-[ RECORD 1 ]"), narrow)
        XCTAssertFalse(narrow.contains("…"), narrow)
        let lines = narrow.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.allSatisfy { TextWidth.width($0) <= 40 }, narrow)
        XCTAssertGreaterThan(lines.filter { $0.hasPrefix("       | ") }.count, 1, narrow)
        // The value read back across its lines is the text, spaces aside.
        let value = lines.drop { !$0.hasPrefix("RULE") }.map { $0.split(separator: "|", maxSplits: 1).last.map(String.init) ?? "" }
        XCTAssertEqual(value.joined().filter { $0 != " " }, text.filter { $0 != " " })
        // Without the mark the same table is cut as before.
        let plain = try render(width: 40, readWhole: false)
        XCTAssertTrue(plain.hasPrefix("SOURCE") && plain.contains("…"), plain)
    }

    /// A single row is a table with columns hidden while its most important column fits; a record
    /// view only when not even that fits.
    func testSingleRowBecomesARecordOnlyWhenItCannotFitWithColumnsHidden() throws {
        func one(width: Int) -> String {
            let io = CommandIO(stdout: BufferOutput(), stderr: BufferOutput(),
                               terminal: Terminal(stdinIsTerminal: false, stdoutIsTerminal: true, stderrIsTerminal: false, width: width, colorEnabled: false))
            let out = BufferOutput()
            Renderer(io: io, format: OutputFormat(), secrets: []).writeTable(OutputTable(columns: columns, rows: [rows[0]]), into: out)
            return out.text
        }
        XCTAssertTrue(one(width: 30).hasPrefix("ORDER NO"), one(width: 30))
        XCTAssertTrue(one(width: 7).hasPrefix("-[ RECORD 1 ]"), one(width: 7))
    }

    /// A usage error in the rows (`--columns nope`) is the only line: the command's notes, said
    /// before its table, are not said before an error instead.
    func testAColumnErrorIsNotPrecededByTheNotes() async throws {
        let out = BufferOutput(), err = BufferOutput()
        let io = CommandIO(stdout: out, stderr: err, terminal: .plain)
        var format = OutputFormat(kind: .csv)
        format.columns = ["nope"]
        var output = CommandOutput(data: .array(rows))
        output.table(columns, rows)
        output.notes = ["2 orders"]
        do {
            _ = try await Renderer(io: io, format: format, secrets: []).render(output)
            XCTFail("no error")
        } catch {
            XCTAssertTrue("\(error)".hasPrefix("unknown column 'nope'; valid: orderNo (ORDER NO), customerName (CUSTOMER)"), "\(error)")
        }
        // A record's own keys as the columns: each named once.
        var record = CommandOutput(data: ["baseURL": "http://x", "userId": 1])
        record.recordData = true
        record.record([OutputColumn("field"), OutputColumn("value")], [["field": "base URL", "value": "http://x"]])
        do {
            _ = try await Renderer(io: io, format: format, secrets: []).render(record)
            XCTFail("no error")
        } catch {
            XCTAssertEqual("\(error)", "unknown column 'nope'; valid: baseURL, userId")
        }
        XCTAssertEqual(err.text, "")
        XCTAssertEqual(out.text, "")
        format.columns = ["orderNo"]
        _ = try await Renderer(io: io, format: format, secrets: []).render(output)
        XCTAssertEqual(err.text, "2 orders\n")
        XCTAssertEqual(out.text, "orderNo\nSO1\nSO2\n")
    }

    func testConflictingFormatFlags() throws {
        let spec = CommandSpec("x", summary: "", flags: ["json", "ndjson", "raw", "csv", "all", "limit", "chart"].map {
            FlagSpec($0, value: $0 == "limit" ? .int : nil, summary: "")
        })
        let parser = CommandParser(specs: [spec])
        func format(_ words: [String]) throws -> OutputFormat {
            guard case .run(let c) = try parser.parse(words) else { throw UsageError("help") }
            return try OutputFormat.from(c, options: GlobalOptions())
        }
        XCTAssertThrowsError(try format(["x", "--json", "--ndjson"]))
        XCTAssertThrowsError(try format(["x", "--raw", "--all"]))
        XCTAssertThrowsError(try format(["x", "--csv", "--chart"]))
        XCTAssertThrowsError(try format(["x", "--limit", "0"]))
        XCTAssertThrowsError(try format(["x", "--limit", "-1"]))
        XCTAssertEqual(try format(["x", "--csv"]).kind, .csv)
    }

    func testLayoutDropsLowestPriorityFirst() {
        let layout = TableLayout.fit(natural: [10, 30, 30, 8], priority: [100, 60, 20, 90], cuttable: [false, true, true, false], maxWidth: 40)
        XCTAssertEqual(layout.dropped, [2])
        XCTAssertLessThanOrEqual(layout.lineWidth, 40)
    }

    /// Room left after the narrowest fit goes to the most important columns first, and columns of
    /// equal importance share it evenly (the two sides of `context diff`), each up to its natural width.
    func testLayoutSharesRoomEvenlyAmongEqualColumns() {
        // KEY, STORED, SERVER NOW, MATCH at 80 columns: KEY whole, the two sides within a column of each other.
        let layout = TableLayout.fit(natural: [40, 36, 36, 7], priority: [90, 70, 70, 80], cuttable: [true, true, true, false],
                                     headers: [3, 6, 10, 5], maxWidth: 80)
        XCTAssertEqual(layout.shown, [0, 1, 2, 3])
        XCTAssertEqual(layout.lineWidth, 80)
        XCTAssertEqual(layout.widths[0], 40)
        XCTAssertLessThanOrEqual(abs(layout.widths[1] - layout.widths[2]), 1, "\(layout.widths)")
        // One side narrower than its share: the other takes what it leaves.
        let uneven = TableLayout.fit(natural: [40, 12, 36, 7], priority: [90, 70, 70, 80], cuttable: [true, true, true, false],
                                     headers: [3, 6, 10, 5], maxWidth: 80)
        XCTAssertEqual(uneven.widths, [40, 12, 15, 7])
    }

    /// Streams `rows` in batches of one through the renderer; gives stdout and the data kept for `$_`.
    func stream(_ kind: OutputFormat.Kind, read: Bool) async throws -> (String, JSONValue?) {
        let out = BufferOutput(), err = BufferOutput()
        let io = CommandIO(stdout: out, stderr: err)
        if !read { io.data.discard() }
        var output = CommandOutput()
        let batches = rows.map { [$0] }
        output.stream = RowStream(columns: columns) { emit in
            for batch in batches { _ = emit(batch, nil) }
            return RowStream.End(status: 0)
        }
        _ = try await Renderer(io: io, format: OutputFormat(kind: kind), secrets: ["tok-LIVE-9999"]).render(output)
        return (out.text, io.data.value)
    }

    /// Whether output is paged is decided by the rows it takes at the window's width, not its
    /// newlines: a few long lines can be taller than the screen; colour codes take no column.
    func testThePagerCountsRowsAtTheWindowsWidth() {
        let long = String(repeating: "x", count: 150) + "\n"
        XCTAssertEqual(Pager.rows(String(repeating: long, count: 4), columns: 60, atLeast: 100), 12)
        XCTAssertEqual(Pager.rows("西湖景区\n\n", columns: 4, atLeast: 100), 3, "wide characters take two columns, an empty line one row")
        XCTAssertEqual(Pager.rows("\u{1B}[31m" + String(repeating: "y", count: 60) + "\u{1B}[0m\n", columns: 60, atLeast: 100), 1)
        XCTAssertEqual(Pager.rows(String(repeating: long, count: 1000), columns: 60, atLeast: 24), 24, "counting stops at the screen's height")
    }

    /// `LESS` for the pager: FRX when unset; a user's kept, with `-R` first when it passes no colour
    /// codes (a letter in a string option's value, as `-Ps` prompts, is not an option).
    func testTheLessOptionsPassColourCodes() {
        XCTAssertEqual(Pager.lessOptions(nil), "FRX")
        XCTAssertEqual(Pager.lessOptions(""), "-R")
        for kept in ["-R", "-iR", "FRX", "-r", "-i --RAW-CONTROL-CHARS", "--raw-control-chars", "i R", "-x4R", "-Ps Rows$ -R"] {
            XCTAssertEqual(Pager.lessOptions(kept), kept)
        }
        XCTAssertEqual(Pager.lessOptions("-i"), "-R -i")
        XCTAssertEqual(Pager.lessOptions("-X -M"), "-R -X -M")
        XCTAssertEqual(Pager.lessOptions("-Ps Rows$"), "-R -Ps Rows$")
        XCTAssertEqual(Pager.lessOptions("-+R -i"), "-R -+R -i")
        // A long option's string value (to `$`, spaces and all) holds no option.
        XCTAssertEqual(Pager.lessOptions("--prompt=s Rows R$ -i"), "-R --prompt=s Rows R$ -i")
        XCTAssertEqual(Pager.lessOptions("--tabs=4 -R"), "--tabs=4 -R")
        // Long names in any case and abbreviated, as less takes them.
        XCTAssertEqual(Pager.lessOptions("--PROMPT=s Rows R$"), "-R --PROMPT=s Rows R$")
        XCTAssertEqual(Pager.lessOptions("--prom=s Rows R$"), "-R --prom=s Rows R$")
        XCTAssertEqual(Pager.lessOptions("--RAW-CONTROL"), "--RAW-CONTROL")
        XCTAssertEqual(Pager.lessOptions("--prompt s Rows$"), "-R --prompt s Rows$")
        XCTAssertEqual(Pager.lessOptions("--pr=s Rows$"), "-R --pr=s Rows$")
        XCTAssertEqual(Pager.lessOptions("--ra"), "--ra")
        XCTAssertEqual(Pager.lessOptions("--rAW-control"), "-R --rAW-control", "a lower-case name is read as written")
        XCTAssertEqual(Pager.lessOptions("--lesskey-src=/tmp/x R$"), "-R --lesskey-src=/tmp/x R$")
        XCTAssertEqual(Pager.rows(String(repeating: "1234567\t", count: 10) + "\n", columns: 60, atLeast: 100), 2, "a tab goes to the next multiple of 8")
        XCTAssertEqual(Pager.rows("\u{1B}]8;;http://x\u{1B}\\" + String(repeating: "z", count: 60) + "\u{1B}]0;title\u{07}\n", columns: 60, atLeast: 100), 1)
    }

    /// On a terminal a text line wider than it wraps at spaces under its indentation plus two, its
    /// spacing kept; a verbatim block (a command to copy) and output off a terminal are never wrapped.
    func testLongTextLinesWrapOnATerminalOnly() throws {
        XCTAssertEqual(Renderer.wrapped("   note   scenic 3 千岛湖 kept: a valid scenic", width: 24),
                       ["   note   scenic 3", "     千岛湖 kept: a", "     valid scenic"])
        XCTAssertEqual(Renderer.wrapped(String(repeating: "x", count: 25), width: 10), ["xxxxxxxxxx", "  xxxxxxxx", "  xxxxxxx"])
        XCTAssertEqual(Renderer.wrapped("short", width: 10), ["short"])
        // A word cut where it must be, never inside an escape the sanitizer wrote.
        XCTAssertEqual(Renderer.wrapped(#"abcdefg\x07\u202e\nxyz"#, width: 10), [#"abcdefg"#, #"  \x07"#, #"  \u202e\n"#, "  xyz"])
        for width in 8...30 {
            let text = #"word;t\x07\u202e\u200b\x1b]52;c;aGk=\x07 tail"#
            for row in Renderer.wrapped(text, width: width) {
                XCTAssertNil(row.range(of: #"\\(x[0-9a-f]?|u[0-9a-f]{0,3})?$"#, options: .regularExpression), "\(width): \(row)")
            }
        }
        // A character wider than the row still goes (one to a row), and a long line is linear.
        XCTAssertEqual(Renderer.wrapped("西湖 x", width: 1), ["西", "湖", "x"])
        let huge = String(repeating: "名字 ", count: 10_000)
        let started = Date()
        let hugeRows = Renderer.wrapped(huge, width: 80)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "quadratic in the line's length")
        XCTAssertTrue(hugeRows.allSatisfy { TextWidth.width($0) <= 80 })
        XCTAssertEqual(hugeRows.joined().filter { $0 != " " }.count, 20_000)
        let long = "1. loadPermissions(api:force: true)  [inferred: docs/app-behaviour.md#replays]"
        var output = CommandOutput()
        output.line(long)
        output.blocks.append(.verbatim([long]))
        var terminal = Terminal.plain
        terminal.stdoutIsTerminal = true
        terminal.width = 40
        let out = BufferOutput()
        try Renderer(io: CommandIO(stdout: out, stderr: BufferOutput(), terminal: terminal), format: OutputFormat(kind: .table), secrets: []).renderStatic(output, into: out)
        let rows = out.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows.last, long, "the verbatim line was wrapped")
        XCTAssertTrue(rows.dropLast().allSatisfy { TextWidth.width($0) <= 40 }, out.text)
        XCTAssertEqual(rows.dropLast().joined().filter { $0 != " " }, long.filter { $0 != " " })
        let piped = BufferOutput()
        try Renderer(io: CommandIO(stdout: piped, stderr: BufferOutput(), terminal: .plain), format: OutputFormat(kind: .table), secrets: []).renderStatic(output, into: piped)
        XCTAssertEqual(piped.text, long + "\n" + long + "\n")
    }

    /// A `watch` frame taller than the window is cut so that its header stays on the screen, and says
    /// how many lines it left out; one that fits is whole.
    func testAWatchFrameIsCutToTheWindow() {
        let body = (1...40).map { "row \($0)" }.joined(separator: "\n") + "\n"
        let screen = Renderer.screen(header: "Every 2s: orders", body: body, columns: 80, rows: 10)
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(Array(lines.prefix(3)), ["Every 2s: orders", "", "row 1"])
        // Header, blank, 6 rows, the note: 9 rows, and the cursor on the 10th.
        XCTAssertEqual(Pager.rows(screen, columns: 80, atLeast: 100), 9, screen)
        XCTAssertTrue(screen.hasSuffix("row 6\n… 34 more lines (a taller window shows them)\n"), screen)
        XCTAssertEqual(Renderer.screen(header: "h", body: "a\nb\n", columns: 80, rows: 10), "h\n\na\nb\n")
        // Rows, not lines: long lines wrap; a wide header takes two rows.
        let wide = String(repeating: "x", count: 100) + "\n"
        let wrapped = Renderer.screen(header: String(repeating: "h", count: 70), body: String(repeating: wide, count: 5), columns: 60, rows: 10)
        XCTAssertLessThanOrEqual(Pager.rows(wrapped, columns: 60, atLeast: 100), 9, wrapped)
        XCTAssertTrue(wrapped.hasSuffix("… 3 more lines (a taller window shows them)\n"), wrapped)
        // Any window: the whole screen leaves the cursor a row of its own, so the header's first row
        // is never scrolled away, however small or narrow the window and however long the header.
        let header = "Every 1s: orders --page-size 100 --status completed    2026-12-05 05:00:00 · run 3/10"
        for rows in 2...12 {
            for columns in [8, 10, 20, 24, 40, 60, 80, 120] {
                let screen = Renderer.screen(header: header, body: body, columns: columns, rows: rows)
                XCTAssertLessThanOrEqual(Pager.rows(screen, columns: columns, atLeast: 1_000), rows - 1, "\(rows)x\(columns): \(screen)")
                XCTAssertTrue(screen.hasPrefix(String(header.prefix(4))), "\(rows)x\(columns): \(screen)")
            }
        }
        XCTAssertNil(Pager.fitting("a\nb", columns: 10, rows: 2))
    }

    /// A `watch` header wider than the window keeps one row: its command is cut before the time and
    /// the run count are; a window too narrow for those cuts the whole line; a wide one shows it whole.
    func testAWatchHeaderFitsOneRowCuttingTheCommandFirst() {
        let header = LiveOutput.Header(title: "Every 1s: orders --page-size 100 --status completed --role storeAdmin",
                                       status: "2026-12-05 05:00:00 +08:00 · run 3/10", shortStatus: "05:00:00 +08:00 · run 3/10")
        XCTAssertEqual(header.fitted(columns: 160), header.line)
        for columns in [20, 40, 50, 60, 80, 100, 120] {
            let shown = header.fitted(columns: columns)
            XCTAssertLessThanOrEqual(TextWidth.width(shown), columns, shown)
            XCTAssertTrue(shown.hasPrefix("Every 1s: "), shown)
        }
        XCTAssertEqual(header.fitted(columns: 80), "Every 1s: orders --page-size 100 --statu…  2026-12-05 05:00:00 +08:00 · run 3/10")
        XCTAssertEqual(header.fitted(columns: 60), "Every 1s: orders --page-size 10…  05:00:00 +08:00 · run 3/10")
        XCTAssertEqual(header.fitted(columns: 30), "Every 1s: orders --page-size …")
        // A short command keeps the day while the line fits with the gap narrowed.
        let short = LiveOutput.Header(title: "Every 2s: whoami", status: "2026-12-05 12:05:28 +00:00 · run 1/1", shortStatus: "12:05:28 +00:00 · run 1/1")
        XCTAssertEqual(short.fitted(columns: 55), "Every 2s: whoami  2026-12-05 12:05:28 +00:00 · run 1/1")
        XCTAssertEqual(short.fitted(columns: 50), "Every 2s: whoami  12:05:28 +00:00 · run 1/1")
        XCTAssertEqual(LiveOutput.Header(title: "h", status: "").line, "h")
        XCTAssertEqual(Pager.fitting("a\nb\nc", columns: 10, rows: 2).map { String($0.kept) }, "a\nb\n")
        XCTAssertEqual(Pager.fitting("a\nb\nc", columns: 10, rows: 2)?.linesLeftOut, 1)
    }

    /// A walk that fails after its progress line was drawn erases it first: the error that follows
    /// starts a line of its own.
    func testAStreamThatFailsErasesItsProgressLine() async throws {
        struct PageFailed: Error {}
        let out = BufferOutput(), err = BufferOutput()
        let io = CommandIO(stdout: out, stderr: err,
                           terminal: Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: true, width: 80, colorEnabled: false))
        var output = CommandOutput()
        let batch = [rows[0]]
        output.stream = RowStream(columns: columns) { emit in
            _ = emit(batch, "1 page · 1 row")
            throw PageFailed()
        }
        do {
            _ = try await Renderer(io: io, format: OutputFormat(kind: .ndjson), secrets: []).render(output)
            XCTFail("the stream's error was not thrown")
        } catch is PageFailed {}
        XCTAssertTrue(err.text.contains("1 page · 1 row"), err.text.debugDescription)
        XCTAssertTrue(err.text.hasSuffix("\r\u{1B}[K"), err.text.debugDescription)
    }

    /// A JSON stream that fails after some rows still closes its array: what came before the
    /// failure parses (`| jq`), and the failure is the exit status.
    func testAJSONStreamThatFailsIsStillOneArray() async throws {
        struct PageFailed: Error {}
        let out = BufferOutput()
        let io = CommandIO(stdout: out, stderr: BufferOutput())
        var output = CommandOutput()
        let batch = [rows[0]]
        output.stream = RowStream(columns: columns) { emit in
            _ = emit(batch, nil)
            throw PageFailed()
        }
        do {
            _ = try await Renderer(io: io, format: OutputFormat(kind: .json), secrets: []).render(output)
            XCTFail("the stream's error was not thrown")
        } catch is PageFailed {}
        let parsed = try JSONParser.parse(out.text)
        XCTAssertEqual(parsed.arrayValue?.count, 1, out.text)
    }

    /// A stream's end: warnings go through the one sink of warnings (label, masking, one inert line)
    /// in every format, as does how far an interrupted run got; the notes only where people read.
    func testAStreamsEndIsSaidByKind() async throws {
        func end(_ kind: OutputFormat.Kind, _ end: RowStream.End) async throws -> [String] {
            let err = BufferOutput()
            let io = CommandIO(stdout: BufferOutput(), stderr: err)
            var output = CommandOutput()
            let batch = [rows[0]]
            output.stream = RowStream(columns: columns) { emit in
                _ = emit(batch, nil)
                return end
            }
            _ = try await Renderer(io: io, format: OutputFormat(kind: kind), secrets: []).render(output)
            return err.text.split(separator: "\n").map(String.init)
        }
        let said = RowStream.End(status: 1, warnings: ["rows of store 9\u{1B}[2J outside"], interruption: "interrupted after 1 row", notes: ["1 order · 1 page"])
        let json = try await end(.json, said), ndjson = try await end(.ndjson, said), table = try await end(.table, said)
        let quiet = try await end(.json, RowStream.End(status: 0, notes: ["2 orders"]))
        XCTAssertEqual(json, ["warning: rows of store 9\\x1b[2J outside", "interrupted after 1 row"])
        XCTAssertEqual(ndjson, ["warning: rows of store 9\\x1b[2J outside", "interrupted after 1 row"])
        XCTAssertEqual(table, ["warning: rows of store 9\\x1b[2J outside", "interrupted after 1 row", "1 order · 1 page"])
        XCTAssertEqual(quiet, [])
    }

    func testStreamKeepsRowsForDollarUnderscoreOnlyWhereTheyCanBeRead() async throws {
        let (kept, keptData) = try await stream(.ndjson, read: true)
        guard case .array(let list)? = keptData else { return XCTFail("no rows kept: \(String(describing: keptData))") }
        XCTAssertEqual(list.count, 2)
        XCTAssertFalse(JSONWriter.string(.array(list)).contains("tok-LIVE-9999"))
        let (oneShot, none) = try await stream(.ndjson, read: false)
        XCTAssertNil(none)
        XCTAssertEqual(oneShot, kept)
        XCTAssertEqual(oneShot.split(separator: "\n").count, 2)
    }

    func testStreamedCSVMatchesTheStaticTableAndMasks() async throws {
        for kind in [OutputFormat.Kind.csv, .tsv] {
            let (streamed, _) = try await stream(kind, read: false)
            XCTAssertEqual(streamed, try render(kind).0, "\(kind)")
            XCTAssertFalse(streamed.contains("tok-LIVE-9999"), "\(kind)")
        }
    }

    func testSeparatedValuesQuoteEscapeAndSanitize() {
        let csv = SeparatedValues(tabs: false), tsv = SeparatedValues(tabs: true)
        XCTAssertEqual(csv.line(["a", " lead", "trail ", "x,y", "say \"hi\"", "two\nlines", "林\u{1B}[2J"]),
                       "a,\" lead\",\"trail \",\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\",林\\x1b[2J\n")
        XCTAssertEqual(tsv.line(["a\tb", "c\\d", "e\nf", "plain 西湖"]), "a\\tb\tc\\\\d\te\\nf\tplain 西湖\n")
        XCTAssertEqual(csv.line([]), "\n")
    }
}

extension RendererTests {
    /// `--raw` never shows the token in a form JSON decodes to it (`\u` escapes), and a masking that
    /// would cut a `\/` escape leaves JSON still: the body is then written again from its value, masked.
    func testRawMasksEscapedSecretsAndStaysJSON() throws {
        let token = "hxc5d2c4ea38008f159d2de783a3f35017"
        let escaped = token.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined()
        let uesc = try JSONParser.parse(Renderer.rawMasked("{\"uesc\":\"\(escaped)\",\"n\":1}", secrets: [token]))
        XCTAssertEqual(uesc.objectValue?.string("uesc"), "***")
        let slashed = "Q1w2E3r4T5y6U7i/O9p0A1s2D3f4G5h+J7k8L9z0X1c2V3b/N5m6Q7w8E9r0T1y="
        let body = "{\"note\":\"seen \(slashed.replacingOccurrences(of: "/", with: "\\/"))\"}"
        let shown = Renderer.rawMasked(body, secrets: [slashed])
        let value = try JSONParser.parse(shown)
        XCTAssertFalse(SecretMatcher([slashed]).holds(value.objectValue?.string("note") ?? ""), shown)
        // Nothing to mask: byte for byte as received.
        XCTAssertEqual(Renderer.rawMasked("{\"a\":\"x\\/y\"}", secrets: [token]), "{\"a\":\"x\\/y\"}")
    }
}

extension RendererTests {
    /// A note on a terminal's stderr is wrapped at spaces to its width, never cut: it is read whole.
    func testNotesAreWrappedNotCut() async throws {
        let out = BufferOutput(), err = BufferOutput()
        let io = CommandIO(stdout: out, stderr: err,
                           terminal: Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: true, width: 40, colorEnabled: false))
        var output = CommandOutput()
        let note = "(no common menus are stored: these are the first 4 visible menus, the default the app's home writes; not stored by this listing)"
        output.notes = [note]
        _ = try await Renderer(io: io, format: OutputFormat(kind: .table), secrets: []).render(output)
        let lines = err.text.split(separator: "\n").map(String.init)
        XCTAssertGreaterThan(lines.count, 1, err.text)
        XCTAssertTrue(lines.allSatisfy { TextWidth.width($0) <= 40 }, err.text)
        XCTAssertEqual(lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "), note)
    }
}

extension RendererTests {
    /// `--raw` hides a secret member whatever its value (an object, an array) and however its name
    /// is written (`pass\u0077ord` is `password`), as `--json` does.
    func testRawHidesSecretMembersOfAnyValueAndEscapedNames() throws {
        let body = #"{"code":100000,"data":{"password":{"v":"OBJ-PW-LEAK"},"token":["ARR-TOK-LEAK",{"x":"]"}],"pass\u0077ord":"ESC-NAME-LEAK","next":1}}"#
        let shown = Renderer.rawMasked(body, secrets: [])
        for leak in ["OBJ-PW-LEAK", "ARR-TOK-LEAK", "ESC-NAME-LEAK"] { XCTAssertFalse(shown.contains(leak), shown) }
        let data = try XCTUnwrap(JSONParser.parse(shown).objectValue?.object("data"))
        XCTAssertEqual(data.string("password"), "***")
        XCTAssertEqual(data.string("token"), "***")
        XCTAssertEqual(data.int("next"), 1, "what follows the hidden value is read as before")
    }

    /// `--raw` on a terminal is inert and still JSON of the same value: controls inside strings as
    /// JSON escapes, a CRLF body's CRs left out between members.
    func testRawOnATerminalStaysJSON() throws {
        let out = BufferOutput(), err = BufferOutput()
        var terminal = Terminal.plain
        terminal.stdoutIsTerminal = true
        terminal.width = 100
        let io = CommandIO(stdout: out, stderr: err, terminal: terminal)
        var output = CommandOutput(data: .null)
        let body = "{\"code\":100000,\r\n\"del\":\"a\u{7F}b\",\r\n\"bidi\":\"x\u{202E}y\",\"c1\":\"\u{9B}2J\",\"team\":\"👩\u{200D}💻\"}"
        output.raw = [body]
        try Renderer(io: io, format: OutputFormat(kind: .raw), secrets: []).renderStatic(output, into: out)
        XCTAssertFalse(out.text.contains("\r") || out.text.contains("\u{7F}") || out.text.contains("\u{202E}") || out.text.contains("\u{9B}"), out.text)
        XCTAssertTrue(out.text.contains("a\\u007fb") && out.text.contains("x\\u202ey"), out.text)
        XCTAssertEqual(try JSONParser.parse(out.text), try JSONParser.parse(body), "the same value as received")
        // Not JSON: inert as lines, as before.
        let plain = BufferOutput()
        output.raw = ["<html>\u{1B}[2J\r\n</html>"]
        try Renderer(io: io, format: OutputFormat(kind: .raw), secrets: []).renderStatic(output, into: plain)
        XCTAssertEqual(plain.text, "<html>\\x1b[2J\\r\n</html>\n")
    }

    /// `--columns` may name a member any row has (not only the first), and where rows hold two
    /// members one name could mean (`Case`/`case`, `accessToken`/`access_token`) it gets the one
    /// named exactly; the list of valid names names each member once.
    func testColumnsReadEveryRowAndPreferTheExactMember() throws {
        let rows: [JSONValue] = [
            .object(JSONObject([("orderNo", "SO1"), ("Case", "upper"), ("case", "lower"), ("dup", "a")])),
            .object(JSONObject([("orderNo", "SO2"), ("sign", "s2"), ("Case", "U"), ("case", "l"), ("dup", "b")])),
        ]
        func csv(_ names: [String]) throws -> String {
            let out = BufferOutput()
            let io = CommandIO(stdout: out, stderr: BufferOutput(), terminal: .plain)
            var format = OutputFormat(kind: .csv)
            format.columns = names
            var output = CommandOutput(data: ["list": .array(rows)])
            output.table([OutputColumn("orderNo", "ORDER NO")], rows)
            try Renderer(io: io, format: format, secrets: []).renderStatic(output, into: out)
            return out.text
        }
        XCTAssertEqual(try csv(["orderNo", "sign"]), "orderNo,sign\nSO1,\nSO2,s2\n")
        XCTAssertEqual(try csv(["Case", "case"]), "Case,case\nupper,lower\nU,l\n")
        XCTAssertThrowsError(try csv(["nope"])) { error in
            let text = String(describing: error)
            XCTAssertEqual(text.components(separatedBy: "dup").count, 2, "each member named once: \(text)")
        }
        let spelled: [JSONValue] = [.object(JSONObject([("accessToken", "camel"), ("access_token", "snake"), ("orderNo", "SO1")]))]
        let selection = try ColumnSelection.resolve(["accessToken", "access_token"], declared: [], samples: spelled)
        XCTAssertEqual(selection.columns.map(\.key), ["accessToken", "access_token"])
        XCTAssertEqual(selection.record(spelled[0]).objectValue?.entries.map(\.key), ["accessToken", "access_token"])
        // A member named exactly before a header of that name: `status` the code, STATUS the text column.
        let orders: [JSONValue] = [["orderNo": "SO1", "status": "3", "statusText": "已完成"]]
        let declared = [OutputColumn("orderNo", "ORDER NO"), OutputColumn("statusText", "STATUS")]
        XCTAssertEqual(try ColumnSelection.resolve(["status"], declared: declared, samples: orders).columns.map(\.key), ["status"])
        XCTAssertEqual(try ColumnSelection.resolve(["STATUS"], declared: declared, samples: orders).columns.map(\.key), ["statusText"])
        XCTAssertEqual(try ColumnSelection.resolve(["Status"], declared: declared, samples: orders).columns.map(\.key), ["statusText"],
                       "a header in another case is the header, not a member no row has")
        XCTAssertEqual(try ColumnSelection.resolve(["ORDER_NO", "STATUS_TEXT"], declared: declared, samples: orders).columns.map(\.key), ["orderNo", "statusText"],
                       "snake_case in capitals names the same columns")
        let snake: [JSONValue] = [["order_no": "SO1", "status": "3", "status_text": "已完成", "customer_name": "张"]]
        XCTAssertEqual(try ColumnSelection.resolve(["customerName"], declared: declared, samples: snake).record(snake[0]), ["customer_name": "张"])
        XCTAssertEqual(try ColumnSelection.resolve(["status"], declared: declared, samples: [["orderNo": "SO1"]]).columns.map(\.key), ["statusText"],
                       "without such a member the header still names its column")
    }

    /// A cell cut to its width keeps an emoji sequence or flag whole and never ends inside an escape.
    func testTruncationKeepsCharactersAndEscapesWhole() {
        let team = "👩\u{200D}💻"
        XCTAssertEqual(TextWidth.truncate("ab\(team)\(team)x", to: 8), "ab\(team)…")
        XCTAssertEqual(TextWidth.truncate("🇨🇳🇨🇳🇨🇳", to: 4), "🇨🇳…")
        XCTAssertEqual(TextWidth.truncate("ab\\u009b31m", to: 6), "ab…")
        XCTAssertEqual(TextWidth.truncate("ab\\x1b[31mRED", to: 5), "ab…")
        XCTAssertEqual(TextWidth.truncate("ab\\x1b[31mRED", to: 7), "ab\\x1b…")
        XCTAssertEqual(TextWidth.truncate("a\\b c d e f", to: 4), "a\\b…", "a backslash that starts no escape stays")
    }
}

extension RendererTests {
    /// The second look at the first fixes: `--columns` takes, in a row of one spelling, that one;
    /// `--raw` masks a token the answer carries where it repeats it; a cut never leaves an escape of a
    /// character beyond the first plane looking complete.
    func testSecondLookAtColumnsRawAndCuts() throws {
        let rows: [JSONValue] = [
            .object(JSONObject([("orderNo", "camel0"), ("order_no", "snake0")])),
            .object(JSONObject([("order_no", "snake1")])),
            .object(JSONObject([("orderNo", "camel2")])),
        ]
        let selection = try ColumnSelection.resolve(["order_no"], declared: [], samples: rows)
        XCTAssertEqual(rows.map { selection.record($0).objectValue?.entries.first?.value.stringValue }, ["snake0", "snake1", "camel2"])
        let token = "eyJhbGciOiJIUzI1NiJ9.NEWTOKEN1234567890abcdef"
        let raw = Renderer.rawMasked(#"{"data":{"auth":{"accessToken":"\#(token)"},"userName":"\#(token)","log":"Bearer \#(token)"}}"#, secrets: [])
        XCTAssertFalse(raw.contains("NEWTOKEN"), raw)
        let tag = "\\ue0041"
        XCTAssertEqual(TextWidth.truncate("CD" + String(repeating: tag, count: 3), to: 15), "CD\(tag)…")
        XCTAssertEqual(TextWidth.truncate("CD" + String(repeating: tag, count: 3), to: 16), "CD\(tag)…")
        XCTAssertEqual(TextWidth.truncate("CD\\u202eabcdefghijkl", to: 10), "CD\\u202ea…", "a four-digit escape and the text after it")
    }
}

extension RendererTests {
    /// A word that ends exactly at the last column stays on its row.
    func testAWordEndingAtTheLastColumnStaysOnTheRow() {
        XCTAssertEqual(Renderer.wrapped("aaaa bbbb cccc", width: 9), ["aaaa bbbb", "  cccc"])
        XCTAssertEqual(Renderer.wrapped("aaaa bbbbb cccc", width: 9), ["aaaa", "  bbbbb", "  cccc"])
    }

    /// A stream's closing lines wrap to the window as it is when they are written, not as it was
    /// when the command began (a resize while rows streamed counts).
    func testAStreamsNotesWrapToTheWindowNow() {
        final class NarrowSink: OutputSink, @unchecked Sendable {
            var text = ""
            func write(_ s: String) { text += s }
            func write(bytes: [UInt8]) { text += String(decoding: bytes, as: UTF8.self) }
            func flush() {}
            var messageWidth: Int? { 20 }
        }
        var terminal = Terminal.plain
        terminal.stderrIsTerminal = true
        terminal.width = 160
        let io = CommandIO(stdout: BufferOutput(), stderr: NarrowSink(), terminal: terminal)
        let line = Renderer(io: io, format: OutputFormat(kind: .table), secrets: []).stderrLine("warning: sixty rows outside the current scope of store 301")
        XCTAssertTrue(line.split(separator: "\n").allSatisfy { TextWidth.width(String($0)) <= 20 }, line)
    }
}

extension RendererTests {
    /// A streamed table's widths are its first batch's: a later row wider than them is cut, whatever the
    /// window, and the closing note says so and what shows it whole, though the first batch fitted.
    func testAStreamedTablesLaterCutIsSaid() async throws {
        var terminal = Terminal.plain
        terminal.stdoutIsTerminal = true
        terminal.stderrIsTerminal = true
        terminal.width = 60
        let out = BufferOutput(), err = BufferOutput()
        var output = CommandOutput()
        let columns = [OutputColumn("id", "ID", priority: 90, cuttable: false), OutputColumn("name", "NAME", priority: 80)]
        output.stream = RowStream(columns: columns) { emit in
            _ = emit([["id": 1, "name": "short"]], nil)
            _ = emit([["id": 2, "name": .string(String(repeating: "long ", count: 30))]], nil)
            return RowStream.End(status: 0)
        }
        _ = try await Renderer(io: CommandIO(stdout: out, stderr: err, terminal: terminal), format: OutputFormat(kind: .table), secrets: []).render(output)
        XCTAssertTrue(out.text.contains("…"), out.text)
        XCTAssertTrue(err.text.contains("(a later row was wider than the first rows' columns and was cut: --json or --csv show it whole)"), err.text)
        XCTAssertFalse(err.text.contains("--wide shows"), "--wide does not widen a streamed table's later rows: \(err.text)")
    }

    /// On a terminal, a table whose values are cut to fit with no column hidden says so, with the
    /// `--wide` hint, as a hidden column is said; one that fits says nothing.
    func testCutValuesAreSaidOnATerminal() async throws {
        for (width, said) in [(40, true), (160, false)] {
            var terminal = Terminal.plain
            terminal.stdoutIsTerminal = true
            terminal.stderrIsTerminal = true
            terminal.width = width
            let out = BufferOutput(), err = BufferOutput()
            var output = CommandOutput(data: .array([]))
            let rows: [JSONValue] = [["field": "source", "value": .string("device snapshot imported from /tmp/a/long/path/export.json")]]
            output.table([OutputColumn("field", "FIELD", priority: 90, cuttable: false), OutputColumn("value", "VALUE", priority: 80)], rows)
            _ = try await Renderer(io: CommandIO(stdout: out, stderr: err, terminal: terminal), format: OutputFormat(kind: .table), secrets: []).render(output)
            XCTAssertEqual(err.text.contains("(values cut to fit: --wide shows them whole)"), said, "\(width): \(err.text)")
        }
    }

    /// `--raw` stays JSON when a masked value's digits would have been cut out of a number.
    func testRawStaysJSONWhereASecretsDigitsSitInANumber() throws {
        let token = "tok1234567890123456789"
        let shown = Renderer.rawMasked(#"{"data":{"n":912345678901234567890,"t":"\#(token)"}}"#, secrets: [token])
        let value = try JSONParser.parse(shown)
        XCTAssertEqual(value.objectValue?.object("data")?.string("t"), "***", shown)
    }
}
