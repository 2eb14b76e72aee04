import SXKCore

/// How values look in tables: yuan with two decimals and thousands separators, counts grouped.
enum Formatting {
    /// `1234567.5` → `1,234,567.50`.
    static func yuan(_ amount: Double?) -> String {
        guard let amount, amount.isFinite else { return "" }
        return grouped(JSONWriter.format(amount, digits: 2))
    }

    /// `-1234567.50` → `-1,234,567.50`; the exponent form (`1e+20`, past what a UInt64 holds) as it is.
    private static func grouped(_ text: String) -> String {
        guard !text.contains("e") else { return text }
        let negative = text.hasPrefix("-")
        let body = negative ? String(text.dropFirst()) : text
        let parts = body.split(separator: ".", maxSplits: 1)
        let whole = NumberText.grouped(digits: String(parts[0]))
        return (negative ? "-" : "") + whole + (parts.count > 1 ? "." + parts[1] : "")
    }

    /// An amount member as it arrived: yuan when it reads as a decimal number, else its text as the
    /// server sent it (`"NaN"`, `"0x10"`), so a table never shows an amount the answer did not hold.
    static func yuan(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        // A plain decimal is formatted from its text: exact at any size (a double has no cents past
        // 2^53), as the server wrote it.
        if case .bool = value {} else if let text = value.stringValue?.trimming(\.isWhitespace),
            let fixed = NumberText.decimalFixed(text, digits: 2) { return grouped(fixed) }
        if let amount = value.doubleValue { return yuan(amount) }
        return value.stringValue ?? ""
    }

    /// A stats cell: the amount or count as `yuan`/`count` show it, `–` when the answer has none
    /// (the daily table, its chart and the summary say the same for the same member).
    static func statsCell(_ value: JSONValue?, amount: Bool) -> String {
        let text = amount ? yuan(value) : count(value)
        return text.isEmpty ? "–" : text
    }

    /// `2500` → `2,500` (`NumberText.count`).
    static func count(_ value: Int) -> String { NumberText.count(value) }

    /// A count member as it arrived: grouped when it reads as an integer, else its text as sent.
    static func count(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        if let n = value.intValue { return count(n) }
        return value.stringValue ?? ""
    }

    /// `1, "order"` → `1 order`, `2500, "order"` → `2,500 orders`: a grouped count with its noun,
    /// singular when one.
    static func count(_ value: Int, _ noun: String, plural: String? = nil) -> String { NumberText.count(value, noun, plural: plural) }

    /// `300, 2000, "row"` → `300 of 2,000 rows`; `300 rows` when the server gave no total.
    static func count(_ value: Int, of total: Int?, _ noun: String) -> String {
        guard let total else { return count(value, noun) }
        return "\(count(value)) of \(count(total, noun))"
    }

}
