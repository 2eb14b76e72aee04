import SXKCore

/// Prints what commands return, in every format, through one path: secrets masked, server text
/// made inert, tables fitted to the terminal, long output paged. Commands never print.
public struct Renderer: Sendable {
    public let io: CommandIO
    public let format: OutputFormat
    /// The session's live secrets (token, temporary token, other accounts' tokens).
    public let secrets: [String]
    /// The pager command when paging is on for this run (nil: never page).
    public let pager: String?

    /// Notes for stderr held until the page they are about has been written (the hidden-columns note).
    let heldNotes: BufferOutput?

    public init(io: CommandIO, format: OutputFormat, secrets: [String], pager: String? = nil) {
        self.init(io: io, format: format, secrets: secrets, pager: pager, heldNotes: nil)
    }

    init(io: CommandIO, format: OutputFormat, secrets: [String], pager: String?, heldNotes: BufferOutput?) {
        self.io = io
        self.format = format
        self.secrets = secrets
        self.pager = pager
        self.heldNotes = heldNotes
    }

    /// Rows kept for `$_` from a stream; beyond this `$_` is left unchanged (memory stays flat).
    public static let streamKeepLimit = 10_000

    public func render(_ output: CommandOutput) async throws -> Int32 {
        let secrets = output.revealsSecrets ? [] : self.secrets + output.secrets
        let held = BufferOutput()
        var chosen = output.format ?? format
        // `set format csv` on a command without rows: its table view, not an error.
        if chosen.fromSetting, [.csv, .tsv].contains(chosen.kind), output.mainTable == nil, output.stream == nil { chosen.kind = .table }
        let me = Renderer(io: io, format: chosen, secrets: secrets, pager: pager, heldNotes: held)
        let sayNotes = { for note in output.notes { io.stderr.write(me.stderrLine(note) + "\n") } }
        var status = output.status
        // The notes held for after the output (the columns hidden), then the warnings.
        let sayAfter = {
            io.stderr.write(held.text)
            for warning in output.warnings { io.warning(me.text(warning)) }
        }
        var saidAfter = false
        // Rows made before the notes are said: a usage error in them (`--columns nope`) is then the only line.
        if output.live == nil, output.stream == nil {
            let page = BufferOutput()
            try me.renderStatic(output, into: page)
            sayNotes()
            // Said before the page when after it they would push its first rows off the screen.
            saidAfter = me.deliver(page.text, after: held.text + output.warnings.map { "warning: " + me.text($0) + "\n" }.joined(), sayAfter: sayAfter)
        } else {
            sayNotes()
        }
        if let live = output.live {
            let changes = live.highlightChanges ? FrameChanges() : nil
            status = try await live.run { header, frame, error in await me.showFrame(header: header, frame: frame, error: error, changes: changes) }
        } else if let stream = output.stream, me.format.jq != nil {
            // jq needs the whole document: the rows are gathered (as `$_` holds them) and run once.
            let page = BufferOutput()
            try me.renderStatic(try await me.gather(stream, status: &status), into: page)
            me.deliver(page.text)
        } else if let stream = output.stream {
            status = try await me.renderStream(stream)
        }
        io.stdout.flush()
        if !saidAfter { sayAfter() }
        return status
    }

    // MARK: the one place data is shaped before formatting (limit, masking; `--jq` goes here)

    /// The data a format prints and `$_` keeps.
    func shape(_ data: JSONValue) -> JSONValue {
        var value = data
        if let limit = format.limit { value = Self.limited(value, to: limit) }
        return Redaction.redact(value, secrets: secrets)
    }

    /// A list cut to `limit` rows: an array, or the `list` member of a page object.
    public static func limited(_ data: JSONValue, to limit: Int) -> JSONValue {
        switch data {
        case .array(let items): return .array(Array(items.prefix(limit)))
        case .object(var page):
            guard case .array(let list)? = page["list"] else { return data }
            page["list"] = .array(Array(list.prefix(limit)))
            return .object(page)
        default: return data
        }
    }

    /// Every server-originated string passes here before the terminal: secrets masked, control
    /// characters made harmless.
    func text(_ s: String) -> String { Self.cell(Redaction.redact(s, secrets: secrets)) }

    /// The terminal-safety step for one string (`TableRenderer.clean`, the sanitizer's cell form).
    static func cell(_ s: String) -> String { TableRenderer.clean(s) }

    // MARK: static output

