import SXKCore

/// Terminal column widths: East Asian wide/fullwidth = 2, combining marks = 0, others = 1.
public enum TextWidth {
    public static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        if v < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        // Hangul medial vowels and final consonants join the syllable before them.
        if v == 0x200B || (v >= 0x1160 && v <= 0x11FF) { return 0 }
        if isWide(v) { return 2 }
        return 1
    }

    /// East_Asian_Width W or F (Unicode 14, as glibc's `wcwidth` and the terminals that follow it),
    /// and the unassigned code points of the CJK blocks and planes 2–3, which UAX #11 makes wide.
    /// A pictograph of text presentation (🏔 U+1F3D4, 🗺 U+1F5FA) is one column: only emoji whose
    /// default is the picture are two. Sorted ranges, searched by halves.
    static func isWide(_ v: UInt32) -> Bool {
        guard v >= 0x1100 else { return false }
        var low = 0, high = wideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = wideRanges[mid]
            if v < range.0 { high = mid - 1 } else if v > range.1 { low = mid + 1 } else { return true }
        }
        return false
    }

    static let wideRanges: [(UInt32, UInt32)] = [
        (0x1100, 0x115F), (0x231A, 0x231B), (0x2329, 0x232A), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3),
        (0x25FD, 0x25FE), (0x2614, 0x2615), (0x2648, 0x2653), (0x267F, 0x267F), (0x2693, 0x2693), (0x26A1, 0x26A1),
        (0x26AA, 0x26AB), (0x26BD, 0x26BE), (0x26C4, 0x26C5), (0x26CE, 0x26CE), (0x26D4, 0x26D4), (0x26EA, 0x26EA),
        (0x26F2, 0x26F3), (0x26F5, 0x26F5), (0x26FA, 0x26FA), (0x26FD, 0x26FD), (0x2705, 0x2705), (0x270A, 0x270B),
        (0x2728, 0x2728), (0x274C, 0x274C), (0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757), (0x2795, 0x2797),
        (0x27B0, 0x27B0), (0x27BF, 0x27BF), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x2E80, 0x2E99),
        (0x2E9B, 0x2EF3), (0x2F00, 0x2FD5), (0x2FF0, 0x2FFB), (0x3000, 0x303E), (0x3041, 0x3096), (0x3099, 0x30FF),
        (0x3105, 0x312F), (0x3131, 0x318E), (0x3190, 0x31E3), (0x31F0, 0x321E), (0x3220, 0x3247), (0x3250, 0x4DBF),
        (0x4E00, 0xA48C), (0xA490, 0xA4C6), (0xA960, 0xA97C), (0xAC00, 0xD7A3), (0xF900, 0xFAFF), (0xFE10, 0xFE19),
        (0xFE30, 0xFE52), (0xFE54, 0xFE66), (0xFE68, 0xFE6B), (0xFF01, 0xFF60), (0xFFE0, 0xFFE6), (0x16FE0, 0x16FE4),
        (0x16FF0, 0x16FF1), (0x17000, 0x187F7), (0x18800, 0x18CD5), (0x18D00, 0x18D08), (0x1AFF0, 0x1AFF3), (0x1AFF5, 0x1AFFB),
        (0x1AFFD, 0x1AFFE), (0x1B000, 0x1B122), (0x1B150, 0x1B152), (0x1B164, 0x1B167), (0x1B170, 0x1B2FB), (0x1F004, 0x1F004),
        (0x1F0CF, 0x1F0CF), (0x1F18E, 0x1F18E), (0x1F191, 0x1F19A), (0x1F200, 0x1F202), (0x1F210, 0x1F23B), (0x1F240, 0x1F248),
        (0x1F250, 0x1F251), (0x1F260, 0x1F265), (0x1F300, 0x1F320), (0x1F32D, 0x1F335), (0x1F337, 0x1F37C), (0x1F37E, 0x1F393),
        (0x1F3A0, 0x1F3CA), (0x1F3CF, 0x1F3D3), (0x1F3E0, 0x1F3F0), (0x1F3F4, 0x1F3F4), (0x1F3F8, 0x1F43E), (0x1F440, 0x1F440),
        (0x1F442, 0x1F4FC), (0x1F4FF, 0x1F53D), (0x1F54B, 0x1F54E), (0x1F550, 0x1F567), (0x1F57A, 0x1F57A), (0x1F595, 0x1F596),
        (0x1F5A4, 0x1F5A4), (0x1F5FB, 0x1F64F), (0x1F680, 0x1F6C5), (0x1F6CC, 0x1F6CC), (0x1F6D0, 0x1F6D2), (0x1F6D5, 0x1F6D7),
        (0x1F6DD, 0x1F6DF), (0x1F6EB, 0x1F6EC), (0x1F6F4, 0x1F6FC), (0x1F7E0, 0x1F7EB), (0x1F7F0, 0x1F7F0), (0x1F90C, 0x1F93A),
        (0x1F93C, 0x1F945), (0x1F947, 0x1F9FF), (0x1FA70, 0x1FA74), (0x1FA78, 0x1FA7C), (0x1FA80, 0x1FA86), (0x1FA90, 0x1FAAC),
        (0x1FAB0, 0x1FABA), (0x1FAC0, 0x1FAC5), (0x1FAD0, 0x1FAD9), (0x1FAE0, 0x1FAE7), (0x1FAF0, 0x1FAF6), (0x20000, 0x2FFFD),
        (0x30000, 0x3FFFD),
    ]

    /// Columns a string occupies (no escape sequences expected).
    public static func width(_ s: String) -> Int {
        var total = 0
        for scalar in s.unicodeScalars { total += width(of: scalar) }
        return total
    }

    /// Cuts `s` to at most `columns` cells, ending with `…` when anything was cut. Cut between
    /// characters as a person sees them (an emoji sequence, a flag, a letter and its marks stay
    /// whole), and before a sanitizer's escape (`\u202e`, `\x1b`) that would be cut in half.
    public static func truncate(_ s: String, to columns: Int) -> String {
        if columns <= 0 { return "" }
        if width(s) <= columns { return s }
        var end = s.startIndex
        var used = 0
        while end < s.endIndex {
            let character = s[end]
            var w = 0
            for scalar in character.unicodeScalars { w += width(of: scalar) }
            if used + w > columns - 1 { break }
            used += w
            end = s.index(after: end)
        }
        return droppingCutEscape(String(s[..<end]), before: s[end...]) + "…"
    }

    /// `text` without a trailing escape of `TerminalText` that the cut left incomplete (`following` is
    /// what was cut off): a lone `\`, `\x` with fewer than two hex digits, `\u` with fewer than four,
    /// or with four or five where the escaped scalar (a tag character, U+E0041) had more.
    static func droppingCutEscape(_ text: String, before following: Substring) -> String {
        let tail = Array(text.utf8.suffix(7))
        guard let slash = tail.lastIndex(of: UInt8(ascii: "\\")) else { return text }
        let rest = Array(tail[(slash + 1)...])
        let hex = { (b: UInt8) in (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) }
        let incomplete: Bool
        switch rest.first {
        case nil: incomplete = true
        case UInt8(ascii: "x")?: incomplete = rest.count < 3 && rest.dropFirst().allSatisfy(hex)
        case UInt8(ascii: "u")?:
            let digits = Array(rest.dropFirst())
            if !digits.allSatisfy(hex) || digits.count > 6 {
                incomplete = false
            } else if digits.count < 4 {
                incomplete = true
            } else {
                // Four or five digits: cut inside when the digits cut off make a longer escaped scalar.
                let more = Array(following.utf8.prefix(6 - digits.count).prefix { hex($0) })
                incomplete = more.indices.contains { i in
                    let value = UInt32(String(decoding: digits + more[...i], as: UTF8.self), radix: 16) ?? 0
                    return value > 0xFFFF && Unicode.Scalar(value).map { TerminalText.isControl($0) } == true
                }
            }
        default: incomplete = false
        }
        guard incomplete else { return text }
        return String(decoding: text.utf8.dropLast(tail.count - slash), as: UTF8.self)
    }

    /// `s` padded with spaces to `columns` cells, on the right (left-aligned) or the left.
    public static func pad(_ s: String, to columns: Int, alignRight: Bool = false) -> String {
        let gap = columns - width(s)
        if gap <= 0 { return s }
        let spaces = String(repeating: " ", count: gap)
        return alignRight ? spaces + s : s + spaces
    }
}
