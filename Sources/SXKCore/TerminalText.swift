/// Makes outside text (server answers, imported files, user data) inert on a terminal: every scalar a
/// terminal would act on, or that would make a line read other than it is, is shown as a visible
/// escape instead, and nothing else is touched.
///
/// Escaped: C0 (U+0000–U+001F, ESC among them), DEL, C1 (U+0080–U+009F, which 8-bit terminals read
/// as CSI/OSC/ST), every format character (Unicode Cf: the Bidi_Control set that reorders a line,
/// U+200B–U+200F zero-width space, joiners and marks, U+2060–U+2064 word joiner and invisible
/// operators, U+FEFF, U+00AD, the tag characters) and the line and paragraph separators U+2028,
/// U+2029 (Zl, Zp). A zero-width joiner between two emoji is kept: it draws one picture (👩‍💻).
/// Forms: `\n` `\r` `\t` for those three, `\x1b` for other C0 and DEL, `\u009b` / `\u202e` for the
/// rest (lowercase hex, at least four digits).
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

    /// JSON text (an answer printed as received, `--raw`) made inert and still JSON of the same
    /// value: inside a string each escaped scalar is written as a JSON escape (`\u007f`, `\u202e`);
    /// between tokens a CR is left out (a CRLF body reads as LF lines). Text that is not valid JSON
    /// is for `sanitizeLines`; this is meant for text `JSONParser` accepted.
    public static func sanitizeJSON(_ s: String) -> String {
        guard needsEscaping(s, keepingLines: true) else { return s }
        var out = String.UnicodeScalarView()
        let scalars = Array(s.unicodeScalars)
        var inString = false, escaping = false
        for (i, scalar) in scalars.enumerated() {
            if !inString {
                if scalar == "\"" { inString = true }
                if scalar != "\r" { out.append(scalar) }
                continue
            }
            if escaping { escaping = false; out.append(scalar); continue }
            if scalar == "\\" { escaping = true } else if scalar == "\"" { inString = false }
            let joiner = scalar.value == 0x200D && i > 0 && i + 1 < scalars.count && joinsEmoji(scalars[i - 1], scalars[i + 1])
            guard isControl(scalar), !joiner else { out.append(scalar); continue }
            // UTF-16 units, as JSON writes a scalar beyond the first plane (a tag character).
            for unit in String(scalar).utf16 {
                let digits = String(unit, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - digits.count) + digits).unicodeScalars)
            }
        }
        return String(out)
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

    /// Whether a scalar is one of those shown as an escape (newline and TAB included): C0, DEL, C1,
    /// and every format character (Cf: the bidi controls, zero-width space and joiners, word joiner,
    /// invisible operators, byte order mark, tags) and line or paragraph separator (Zl, Zp).
    /// A zero-width joiner inside an emoji sequence is kept (`isEmojiJoiner`).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || (v >= 0x7F && v <= 0x9F) { return true }
        guard v >= 0xAD else { return false }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// The escaped copy (the slow path, taken only when `needsEscaping`).
    @usableFromInline
    static func escaped(_ s: String, keepingLines: Bool) -> String {
        var out = String.UnicodeScalarView()
        let scalars = Array(s.unicodeScalars)
        for (i, scalar) in scalars.enumerated() {
            if !isControl(scalar) || (keepingLines && (scalar == "\n" || scalar == "\t"))
                || (scalar.value == 0x200D && i > 0 && i + 1 < scalars.count && joinsEmoji(scalars[i - 1], scalars[i + 1])) {
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

    /// Whether a zero-width joiner between `before` (an emoji or its variation selector U+FE0F) and
    /// `after` (an emoji) is part of an emoji sequence
    /// (👩‍💻, ❤️‍🔥, 👍🏽‍…), where it draws one picture instead of hiding anything.
    @usableFromInline
    static func joinsEmoji(_ before: Unicode.Scalar, _ after: Unicode.Scalar) -> Bool {
        // The emoji blocks (U+1F000–U+1FAFF), or a symbol of U+2190–U+2BFF that is an emoji (❤, ♂, ⭐).
        func pictographic(_ s: Unicode.Scalar) -> Bool {
            (0x1F000...0x1FAFF).contains(s.value) || ((0x2190...0x2BFF).contains(s.value) && s.properties.isEmoji)
        }
        return (pictographic(before) || before.value == 0xFE0F) && pictographic(after)
    }

    /// Offset of the first control at or after `start` in UTF-8 `bytes`, or nil. ASCII and the lead
    /// bytes of CJK and Hangul text cost one compare each; only the lead bytes under which a C1,
    /// format or separator character is encoded (`mayLeadControl`) look further.
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
            } else if b >= 0xC2, mayLeadControl(b), controlScalar(in: bytes, at: i) != nil {
                return i
            }
            i &+= 1
        }
        return nil
    }

    /// UTF-8 lead bytes of every C1, Cf, Zl and Zp scalar: U+0080–U+00AD (C2), U+0600–U+070F
    /// (D8, DB, DC), U+0890–U+08E2 (E0), U+180E (E1), U+200B–U+206F (E2), U+FEFF and U+FFF9–U+FFFB
    /// (EF), U+110BD–U+1D17A (F0), U+E0001–U+E007F (F3).
    @inlinable
    public static func mayLeadControl(_ b: UInt8) -> Bool {
        switch b {
        case 0xC2, 0xD8, 0xDB, 0xDC, 0xE0, 0xE1, 0xE2, 0xEF, 0xF0, 0xF3: return true
        default: return false
        }
    }

    /// The escaped scalar (C1, format or separator character) encoded at `i`, a lead byte for which
    /// `mayLeadControl` holds, and its length in bytes; nil for any other scalar there, and for a
    /// zero-width joiner inside an emoji sequence.
    @inlinable
    public static func controlScalar(in bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (value: UInt32, length: Int)? {
        let n = bytes.count
        guard i + 1 < n else { return nil }
        let b0 = bytes[i], b1 = bytes[i + 1]
        if b0 == 0xC2 {
            // U+0080–U+009F (C2 80 … C2 9F) and U+00AD SOFT HYPHEN (C2 AD).
            return (b1 >= 0x80 && b1 <= 0x9F) || b1 == 0xAD ? (UInt32(b1), 2) : nil
        }
        // Most scalars under these leads are ordinary (emoji under F0 9F, Devanagari under E0 A4…): the
        // second byte rules them out before the scalar is decoded and looked up.
        switch b0 {
        case 0xD8: guard b1 <= 0x85 || b1 == 0x9C else { return nil }
        case 0xDB: guard b1 == 0x9D else { return nil }
        case 0xDC: guard b1 == 0x8F else { return nil }
        case 0xE0: guard b1 == 0xA2 || b1 == 0xA3 else { return nil }
        case 0xE1: guard b1 == 0xA0 else { return nil }
        case 0xE2:
            // U+200B–U+200F, U+2028–U+202E (E2 80 8B–8F, A8–AE), U+2060–U+2064, U+2066–U+206F (E2 81 A0–AF).
            guard i + 2 < n else { return nil }
            let b2 = bytes[i + 2]
            if b1 == 0x80, (b2 >= 0x8B && b2 <= 0x8F) || (b2 >= 0xA8 && b2 <= 0xAE) {
                if b2 == 0x8D, let after = decode(bytes, at: i + 3).flatMap({ Unicode.Scalar($0.value) }),
                   let before = scalarBefore(bytes, i), joinsEmoji(before, after) {
                    return nil
                }
                return (0x2000 + UInt32(b2 & 0x3F), 3)
            }
            if b1 == 0x81, b2 >= 0xA0 && b2 <= 0xAF, b2 != 0xA5 { return (0x2040 + UInt32(b2 & 0x3F), 3) }
            return nil
        case 0xEF: guard b1 == 0xBB || b1 == 0xBF else { return nil }
        case 0xF0: guard b1 == 0x91 || b1 == 0x93 || b1 == 0x9B || b1 == 0x9D else { return nil }
        case 0xF3: guard b1 == 0xA0 else { return nil }
        default: return nil
        }
        guard let (value, length) = decode(bytes, at: i), let scalar = Unicode.Scalar(value) else { return nil }
        guard isControl(scalar) else { return nil }
        if value == 0x200D, let after = decode(bytes, at: i + length).flatMap({ Unicode.Scalar($0.value) }),
           let before = scalarBefore(bytes, i), joinsEmoji(before, after) {
            return nil
        }
        return (value, length)
    }

    /// The scalar whose UTF-8 form starts at `i` (nil when not a valid lead or cut off).
    @usableFromInline
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (value: UInt32, length: Int)? {
        let n = bytes.count
        guard i < n else { return nil }
        let b0 = bytes[i]
        let length: Int
        var value: UInt32
        switch b0 {
        case 0x00..<0x80: return (UInt32(b0), 1)
        case 0xC2...0xDF: length = 2; value = UInt32(b0 & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(b0 & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(b0 & 0x07)
        default: return nil
        }
        guard i + length <= n else { return nil }
        for k in 1..<length {
            let b = bytes[i + k]
            guard b & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(b & 0x3F)
        }
        return (value, length)
    }

    /// The scalar ending just before `i`.
    @usableFromInline
    static func scalarBefore(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> Unicode.Scalar? {
        var start = i - 1
        while start > 0, start > i - 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        guard start >= 0, let (value, length) = decode(bytes, at: start), start + length == i else { return nil }
        return Unicode.Scalar(value)
    }
}