    func renderStatic(_ output: CommandOutput, into sink: any OutputSink) throws {
        if let jq = format.jq { return try writeJQ(jq, output, into: sink) }
        let shaped = output.data.map(shape)
        var table = output.mainTable
        // A record's field/value rows are for people; a machine format or a choice of columns takes
        // the record as one row of its own keys and values (as `--json` shows it).
        if output.recordData, format.kind != .table || format.columns != nil, case .object(let record)? = shaped {
            // A record without keys is no row: nothing to print but what `--json` prints (`{}`).
            table = OutputTable(columns: record.entries.map { OutputColumn($0.key, $0.key) }, rows: record.isEmpty ? [] : [.object(record)])
        }
        if table != nil {
            table!.rows = table!.rows.prefix(format.limit ?? Int.max).map { Redaction.redact($0, secrets: secrets) }
        }
        let selection = try table.map { try ColumnSelection.resolve(format.columns, declared: $0.columns, samples: $0.rows) }
        // An empty list declares no columns: it prints nothing in any format, not a usage error.
        let emptyList = table == nil && shaped == .array([])
        if format.columns != nil && table == nil && !emptyList {
            throw UsageError("--columns needs rows to choose from; this command prints none")
        }
        // `set expanded` turns a table of the view into records, not lines that only stand for rows.
        switch recordsOrTable(output.viewTable == nil ? nil : table, selection, readWhole: output.readWhole) {
        case .raw:
            guard let bodies = output.raw else { throw UsageError("--raw: this command has no response body to print") }
            for body in bodies {
                // Byte-exact into a pipe or file (what --raw is for); inert on a terminal.
                // Secret-named members too (a body is text here, perhaps not JSON at all), and the
                // values rows name as secret (then the body is written again, masked).
                var masked = Self.rawMasked(body, secrets: secrets)
                if io.terminal.stdoutIsTerminal {
                    // Inert on a terminal, and JSON of the same value when it was JSON (copied from the screen).
                    masked = (try? JSONParser.parse(masked)) != nil ? TerminalText.sanitizeJSON(masked) : TerminalText.sanitizeLines(masked)
                }
                sink.write(masked.hasSuffix("\n") ? masked : masked + "\n")
            }
            if let shaped { io.keep(shaped) }
        case .json:
            let value: JSONValue
            if let table, let selection, format.columns != nil {
                // Selected where they are: a page keeps its total, page and page size around them.
                let records = table.rows.map { selection.record($0) }
                // A record stays one object of the keys chosen, as `--json` prints it without them.
                if output.recordData, case .object? = shaped, records.count == 1 {
                    value = records[0]
                } else {
                    value = Self.replacingRows(in: shaped, count: table.rows.count, with: records) ?? .array(records)
                }
            } else if let shaped {
                value = shaped
            } else if let table {
                value = .array(table.rows)
            } else {
                for block in output.blocks { writeBlock(block, into: sink) }
                return
            }
            io.keep(shaped ?? value)
            writeJSON(value, pretty: io.terminal.stdoutIsTerminal, into: sink)
        case .ndjson:
            let rows: [JSONValue]
            if let table, let selection {
                rows = format.columns == nil ? table.rows : table.rows.map { selection.record($0) }
            } else if let shaped {
                rows = Self.elements(shaped)
            } else {
                rows = []
            }
            if let shaped { io.keep(shaped) } else { io.keep(.array(rows)) }
            for row in rows { writeJSON(row, pretty: false, into: sink) }
        case .csv, .tsv:
            guard let table, let selection else {
                if emptyList { return io.keep(.array([])) }
                throw UsageError("--\(format.kind.rawValue) needs rows; this command prints none")
            }
            if let shaped { io.keep(shaped) }
            let separated = SeparatedValues(tabs: format.kind == .tsv)
            // No column (a record of no keys): no header line either, not an empty record.
            if selection.columns.isEmpty { return }
            sink.write(separated.line(selection.header(sample: table.rows.first)))
            for row in table.rows { sink.write(separated.line(selection.columns.map { Self.cell(row, $0, raw: true) })) }
        case .expanded:
            guard let table, let selection else {
                for block in output.blocks { writeBlock(block, into: sink) }
                if let shaped { io.keep(shaped) }
                return
            }
            if let shaped { io.keep(shaped) }
            // The first table as records; the rest of the view (a paging footer) as in the table view.
            var first = true
            for block in output.blocks {
                if case .table = block, first {
                    first = false
                    sink.write(RecordView(width: maxWidth, wide: format.wide, wraps: output.readWhole)
                        .render(table.rows, columns: selection.columns) { self.text(Self.cell($0, $1)) })
                } else {
                    writeBlock(block, into: sink)
                }
            }
        case .table:
            if let shaped { io.keep(shaped) }
            var first = true
            for block in output.blocks {
                if case .table(var t) = block {
                    if first, let limited = table, let selection {
                        t.rows = limited.rows
                        t.columns = selection.columns
                    } else {
                        t.rows = t.rows.map { Redaction.redact($0, secrets: secrets) }
                    }
                    first = first && false
                    writeTable(t, into: sink)
                } else {
                    writeBlock(block, into: sink)
                }
            }
        }
    }

