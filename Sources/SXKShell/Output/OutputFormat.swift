import Synchronization
import SXKCore

/// How a command's output is printed, from its flags and the global options; conflicting
/// choices are a usage error before anything is sent.
public struct OutputFormat: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case table, json, ndjson, raw, csv, tsv, expanded }

    public var kind: Kind = .table
    /// `--columns A,B`: names as typed (matched later against the declared columns).
    public var columns: [String]?
    public var limit: Int?
    /// `--wide`: no column dropped or cut.
    public var wide = false
    /// `--chart`: daily rows drawn as bars (table view only).
    public var chart = false
    /// `--jq EXPR`: compiled when the command line is read, so a bad expression stops before any request.
    public var jq: JQProgram?
    /// `set expanded`: records instead of the table always (`on`) or when it cannot fit (`auto`).
    public var expandedMode: ExpandedMode = .off
    /// The kind came from `set format`, not from the command line: a command without rows then
    /// prints its table view instead of failing as `--csv` would.
    public var fromSetting = false
    /// `--no-pager` on this command.
    public var noPager = false

    public init(kind: Kind = .table) { self.kind = kind }

    /// The flags of a command line that choose a format.
    public static let formatFlags: [Kind] = [.json, .ndjson, .raw, .csv, .tsv, .expanded]

    public static func from(_ command: ParsedCommand, options: GlobalOptions, display: DisplaySettings? = nil) throws -> OutputFormat {
        var format = OutputFormat()
        let chosen = formatFlags.filter { command.has($0.rawValue) }
        if chosen.count > 1 {
            throw UsageError("choose one output format: " + chosen.map { "--" + $0.rawValue }.joined(separator: " and ") + " conflict")
        }
        // The global --json is a default, `set format` the one below it; a format flag on the
        // command wins over both, and a view-only flag (--chart, --wide, --jq) over the setting.
        // A setting applies to the commands that take its flag: `stats` (no `--csv`) keeps its table
        // view rather than print its human summary as CSV.
        let setting = (display?.format).flatMap { command.accepts($0.rawValue) ? $0 : nil } ?? .table
        let viewFlags = command.has("chart") || command.has("wide") || command.has("jq")
        format.kind = chosen.first ?? (options.json ? .json : (viewFlags ? .table : setting))
        format.fromSetting = chosen.isEmpty && !options.json && !viewFlags && setting != .table
        format.expandedMode = display?.expanded ?? .off
        format.noPager = command.has("no-pager")
        if let text = command.option("columns") {
            let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimming { $0 == " " } }
            if names.contains(where: \.isEmpty) { throw UsageError("--columns has an empty column name") }
            format.columns = names
        }
        if let text = command.option("limit") {
            guard let n = Int(text), n >= 1 else { throw UsageError("--limit expects a whole number of rows, 1 or more (got '\(text)')") }
            format.limit = n
        }
        format.wide = command.has("wide")
        format.chart = command.has("chart")
        if let expression = command.option("jq") {
            for other in ["csv", "tsv", "ndjson", "raw", "expanded", "columns"] where command.has(other) {
                throw UsageError("--jq prints its own results (strings raw, other values as JSON); it cannot be combined with --\(other)")
            }
            format.jq = try JQCache.program(expression)
        }
        if format.kind == .raw {
            for other in ["all", "columns", "limit", "chart", "wide"] where command.has(other) {
                throw UsageError("--raw prints the bodies as received; it cannot be combined with --\(other)")
            }
        }
        // The format as the line gave it: a global `--json` before the command is named as such.
        let given = chosen.isEmpty && options.json ? "the global --json" : "--\(format.kind.rawValue)"
        if format.chart && format.kind != .table {
            throw UsageError("--chart draws bars in the table view; it cannot be combined with \(given)")
        }
        if format.wide && ![.table, .expanded].contains(format.kind) {
            throw UsageError("--wide is for the table view; \(given) always prints every column")
        }
        return format
    }
}

extension JQProgram: Equatable {
    public static func == (a: JQProgram, b: JQProgram) -> Bool { a.expression == b.expression }
}

/// The last compiled `--jq` program: a command line's format is read more than once (checked before
/// the request, then for rendering) and jq 1.6 takes ~15 ms to compile.
enum JQCache {
    private static let last = Mutex<JQProgram?>(nil)

    static func program(_ expression: String) throws -> JQProgram {
        if let hit = last.withLock({ $0?.expression == expression ? $0 : nil }) { return hit }
        do {
            let program = try JQProgram.compile(expression)
            last.withLock { $0 = program }
            return program
        } catch {
            // A compile error is the expression's (usage); a libjq that cannot be loaded is not.
            guard error.isUsage else { throw error }
            throw UsageError(error.description)
        }
    }
}
