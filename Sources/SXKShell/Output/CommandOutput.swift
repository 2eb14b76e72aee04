import SXKCore

/// A column a command declares for its rows: the data key `--columns` and CSV use, the header
/// the table shows, and how it gives way when the terminal is narrow.
public struct OutputColumn: Sendable {
    public var key: String
    public var header: String
    public var alignment: TableRenderer.Alignment
    /// Higher stays longer: when the table cannot fit, the lowest-priority columns are dropped first.
    public var priority: Int
    /// May be cut with `…` (identifiers and amounts are never cut).
    public var cuttable: Bool
    /// The cell text for one row (a JSON record); by default the member `key` (or its snake_case
    /// spelling, as a server may send it) as text.
    public var text: @Sendable (JSONValue) -> String
    /// How a row's member for this column is found: `member(key)` (the key or its snake_case spelling).
    public var find: @Sendable (JSONObject) -> (key: String, value: JSONValue)?
    /// The column is a member the server sends, shown through `text` (a count grouped, `–` for none):
    /// CSV and TSV write the member as received, an empty cell where the row lacks it, never the
    /// table's text. A column sxk computes (a status's name) writes its text there too.
    public var received: Bool

    public init(_ key: String, _ header: String? = nil, alignment: TableRenderer.Alignment = .left, priority: Int = 50,
                cuttable: Bool = true, received: Bool = false, text: (@Sendable (JSONValue) -> String)? = nil,
                find: (@Sendable (JSONObject) -> (key: String, value: JSONValue)?)? = nil) {
        self.received = received
        self.key = key
        self.header = header ?? key.uppercased()
        self.alignment = alignment
        self.priority = priority
        self.cuttable = cuttable
        let find = find ?? { $0.member(key) }
        self.find = find
        self.text = text ?? { row in OutputColumn.plain(row.objectValue.flatMap(find)?.value) }
    }

    /// A member as a cell: strings as they are, numbers as written, `true`/`false`, empty for null.
    public static func plain(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return ""
        case .string(let s)?: return s
        case .number(let n)?: return n
        case .bool(let b)?: return b ? "true" : "false"
        case let other?: return JSONWriter.string(other)
        }
    }
}

/// Rows with declared columns; each row is the record `--json`/`--ndjson` print for it.
public struct OutputTable: Sendable {
    public var columns: [OutputColumn]
    public var rows: [JSONValue]
    /// With `CommandOutput.readWhole`: the rows that must be read whole (`context diff`'s differences).
    /// Only a cut or hidden cell of one of them turns the table into records; nil: any row's.
    public var mustShowWhole: (@Sendable (JSONValue) -> Bool)?
    public init(columns: [OutputColumn], rows: [JSONValue], mustShowWhole: (@Sendable (JSONValue) -> Bool)? = nil) {
        self.columns = columns
        self.rows = rows
        self.mustShowWhole = mustShowWhole
    }
}

/// One part of a command's human view, in order.
public enum OutputBlock: Sendable {
    /// Text; on a terminal a line wider than it wraps at spaces (`Renderer.wrapped`).
    case lines([String])
    /// Text printed as it is, never wrapped: a command to copy (`curl N`).
    case verbatim([String])
    case table(OutputTable)
    /// JSON shown as the human view (`get`, `post`).
    case json(JSONValue)
}

/// Rows that arrive over time (`orders --all`): the producer calls `emit` for each batch with a
/// progress line for the terminal; `emit` answers false when the reader has gone (broken pipe).
public struct RowStream: Sendable {
    public typealias Emit = @Sendable ([JSONValue], _ progress: String?) -> Bool
    public var columns: [OutputColumn]
    /// Runs the stream; gives its exit status and what it says on stderr.
    public var run: @Sendable (_ emit: @escaping Emit) async throws -> End
    public init(columns: [OutputColumn], run: @escaping @Sendable (_ emit: @escaping Emit) async throws -> End) {
        self.columns = columns
        self.run = run
    }

    /// How a stream ended. The renderer writes its lines on stderr, after the rows.
    public struct End: Sendable, Equatable {
        public var status: Int32
        /// What every reader must know, in every format: written as warnings.
        public var warnings: [String]
        /// How far a run that was interrupted got: in every format too.
        public var interruption: String?
        /// For people (counts, time): left out of JSON and NDJSON.
        public var notes: [String]

        public init(status: Int32, warnings: [String] = [], interruption: String? = nil, notes: [String] = []) {
            self.status = status; self.warnings = warnings; self.interruption = interruption; self.notes = notes
        }
    }
}

/// Output that redraws (`watch`): the producer hands each frame to `show` and decides when to stop.
public struct LiveOutput: Sendable {
    public typealias Show = @Sendable (_ header: Header, _ frame: CommandOutput?, _ error: (any Error)?) async -> Int32