    /// The kind to print: the table view becomes records with `set expanded on`, and with `auto` (or
    /// for rows to be read whole) when the table cannot fit the terminal whole (a column hidden or cut).
    func recordsOrTable(_ table: OutputTable?, _ selection: ColumnSelection?, readWhole: Bool = false) -> OutputFormat.Kind {
        guard format.kind == .table, format.expandedMode != .off || readWhole, let table, let selection else { return format.kind }
        if format.expandedMode == .on { return .expanded }
        if format.expandedMode == .off, let mustShowWhole = table.mustShowWhole {
            return showsWhole(selection.columns, rows: table.rows, where: mustShowWhole) ? .table : .expanded
        }
        return fitsWhole(selection.columns, rows: table.rows) ? .table : .expanded
    }

    /// Whether the table of all `rows` shows every cell of the rows `important` picks whole: none of
    /// their columns hidden, none of their cells wider than its column.
    func showsWhole(_ columns: [OutputColumn], rows: [JSONValue], where important: (JSONValue) -> Bool) -> Bool {
        let cells = rows.map { row in columns.map { text(Self.cell(row, $0)) } }
        let layout = fit(columns, cells: cells)
        let width = Dictionary(uniqueKeysWithValues: zip(layout.shown, layout.widths))
        for (row, texts) in zip(rows, cells) where important(row) {
            for (i, cell) in texts.enumerated() where !cell.isEmpty {
                guard let room = width[i], TextWidth.width(cell) <= room else { return false }
            }
        }
        return true
    }

    /// A body for `--raw`: as received, with secret-named members, rows naming a secret and the live
    /// secrets masked in its text. A JSON body that would still show a secret once decoded (a token
    /// written with `\u` escapes) or that the masking left unreadable (a `\/` escape cut) is written
    /// again from its parsed value, masked: never the token, and always JSON when it was JSON.
    static func rawMasked(_ body: String, secrets live: [String]) -> String {
        // And a token the answer carries under a secret name, wherever else it repeats it, as the
        // other views mask it.
        let carried = Redaction.secretMemberValues(Array(body.utf8))
        let secrets = carried.isEmpty ? live : live + carried.filter { !live.contains($0) }
        let masked = Redaction.redact(Redaction.scrubNamedRows(Redaction.scrubMembers(body)), secrets: secrets)
        // Masked as text it must still be JSON with no secret left (a `\/` escape, a secret's digits
        // inside a number); else the body is written again from its value, masked.
        guard !secrets.isEmpty, let value = try? JSONParser.parse(body) else { return masked }
        if let shown = try? JSONParser.parse(masked), !holdsSecret(shown, SecretMatcher.shared(secrets)) { return masked }
        return JSONWriter.string(Redaction.redact(Redaction.redact(value), secrets: secrets))
    }

    private static func holdsSecret(_ value: JSONValue, _ matcher: SecretMatcher) -> Bool {
        switch value {
        case .string(let text): return matcher.holds(text)
        case .array(let items): return items.contains { holdsSecret($0, matcher) }
        case .object(let object): return object.entries.contains { matcher.holds($0.key) || holdsSecret($0.value, matcher) }
        default: return false
        }
    }

    /// `data` with its list of rows (the member `list`, `items`, `rows` or `records` holding `count`
    /// of them) replaced by `records`; nil when the data is not such an object.
    static func replacingRows(in data: JSONValue?, count: Int, with records: [JSONValue]) -> JSONValue? {
        guard case .object(var object)? = data else { return nil }
        for name in ["list", "items", "rows", "records"] {
            guard let rows = object.field(name)?.arrayValue, rows.count == count else { continue }
            object[name] = .array(records)
            return .object(object)
        }
        return nil
    }

    func fitsWhole(_ columns: [OutputColumn], rows: [JSONValue]) -> Bool {
        let layout = fit(columns, cells: rows.map { row in columns.map { text(Self.cell(row, $0)) } })
        return layout.dropped.isEmpty && !layout.cuts
    }

