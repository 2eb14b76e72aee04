/// Colours JSON text for a terminal with SGR escapes: keys bold blue, strings green, numbers cyan,
/// `true`/`false`/`null` yellow, punctuation and whitespace as they are. With `enabled` false
/// (`NO_COLOR`, `--no-color`, not a terminal) the text comes back unchanged.
///
/// It adds escapes only around tokens and never rewrites them, so the input must already be
/// terminal-safe: `JSONWriter` output is (it writes controls as `\uXXXX`). Text that is not valid
/// JSON is still coloured token by token, never dropped.
public enum JSONColorizer {
    public static let keyStyle = "\u{1B}[1;34m"
    public static let stringStyle = "\u{1B}[32m"
    public static let numberStyle = "\u{1B}[36m"
    public static let literalStyle = "\u{1B}[33m"
    public static let reset = "\u{1B}[0m"

    public static func colorize(_ json: String, enabled: Bool) -> String {
        guard enabled else { return json }
        return String(decoding: colorize(Array(json.utf8), enabled: true), as: UTF8.self)
    }

    public static func colorize(_ json: [UInt8], enabled: Bool) -> [UInt8] {
        guard enabled else { return json }
        var out: [UInt8] = []
        out.reserveCapacity(json.count + json.count / 2)
        let key = Array(keyStyle.utf8), string = Array(stringStyle.utf8), number = Array(numberStyle.utf8)
        let literal = Array(literalStyle.utf8), end = Array(reset.utf8)
        var i = 0
        let n = json.count
        while i < n {
            let b = json[i]
            switch b {
            case UInt8(ascii: "\""):
                var j = i + 1
                while j < n && json[j] != UInt8(ascii: "\"") { j += json[j] == UInt8(ascii: "\\") ? 2 : 1 }
                j = min(j + 1, n)
                out.append(contentsOf: isKey(json, after: j) ? key : string)
                out.append(contentsOf: json[i..<j])
                out.append(contentsOf: end)
                i = j
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var j = i + 1
                while j < n, isNumberByte(json[j]) { j += 1 }
                out.append(contentsOf: number)
                out.append(contentsOf: json[i..<j])
                out.append(contentsOf: end)
                i = j
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                var j = i + 1
                while j < n, json[j] >= UInt8(ascii: "a"), json[j] <= UInt8(ascii: "z") { j += 1 }
                out.append(contentsOf: literal)
                out.append(contentsOf: json[i..<j])
                out.append(contentsOf: end)
                i = j
            default:
                out.append(b)
                i += 1
            }
        }
        return out
    }

    /// A string is a member name when the next non-blank byte is `:`.
    private static func isKey(_ json: [UInt8], after index: Int) -> Bool {
        var k = index
        while k < json.count, json[k] == 0x20 || json[k] == 0x0A || json[k] == 0x09 || json[k] == 0x0D { k += 1 }
        return k < json.count && json[k] == UInt8(ascii: ":")
    }

    private static func isNumberByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: ".") || b == UInt8(ascii: "e")
            || b == UInt8(ascii: "E") || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
    }
}
