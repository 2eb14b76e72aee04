import SXKCore

/// `--columns` resolved against a table's declared columns (keys or headers, any case) and the
/// members of its rows (also by camelCase name when a server spells them snake_case); an unknown
/// name is a usage error listing the valid ones.
struct ColumnSelection: Sendable {
    var columns: [OutputColumn]

    /// `samples`: the rows at hand (a stream's first batch); a member of any of them can be chosen.
    static func resolve(_ names: [String]?, declared: [OutputColumn], samples: [JSONValue]) throws -> ColumnSelection {
        guard let names else { return ColumnSelection(columns: declared) }
        var members: [String] = [], seen: Set<String> = []
        for row in samples {
            for entry in row.objectValue?.entries ?? [] where seen.insert(entry.key).inserted { members.append(entry.key) }
        }
        return ColumnSelection(columns: try names.map { name in
            let lower = name.lowercased()
            // `create_time` names the same column as `createTime`: a server may spell each row either way.
            let camel = JSONObject.camelCase(name)
            // `CREATE_TIME` names `createTime` too: any case, either spelling.
            let camelLower = JSONObject.camelCase(name.lowercased()).lowercased()
            // A row that holds two members one name could mean (`Case` and `case`, `accessToken` and
            // `access_token`): the one named exactly is chosen, as received. Rows that spell one member
            // differently from each other (`orderNo` here, `order_no` there) still give it in each.
            let collides = members.contains(name) && samples.contains { row in
                guard let entries = row.objectValue?.entries, entries.contains(where: { $0.key == name }) else { return false }
                return entries.contains { $0.key != name && JSONObject.camelCase($0.key).lowercased() == camelLower }
            }
            if collides {
                // The exact member where a row has it; in a row of one spelling, that one.
                return OutputColumn(name, name, find: { row in
                    if let exact = row[name] { return (name, exact) }
                    return row.entries.first { JSONObject.camelCase($0.key).lowercased() == camelLower }
                })
            }
            if let column = declared.first(where: { $0.key.lowercased() == lower || $0.key.lowercased() == camelLower }) {
                return column
            }
            // A member named exactly before a header of that name: `status` is the code, while the
            // STATUS column shows `statusText` (`--columns STATUS` or `statusText` chooses that).
            // (A camelCase name finds the member a snake_case server spells for it; `Status` is no member's name.)
            let spelledSnake = name.first?.isLowercase == true && camel == name && members.contains(JSONObject.snakeCase(name))
            if members.contains(name) || spelledSnake, !declared.contains(where: { $0.header == name }) {
                return OutputColumn(name, name)
            }
            if let column = declared.first(where: { $0.header.lowercased() == lower }) {
                return column
            }
            if camel != name, members.contains(where: { $0 == name || $0 == camel }) {
                // A snake_case name: looked up by its camelCase form, which finds either spelling in
                // every row; named as asked.
                return OutputColumn(camel, name)
            }
            if let key = members.first(where: { $0.lowercased() == lower }) ?? members.first(where: { JSONObject.camelCase($0).lowercased() == camelLower }) {
                // A member shown as received; its header is the key itself, so it never repeats a declared header.
                return OutputColumn(key, key)
            }
            if members.contains(JSONObject.snakeCase(name)) {
                // The camelCase name of a member the server spelled snake_case: named as asked, so the
                // header is the same whichever spelling the server uses.
                return OutputColumn(name, name)
            }
            // A header that only repeats the key (a record's own keys, `config`'s members) is not said twice.
            let valid = declared.map { [$0.key, $0.key.lowercased()].contains($0.header.lowercased()) ? $0.key : "\($0.key) (\($0.header))" }
            let more = members.filter { m in !declared.contains { $0.key == m || JSONObject.snakeCase($0.key) == m } }
            let names = valid + more
            throw UsageError("unknown column '\(name)'; " + (names.isEmpty ? "there are none to choose from" : "valid: " + names.joined(separator: ", ")))
        })
    }