    /// The width tables fit: the terminal's when stdout is one, unless `--wide`.
    var maxWidth: Int? { io.terminal.stdoutIsTerminal && !format.wide ? io.terminal.width : nil }

    func writeBlock(_ block: OutputBlock, into sink: any OutputSink) {
        switch block {
        case .verbatim(let lines): for line in lines { sink.write(text(line) + "\n") }
        case .lines(let lines):
            for line in lines {
                let shown = text(line)
                guard let width = maxWidth, TextWidth.width(shown) > width else { sink.write(shown + "\n"); continue }
                // On a terminal a long line (a replay's step, a reason) wraps at spaces under its own
                // indentation plus two, as help does, instead of where the terminal breaks it.
                for part in Self.wrapped(shown, width: width) { sink.write(part + "\n") }
            }
        case .json(let value): writeJSON(Redaction.redact(value, secrets: secrets), pretty: io.terminal.stdoutIsTerminal, into: sink)
        case .table(let t): writeTable(OutputTable(columns: t.columns, rows: t.rows.map { Redaction.redact($0, secrets: secrets) }), into: sink)
        }
    }

    /// `line` in rows of at most `width` columns, broken at the last space that fits (a word longer
    /// than a row is cut where it must); its spacing is kept, and each row after the first starts
    /// under the line's indentation plus two.
    static func wrapped(_ line: String, width: Int) -> [String] {
        let indent = String(line.prefix { $0 == " " })
        let next = indent + "  "
        var rows: [String] = []
        var rest = Substring(line)
        // The width left is kept as the rows are taken, not measured again for each: linear in the line.
        var restWidth = TextWidth.width(line)
        var lead = ""
        while true {
            let room = max(1, width - TextWidth.width(lead))
            if restWidth <= room { rows.append(lead + rest); break }
            var used = 0, cut = rest.startIndex, lastSpace: String.Index?, widthAtSpace = 0
            for index in rest.indices {
                let w = TextWidth.width(String(rest[index]))
                // A character wider than the whole room goes on a row of its own: every row takes one.
                if used + w > room && cut > rest.startIndex { break }
                used += w
                cut = rest.index(after: index)
                if rest[index] == " ", index > rest.startIndex, rest[rest.index(before: index)] != " " {
                    lastSpace = index
                    widthAtSpace = used - w
                }
                if used >= room { break }
            }
            // A word that ends exactly at the last column (a space or the end follows) stays on the row.
            let exact = cut < rest.endIndex && rest[cut] == " "
            if !exact, lastSpace == nil, let start = Self.escapeStart(around: cut, in: rest), start > rest.startIndex {
                // A word cut where it must be, but never inside an escape the sanitizer wrote (`\x07`, `\u202e`).
                used -= rest.distance(from: start, to: cut)
                cut = start
            }
            let end = exact ? cut : lastSpace ?? cut
            var head = rest[..<end]
            var taken = exact || lastSpace == nil ? used : widthAtSpace
            while head.last == " " { head.removeLast() }
            rows.append(lead + head)
            // The spaces dropped counted one by one: `count` of what is left would walk the rest of the
            // line for every row (a line of 150,000 key names took minutes).
            rest = rest[end...]
            while rest.first == " " {
                rest.removeFirst()
                taken += 1
            }
            restWidth -= taken
            lead = TextWidth.width(next) < width / 2 ? next : ""
            if rest.isEmpty { break }
        }
        return rows
    }

    /// Where an escape the sanitizer writes (`\n`, `\x1b`, `\u202e`, `\u1f600`) starts when `cut` falls
    /// inside it; nil when it does not.
    static func escapeStart(around cut: Substring.Index, in text: Substring) -> Substring.Index? {
        var start = cut
        for _ in 0..<7 {
            guard start > text.startIndex else { return nil }
            start = text.index(before: start)
            guard text[start] == "\\" else { continue }
            var end = text.index(after: start)
            guard end < text.endIndex else { return nil }
            switch text[end] {
            case "n", "r", "t": end = text.index(after: end)
            case "x", "u":
                let hex = text[text.index(after: end)...].prefix(text[end] == "x" ? 2 : 5).prefix { $0.isHexDigit }
                end = hex.endIndex
            default: return nil
            }
            return end > cut ? start : nil
        }
        return nil
    }

