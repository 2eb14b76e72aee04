import SXKShell

/// Flags several commands share, in scope in every command's spec.
extension AppCommand {
    static var roles: ValueKind { .provider("role") }

    /// `get` / `post`'s request flags, as HTTPie and `gh api` have them.
    static var rawRequest: [FlagSpec] {
        [
            FlagSpec("print", value: .string, valueName: "HBhb", summary: "what to show: H request headers, B request body, h response headers (stderr), b response body (default b)"),
            FlagSpec("verbose", short: "v", summary: "show the request and the response headers too (--print HBhb)"),
            FlagSpec("paginate", summary: "walk every page of a list endpoint (list, total, pageSize) into one list, to the last page or 10,000 rows (then exit 1)"),
        ]
    }

    // Output flags shared by the commands that print API data.
    static var json: FlagSpec { FlagSpec("json", summary: "print the decoded data as JSON") }
    static var raw: FlagSpec { FlagSpec("raw", summary: "print the whole response envelope as received") }
    static var ndjson: FlagSpec { FlagSpec("ndjson", summary: "print one JSON object per line (lists)") }
    static var columns: FlagSpec { FlagSpec("columns", value: .string, valueName: "A,B,C", summary: "table columns to show, in order") }
    static var csv: FlagSpec { FlagSpec("csv", summary: "print the rows as CSV (header of data keys)") }
    static var tsv: FlagSpec { FlagSpec("tsv", summary: "print the rows as tab-separated values") }
    static var expanded: FlagSpec { FlagSpec("expanded", short: "x", summary: "print each row as a record, one field per line") }
    static var wide: FlagSpec { FlagSpec("wide", summary: "show every column uncut, however wide") }
    static var limit: FlagSpec { FlagSpec("limit", value: .int, valueName: "N", summary: "stop after N rows (1 or more)") }
    static var dataOutput: [FlagSpec] { [json, raw] }
    /// Commands whose main output is a table: every row format and the column choice.
    static var tableOutput: [FlagSpec] { [json, ndjson, csv, tsv, expanded, wide, columns] }
    static var listOutput: [FlagSpec] { [json, raw, ndjson, csv, tsv, expanded, wide, columns] }
}
