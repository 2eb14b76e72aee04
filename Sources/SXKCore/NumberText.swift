/// Numbers as text without `String(format:)`: its first call in a process has Swift's runtime look
/// up a protocol conformance (`CVarArg`'s) across every conformance record of the static binary,
/// ≈ 0.4 ms of a one-shot's start.
public enum NumberText {
    /// `value` with `digits` fraction digits, as `%.Nf` prints it (`12.5` → `12.50`, `-0.04` → `-0.0`),
    /// but for a tie after scaling (`2.5` at 0 digits), which rounds away from zero.
    public static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        // Past what an Int holds exactly: the shortest text that reads back (never a duration or an amount).
        var scale = 1.0
        for _ in 0..<max(0, digits) { scale *= 10 }
        guard (value.magnitude * scale).rounded() < 9.0e15 else { return "\(value)" }
        let text = JSONWriter.format(value, digits: digits)
        // `%.Nf` keeps the sign of a negative value that rounds to zero (`-0.0`); the JSON form drops it.
        return value.sign == .minus && !text.hasPrefix("-") ? "-" + text : text
    }

    /// `2500` → `2,500`.
    public static func count(_ value: Int) -> String {
        // `magnitude`: the negation of Int.min (a count a server may send) would trap.
        value < 0 ? "-" + grouped(digits: String(value.magnitude)) : grouped(digits: String(value))
    }

    /// `1, "order"` → `1 order`, `2500, "order"` → `2,500 orders`: a grouped count with its noun,
    /// singular when one.
    public static func count(_ value: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count(value)) \(value == 1 ? noun : plural ?? noun + "s")"
    }

    /// Digits with a comma before each group of three from the right: `1234567` → `1,234,567`
    /// (any length, a yuan amount's whole part past what an Int holds included).
    public static func grouped(digits: String) -> String {
        guard digits.count > 3 else { return digits }
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return out
    }

    /// A duration as every line shows one: `21.0 ms` (tenths, as `timing`, `--trace`, `curl N` and the
    /// replays' calls print it).
    public static func milliseconds(_ ms: Double) -> String { fixed(ms, digits: 1) + " ms" }

    /// A plain decimal (`-123.456`, `+7`, `.5`: digits and one point, no exponent) with exactly `digits`
    /// fraction digits, rounded half away from zero on the text itself: exact whatever its size, as
    /// the server wrote it (a double past 2^53 has no cents left). nil for any other text.
    public static func decimalFixed(_ text: String, digits: Int) -> String? {
        var body = Substring(text)
        var negative = false
        if let sign = body.first, sign == "-" || sign == "+" { negative = sign == "-"; body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), (whole + fraction).utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var digitsOut = Array((whole.isEmpty ? "0" : String(whole)).utf8) + Array(String(fraction.prefix(digits)).utf8)
        digitsOut += [UInt8](repeating: 0x30, count: max(0, digits - fraction.count))
        // Half away from zero: the first digit past `digits` decides.
        if fraction.count > digits, let next = fraction.utf8.dropFirst(digits).first, next >= 0x35 {
            var i = digitsOut.count - 1
            while i >= 0 {
                if digitsOut[i] == 0x39 { digitsOut[i] = 0x30; i -= 1 } else { digitsOut[i] += 1; break }
            }
            if i < 0 { digitsOut.insert(0x31, at: 0) }
        }
        var integer = digitsOut.prefix(digitsOut.count - digits)
        while integer.count > 1, integer.first == 0x30 { integer = integer.dropFirst() }
        let fractionText = String(decoding: digitsOut.suffix(digits), as: UTF8.self)
        let isZero = (integer + digitsOut.suffix(digits)).allSatisfy { $0 == 0x30 }
        return (negative && !isZero ? "-" : "") + String(decoding: integer, as: UTF8.self) + (digits > 0 ? "." + fractionText : "")
    }

    /// `n` zero-padded to at least `width` digits, as `%0Nd` prints it (`7` → `07`, `-7` → `-07` at 3).
    public static func padded(_ n: Int, width: Int) -> String {
        let digits = String(n.magnitude)
        let sign = n < 0 ? "-" : ""
        let pad = width - sign.count - digits.count
        return sign + (pad > 0 ? String(repeating: "0", count: pad) : "") + digits
    }
}
