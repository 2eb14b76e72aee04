/// Serialises a `JSONValue` in key order, numbers as their literal text, non-ASCII text
/// unescaped (Chinese names stay readable) except terminal controls, into a byte buffer the caller can reuse.
public enum JSONWriter {
    public enum Style: Sendable { case compact, pretty }

    public static func string(_ value: JSONValue, style: Style = .compact) -> String {
        var out: [UInt8] = []
        write(value, style: style, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func bytes(_ value: JSONValue, style: Style = .compact) -> [UInt8] {
        var out: [UInt8] = []
        write(value, style: style, into: &out)
        return out
    }

    public static func write(_ value: JSONValue, style: Style = .compact, into out: inout [UInt8]) {
        write(value, style: style, indent: 0, into: &out)
    }

    private static func write(_ value: JSONValue, style: Style, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(style, indent + 1, &out)
                write(item, style: style, indent: indent + 1, into: &out)
            }
            newline(style, indent, &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.entries.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, entry) in object.entries.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(style, indent + 1, &out)
                writeString(entry.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if style == .pretty { out.append(UInt8(ascii: " ")) }
                write(entry.value, style: style, indent: indent + 1, into: &out)
            }
            newline(style, indent, &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ style: Style, _ indent: Int, _ out: inout [UInt8]) {
        guard style == .pretty else { return }
        out.append(0x0A)
        for _ in 0..<(indent * 2) { out.append(0x20) }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string literal. Besides what JSON requires (quote, backslash, C0), every other scalar
    /// `TerminalText` escapes (DEL, C1, format and separator characters) is written as `\uXXXX`:
    /// the same data, but inert on a terminal.
    public static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(0x22)
        // Most strings need no escape: copy them whole instead of byte by byte.
        var text = string
        text.withUTF8 { bytes in
            guard let first = firstEscape(in: bytes) else {
                out.append(contentsOf: bytes)
                return
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<first]))
            var i = first
            while i < bytes.count {
                let byte = bytes[i]
                switch byte {
                case 0x22: out.append(0x5C); out.append(0x22)
                case 0x5C: out.append(0x5C); out.append(0x5C)
                case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
                case 0x00..<0x20, 0x7F: unicodeEscape(UInt32(byte), into: &out)
                case 0xC2, 0xD8, 0xDB, 0xDC, 0xE0, 0xE1, 0xE2, 0xEF, 0xF0, 0xF3:
                    if let control = TerminalText.controlScalar(in: bytes, at: i) {
                        unicodeEscape(control.value, into: &out)
                        i += control.length
                        continue
                    }
                    out.append(byte)
                default: out.append(byte)
                }
                i += 1
            }
        }
        out.append(0x22)
    }

    /// Offset of the first byte that starts an escape, or nil when the string can be copied as is.
    @inline(__always)
    private static func firstEscape(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F { return i }
            if b >= 0xC2, TerminalText.mayLeadControl(b), TerminalText.controlScalar(in: bytes, at: i) != nil { return i }
            i &+= 1
        }
        return nil
    }

    private static func unicodeEscape(_ value: UInt32, into out: inout [UInt8]) {
        if value > 0xFFFF {
            // Outside the BMP JSON spells a scalar as its UTF-16 surrogate pair.
            let v = value - 0x10000
            unicodeEscape(0xD800 + (v >> 10), into: &out)
            unicodeEscape(0xDC00 + (v & 0x3FF), into: &out)
            return
        }
        out.append(0x5C)
        out.append(UInt8(ascii: "u"))
        for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
    }

    /// Shortest text for a double that reads back the same; integers without a fraction.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 9.0e15 { return String(Int(value)) }
        return "\(value)"
    }

    /// Fixed fraction digits, for money (`12.50`).
    public static func format(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "null" }
        let negative = value < 0
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        guard (abs(value) * scale).rounded() < 9.0e15 else {
            // Past 2^53 the scaled value is no longer exact: the double's shortest decimal text, cut
            // to `digits` on the text; in exponent form (no fraction left to show) the whole number's
            // digits while a UInt64 holds them, else the shortest text.
            if let fixed = NumberText.decimalFixed(value.description, digits: digits) { return fixed }
            guard abs(value) < 1.8e19 else { return "\(value)" }
            let whole = (negative ? "-" : "") + String(UInt64(abs(value).rounded()))
            return digits > 0 ? whole + "." + String(repeating: "0", count: digits) : whole
        }
        let scaled = Int((abs(value) * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = scaled % Int(scale)
        var text = (negative && scaled != 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let f = String(fraction)
            text += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return text
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { JSONWriter.string(self) }
}
