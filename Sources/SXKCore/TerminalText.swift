/// Makes outside text (server answers, imported files, user data) inert on a terminal: every scalar a
/// terminal would act on is shown as a visible escape instead, and nothing else is touched.
///
/// Escaped: C0 (U+0000–U+001F, ESC among them), DEL, C1 (U+0080–U+009F, which 8-bit terminals read
/// as CSI/OSC/ST) and the Unicode Bidi_Control set (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069), which can reorder what a line appears to say. Forms: `\n` `\r` `\t` for those
/// three, `\x1b` for other C0 and DEL, `\u009b` / `\u202e` for C1 and bidi (lowercase hex).
/// TAB is escaped in one-line text because it breaks column alignment; `sanitizeLines` keeps it.
/// A backslash is left alone (escaping it would change ordinary text), so the output is not meant
/// to be unescaped — only read. The result holds no escaped scalar, so sanitizing twice changes nothing.
public enum TerminalText {
    /// Text for one line (a table cell, an error line, a prompt): newlines shown as `\n` too.
    /// Returns `s` itself, without allocating, when nothing needs escaping (the usual case).
    @inlinable
    public static func sanitize(_ s: String) -> String {
        needsEscaping(s, keepingLines: false) ? escaped(s, keepingLines: false) : s
    }

    /// Text of several lines (help, notes, a multi-line message): `\n` and TAB kept, `\r` and every
    /// other control escaped.
    @inlinable
    public static func sanitizeLines(_ s: String) -> String {
        needsEscaping(s, keepingLines: true) ? escaped(s, keepingLines: true) : s
    }

    /// Whether `sanitize` (or, with `keepingLines`, `sanitizeLines`) would change `s`.
    @inlinable
    public static func needsEscaping(_ s: String, keepingLines: Bool = false) -> Bool {
        if let found = s.utf8.withContiguousStorageIfAvailable({ firstControl(in: $0, from: 0, keepingLines: keepingLines) != nil }) {
            return found
        }
        var copy = s
        return copy.withUTF8 { firstControl(in: $0, from: 0, keepingLines: keepingLines) != nil }
    }

    /// Whether a scalar is one of those shown as an escape (newline and TAB included).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        switch v {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// The escaped copy (the slow path, taken only when `needsEscaping`).
    @usableFromInline
    static func escaped(_ s: String, keepingLines: Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars {
            if !isControl(scalar) || (keepingLines && (scalar == "\n" || scalar == "\t")) {
                out.append(scalar)
            } else {
                out.append(contentsOf: escape(scalar).unicodeScalars)
            }
        }
        return String(out)
    }

    /// `\n`, `\x1b`, `\u009b`… for one control scalar.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            let v = scalar.value
            let digits = String(v, radix: 16)
            if v < 0x80 { return "\\x" + (digits.count < 2 ? "0" : "") + digits }
            return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// Offset of the first control at or after `start` in UTF-8 `bytes`, or nil. ASCII and the usual
    /// lead bytes of CJK text cost one compare each; only 0xC2, 0xD8 and 0xE2 leads look further.
    @inlinable
    public static func firstControl(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, keepingLines: Bool) -> Int? {
        var i = start
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x20 {
                if !(keepingLines && (b == 0x0A || b == 0x09)) { return i }
            } else if b == 0x7F {
                return i
            } else if b >= 0xC2, b == 0xC2 || b == 0xD8 || b == 0xE2, controlScalar(in: bytes, at: i) != nil {
                return i
            }
            i &+= 1
        }
        return nil
    }

    /// The C1 or bidi control encoded at `i` (a 0xC2, 0xD8 or 0xE2 lead byte) and its length in bytes.
    @inlinable
    public static func controlScalar(in bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (value: UInt32, length: Int)? {
        let n = bytes.count
        guard i + 1 < n else { return nil }
        let b0 = bytes[i], b1 = bytes[i + 1]
        switch b0 {
        case 0xC2:
            // U+0080–U+009F: C2 80 … C2 9F.
            return b1 >= 0x80 && b1 <= 0x9F ? (UInt32(b1), 2) : nil
        case 0xD8:
            // U+061C ARABIC LETTER MARK: D8 9C.
            return b1 == 0x9C ? (0x061C, 2) : nil
        case 0xE2:
            guard i + 2 < n else { return nil }
            let b2 = bytes[i + 2]
            // U+200E/U+200F (E2 80 8E/8F), U+202A–U+202E (E2 80 AA–AE), U+2066–U+2069 (E2 81 A6–A9).
            if b1 == 0x80, b2 == 0x8E || b2 == 0x8F || (b2 >= 0xAA && b2 <= 0xAE) {
                return (0x2000 + UInt32(b2 & 0x3F), 3)
            }
            if b1 == 0x81, b2 >= 0xA6 && b2 <= 0xA9 { return (0x2040 + UInt32(b2 & 0x3F), 3) }
            return nil
        default:
            return nil
        }
    }
}