    /// A frame's header: what runs, then when and which run. On a screen too narrow for both on one
    /// row, the title is cut first (as watch(1) cuts its command), then the short status (the time
    /// without the day) stands in, so the time and run stay in view as long as a few cells of the
    /// command do.
    public struct Header: Sendable, Equatable {
        public var title: String
        public var status: String
        public var shortStatus: String?
        public init(title: String, status: String, shortStatus: String? = nil) {
            self.title = title
            self.status = status
            self.shortStatus = shortStatus
        }
        public var line: String { status.isEmpty ? title : title + "    " + status }

        /// One row of `columns` cells: whole, or the title cut beside the status (at least 24 cells of
        /// it) or beside the short status (at least 12), or else the whole line cut.
        public func fitted(columns: Int) -> String {
            let full = line
            guard TextWidth.width(full) > columns else { return full }
            // A short title needs no more room than its own (two spaces apart: the gap narrows first).
            let titleWidth = TextWidth.width(title)
            for (side, least) in [(status, min(24, titleWidth)), (shortStatus ?? status, min(12, titleWidth))] {
                let room = columns - TextWidth.width(side) - 2
                if room >= least { return TextWidth.truncate(title, to: room) + "  " + side }
            }
            return TextWidth.truncate(full, to: columns)
        }
    }
    public var run: @Sendable (_ show: @escaping Show) async throws -> Int32
    /// `watch -d`: on a terminal, what changed since the previous frame is shown in reverse video.
    public var highlightChanges: Bool
    public init(highlightChanges: Bool = false, run: @escaping @Sendable (_ show: @escaping Show) async throws -> Int32) {
        self.run = run
        self.highlightChanges = highlightChanges
    }
}

/// What a command returns: its data and human view; the renderer alone prints it.
public struct CommandOutput: Sendable {
    /// What `--json` prints, `$_` and `let` keep.
    public var data: JSONValue?
    /// The default (table) view, in order. The first table is the one `--csv`, `--tsv`,
    /// `--ndjson`, `--expanded` and `--columns` work on.
    public var blocks: [OutputBlock] = []
    /// The rows `--csv`, `--tsv` and `--ndjson` print when the view shows them as lines rather than
    /// as a table (`history`'s numbered lines, `alias`'s definitions).
    public var rows: OutputTable?
    /// Bodies as received, for `--raw`.
    public var raw: [String]?
    public var stream: RowStream?
    public var live: LiveOutput?
    /// Lines for stderr before the output (`get`'s status line).
    public var notes: [String] = []
    /// Warnings for stderr after the output (the scope guard).
    public var warnings: [String] = []
    /// Secrets beyond the session's that this output may echo (tokens a command asked for).
    public var secrets: [String] = []
    public var status: Int32 = 0
    /// The error that ended a command after part of its data was read (`stats daily --all` when a later
    /// page fails): the output shows what was read, then this is reported as any thrown error is, once,
    /// with its exit status.
    public var failure: (any Error)?
    /// The user asked for a secret itself (`curl --reveal-token`): live secrets are not masked.
    public var revealsSecrets = false
    /// The format of the command line that made it (a `watch` frame keeps its own).
    public var format: OutputFormat?
    /// The rows are text to be read whole (`explain rules`): where the table view would hide or cut a
    /// column, they print as records whose values wrap to the width instead of being cut.
    public var readWhole = false

    public init(data: JSONValue? = nil, blocks: [OutputBlock] = []) {
        self.data = data
        self.blocks = blocks
    }

    public static let none = CommandOutput()

    public mutating func line(_ text: String) {
        if case .lines(var lines)? = blocks.last {
            lines.append(text)
            blocks[blocks.count - 1] = .lines(lines)
        } else {
            blocks.append(.lines([text]))
        }
    }

    public mutating func table(_ columns: [OutputColumn], _ rows: [JSONValue]) {
        blocks.append(.table(OutputTable(columns: columns, rows: rows)))
    }

    /// The table view of one record (`data`, an object) as field and value rows, labelled for people:
    /// the machine formats and `--columns` work on the record itself (one row of its keys).
    public mutating func record(_ columns: [OutputColumn], _ rows: [JSONValue]) {
        table(columns, rows)
        recordData = true
    }

    /// Set by `record`: the view's table lists the fields of `data`.
    public var recordData = false

    /// The first table of the view, else `rows`: the one row formats work on.
    public var mainTable: OutputTable? { viewTable ?? rows }

    /// The first table of the view (what `set expanded` may show as records).
    var viewTable: OutputTable? {
        for block in blocks { if case .table(let t) = block { return t } }
        return nil
    }
}