    /// A row as an object of the chosen columns: the members as the server sent them, under its
    /// own keys (`create_time` from a snake_case backend stays `create_time`, its text unconverted).
    /// A column the row has no member for is left out: `--columns` selects, it never makes data.
    func record(_ row: JSONValue) -> JSONValue {
        var out = JSONObject()
        for column in columns {
            if let member = row.objectValue.flatMap(column.find) { out[member.key] = member.value }
        }
        return .object(out)
    }

    /// The CSV/TSV header: each column under the key `sample` (the first row) has for it.
    func header(sample: JSONValue?) -> [String] {
        columns.map { column in sample.flatMap { $0.objectValue.flatMap(column.find)?.key } ?? column.key }
    }
}

/// CSV (RFC 4180: quoted when needed, CRLF-free) or TSV (tab, newline and backslash escaped).
/// Fields go byte by byte into the line being built: a 100,000-row `--csv` stream makes no
/// per-cell strings beyond the sanitized text.
struct SeparatedValues: Sendable {
    let tabs: Bool

    func line(_ fields: [String]) -> String {
        var out: [UInt8] = []
        for (i, field) in fields.enumerated() { append(field, first: i == 0, into: &out) }
        out.append(0x0A)
        return String(decoding: out, as: UTF8.self)
    }

    /// One field (after a separator unless `first`). Server text is made inert here too (files get
    /// `cat`ed); --raw is the byte-exact format.
    func append(_ field: String, first: Bool, into out: inout [UInt8]) {
        if !first { out.append(tabs ? 0x09 : 0x2C) }
        var text = TerminalText.sanitizeLines(field)
        text.withUTF8 { tabs ? Self.tsv($0, into: &out) : Self.csv($0, into: &out) }
    }

    private static func csv(_ field: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let quote = field.first == 0x20 || field.last == 0x20
            || field.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
        guard quote else { return out.append(contentsOf: field) }
        out.append(0x22)
        for byte in field {
            if byte == 0x22 { out.append(0x22) }
            out.append(byte)
        }
        out.append(0x22)
    }

    private static func tsv(_ field: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        guard field.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x5C }) else {
            return out.append(contentsOf: field)
        }
        var i = 0
        while i < field.count {
            switch field[i] {
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D:
                // CRLF is one line break: `\n`, as a lone LF.
                if i + 1 < field.count, field[i + 1] == 0x0A { i += 1; out.append(contentsOf: [0x5C, 0x6E]) } else { out.append(contentsOf: [0x5C, 0x72]) }
            default: out.append(field[i])
            }
            i += 1
        }
    }
}

/// psql's `\x`: one record after another, `HEADER │ value` per line, values cut to the width, or with
/// `wraps` wrapped onto lines of their own under the value column.
struct RecordView: Sendable {
    let width: Int?
    let wide: Bool
    var wraps = false

    func render(_ rows: [JSONValue], columns: [OutputColumn], cell: (JSONValue, OutputColumn) -> String) -> String {
        // A header may be a member name the server or an imported file chose (`config -x`, `keys -x`):
        // shown inert, as the table view shows it.
        let headers = columns.map { TerminalText.sanitize($0.header) }
        let keyWidth = headers.map { TextWidth.width($0) }.max() ?? 0
        var out = ""
        for (n, row) in rows.enumerated() {
            let title = "-[ RECORD \(n + 1) ]"
            let rule = width.map { max(0, min($0, keyWidth + 24) - TextWidth.width(title)) } ?? max(0, keyWidth + 3 - title.count)
            out += title + String(repeating: "-", count: rule) + "\n"
            for (column, header) in zip(columns, headers) {
                var head = TextWidth.pad(header, to: keyWidth)
                var value = cell(row, column)
                if wraps, let width, !wide {
                    let words = value.split(separator: " ").map(String.init)
                    let lines = words.isEmpty ? [head + " |"] : HelpRenderer.wrap(
                        words, width: width, first: head + " | ", rest: String(repeating: " ", count: TextWidth.width(head)) + " | ")
                    for line in lines { out += line + "\n" }
                    continue
                }
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
