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

    /// `n` zero-padded to at least `width` digits, as `%0Nd` prints it (`7` → `07`, `-7` → `-07` at 3).
    public static func padded(_ n: Int, width: Int) -> String {
        let digits = String(n.magnitude)
        let sign = n < 0 ? "-" : ""
        let pad = width - sign.count - digits.count
        return sign + (pad > 0 ? String(repeating: "0", count: pad) : "") + digits
    }
}
