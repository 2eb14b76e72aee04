import SXKCore

/// `--columns` resolved against a table's declared columns (keys or headers, any case) and the
/// members of its rows; an unknown name is a usage error listing the valid ones.
struct ColumnSelection: Sendable {
    var columns: [OutputColumn]

    static func resolve(_ names: [String]?, declared: [OutputColumn], sample: JSONValue?) throws -> ColumnSelection {
        guard let names else { return ColumnSelection(columns: declared) }
        let members = sample?.objectValue?.entries.map(\.key) ?? []
        return ColumnSelection(columns: try names.map { name in
            let lower = name.lowercased()
            if let column = declared.first(where: { $0.key.lowercased() == lower || $0.header.lowercased() == lower }) {
                return column
            }
            if let key = members.first(where: { $0.lowercased() == lower }) {
                // A member shown as received; its header is the key itself, so it never repeats a declared header.
                return OutputColumn(key, key)
            }
            let valid = declared.map { $0.key == $0.header.lowercased() ? $0.key : "\($0.key) (\($0.header))" }
            let more = members.filter { m in !declared.contains { $0.key == m } }
            throw UsageError("unknown column '\(name)'; valid: " + (valid + more).joined(separator: ", "))
        })
    }

    /// A row as an object of the chosen columns (members as received, else the column's text).
    func record(_ row: JSONValue) -> JSONValue {
        var out = JSONObject()
        for column in columns { out[column.key] = row.objectValue?[column.key] ?? .string(column.text(row)) }
        return .object(out)
    }
}

/// CSV (RFC 4180: quoted when needed, CRLF-free) or TSV (tab, newline and backslash escaped).
struct SeparatedValues: Sendable {
    let tabs: Bool

    func line(_ fields: [String]) -> String {
        // Server text is made inert here too (files get `cat`ed); --raw is the byte-exact format.
        fields.map { tabs ? tsv(TerminalText.sanitizeLines($0)) : csv(TerminalText.sanitizeLines($0)) }.joined(separator: tabs ? "\t" : ",") + "\n"
    }

    private func csv(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) || field.hasPrefix(" ") || field.hasSuffix(" ") else {
            return field
        }
        return "\"" + field.replacingAll("\"", with: "\"\"") + "\""
    }

    private func tsv(_ field: String) -> String {
        guard field.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\\" }) else { return field }
        return field.replacingAll("\\", with: "\\\\").replacingAll("\t", with: "\\t")
            .replacingAll("\r\n", with: "\\n").replacingAll("\n", with: "\\n").replacingAll("\r", with: "\\r")
    }
}

/// psql's `\x`: one record after another, `HEADER │ value` per line, values cut to the width.
struct RecordView: Sendable {
    let width: Int?
    let wide: Bool

    func render(_ rows: [JSONValue], columns: [OutputColumn], cell: (JSONValue, OutputColumn) -> String) -> String {
        let keyWidth = columns.map { TextWidth.width($0.header) }.max() ?? 0
        var out = ""
        for (n, row) in rows.enumerated() {
            let title = "-[ RECORD \(n + 1) ]"
            let rule = width.map { max(0, min($0, keyWidth + 24) - TextWidth.width(title)) } ?? max(0, keyWidth + 3 - title.count)
            out += title + String(repeating: "-", count: rule) + "\n"
            for column in columns {
                var head = TextWidth.pad(column.header, to: keyWidth)
                var value = cell(row, column)
                if let width, !wide {
                    head = TextWidth.truncate(head, to: max(1, width - 4))
                    value = TextWidth.truncate(value, to: max(1, width - TextWidth.width(head) - 3))
                }
                var line = head + " | " + value
                while line.hasSuffix(" ") { line.removeLast() }
                out += line + "\n"
            }
        }
        return out
    }
}