    /// A fitted table; a single row that cannot fit even with columns hidden becomes a record view.
    func writeTable(_ table: OutputTable, into sink: any OutputSink) {
        let cells = table.rows.map { row in table.columns.map { text(Self.cell(row, $0)) } }
        let layout = fit(table.columns, cells: cells)
        if table.rows.count == 1 && layout.overflows {
            sink.write(RecordView(width: maxWidth, wide: format.wide).render(table.rows, columns: table.columns) { self.text(Self.cell($0, $1)) })
            return
        }
        let renderer = TableRenderer(columns: layout.shown.map {
            TableRenderer.Column(table.columns[$0].header, alignment: table.columns[$0].alignment)
        }, color: io.color)
        sink.write(renderer.renderLine(layout.shown.map { table.columns[$0].header }, widths: layout.widths, header: true))
        for row in cells { sink.write(renderer.renderLine(layout.shown.map { row[$0] }, widths: layout.widths)) }
        // No row, nothing hidden that `--wide` would show.
        if !table.rows.isEmpty { noteHidden(layout, columns: table.columns) }
    }

    /// The layout of `columns` for these cells (rows of display text) at this run's width.
    func fit(_ columns: [OutputColumn], cells: [[String]]) -> TableLayout {
        let natural = columns.indices.map { i in
            cells.reduce(TextWidth.width(columns[i].header)) { max($0, TextWidth.width($1[i])) }
        }
        return TableLayout.fit(natural: natural, priority: columns.map(\.priority), cuttable: columns.map(\.cuttable),
                               headers: columns.map { TextWidth.width($0.header) }, maxWidth: maxWidth)
    }

    /// The note naming the columns hidden to fit (stderr, terminal only), whole: wrapped at spaces
    /// to the width rather than cut, so the `--wide` hint is always there; with none hidden, one that
    /// says values were cut.
    func noteHidden(_ layout: TableLayout, columns: [OutputColumn], held: Bool = true) {
        guard io.terminal.stderrIsTerminal else { return }
        // Values cut with `…` and no column hidden: said too, or a cut value reads as the whole of it.
        if layout.dropped.isEmpty {
            if layout.cuts { (held ? heldNotes ?? io.stderr : io.stderr).write("(values cut to fit: --wide shows them whole)\n") }
            return
        }
        let names = layout.dropped.map { text(columns[$0].header) }
        let head = "(\(layout.dropped.count) column\(layout.dropped.count == 1 ? "" : "s") hidden to fit:"
        // The hint is one unbreakable piece, so a wrapped note never splits it.
        let words = head.split(separator: " ").map(String.init)
            + names.enumerated().map { $0.offset == names.count - 1 ? $0.element : $0.element + "," }
            + ["— --wide shows \(names.count == 1 ? "it" : "them"))"]
        let sink: any OutputSink = held ? heldNotes ?? io.stderr : io.stderr
        for line in HelpRenderer.wrap(words, width: io.terminal.width, first: "", rest: "  ") { sink.write(line + "\n") }
    }

    /// A note for stderr, wrapped at spaces to the terminal's width when stderr is one: a note is
    /// read whole (what was written, what was left out), never cut.
    func stderrLine(_ s: String) -> String {
        let line = text(s)
        // The window's width now (a resize while a long stream ran counts), as errors take it.
        return io.terminal.stderrIsTerminal ? Self.wrapped(line, width: io.stderr.messageWidth ?? io.terminal.width).joined(separator: "\n") : line
    }

    /// A cell's text; `raw` takes the member as received (CSV), else the column's display text.
    static func cell(_ row: JSONValue, _ column: OutputColumn, raw: Bool = false) -> String {
        if raw, let member = row.objectValue.flatMap(column.find) { return OutputColumn.plain(member.value) }
        return raw && column.received ? "" : column.text(row)
    }

    static func elements(_ data: JSONValue) -> [JSONValue] {
        switch data {
        case .array(let items): return items
        case .object(let o): if case .array(let list)? = o["list"] { return list }; return [data]
        default: return [data]
        }
    }

    func writeJSON(_ value: JSONValue, pretty: Bool, into sink: any OutputSink) {
        var bytes: [UInt8] = []
        JSONWriter.write(value, style: pretty ? .pretty : .compact, into: &bytes)
        bytes.append(0x0A)
        sink.write(bytes: JSONColorizer.colorize(bytes, enabled: io.color && io.terminal.stdoutIsTerminal))
    }

    // MARK: paging

    /// Writes a page of text to stdout, through the pager when it is taller than the terminal.
    @discardableResult
    func deliver(_ page: String, after: String = "", sayAfter: () -> Void = {}) -> Bool {
        io.deliver(page, pager: pager, after: after, sayAfter: sayAfter)
    }
}
