/// One word of a command line: its unquoted text and where its raw text sits (UTF-8 offsets).
public struct Token: Sendable, Equatable {
    public var text: String
    public var start: Int
    public var end: Int
    /// The quote still open at the end of the input (lenient mode only), else nil.
    public var openQuote: Character?
    public init(text: String, start: Int, end: Int, openQuote: Character? = nil) {
        self.text = text
        self.start = start
        self.end = end
        self.openQuote = openQuote
    }
}

/// Splits command lines into commands and words: quotes, backslash escapes, `;`/newline separators, `#` comments.
public enum Tokenizer {
    /// The words of each command; an unterminated quote or trailing backslash is a usage error.
    public static func split(_ line: String) throws -> [[String]] {
        try tokenize(line, lenient: false).map { $0.map(\.text) }
    }

    /// Commands with token positions. Lenient mode (for completion) accepts an unterminated quote
    /// and marks it on the last token.
    public static func tokenize(_ line: String, lenient: Bool) throws -> [[Token]] {
        let bytes = Array(line.utf8)
        var commands: [[Token]] = []
        var current: [Token] = []
        var word: [UInt8] = []
        var inWord = false
        var start = 0
        var i = 0
        let n = bytes.count

        func finishWord(at end: Int, openQuote: Character? = nil) {
            if inWord {
                current.append(Token(text: String(decoding: word, as: UTF8.self), start: start, end: end, openQuote: openQuote))
            }
            word.removeAll(keepingCapacity: true)
            inWord = false
        }
        func finishCommand() {
            if !current.isEmpty { commands.append(current) }
            current = []
        }

        while i < n {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                finishWord(at: i)
                i += 1
            case UInt8(ascii: ";"), UInt8(ascii: "\n"):
                finishWord(at: i)
                finishCommand()
                i += 1
            case UInt8(ascii: "#") where !inWord:
                // Comment to end of line.
                while i < n && bytes[i] != UInt8(ascii: "\n") { i += 1 }
            case UInt8(ascii: "\\"):
                if !inWord { inWord = true; start = i }
                if i + 1 >= n {
                    if lenient { i += 1; continue }
                    throw UsageError("unfinished escape at end of line")
                }
                if bytes[i + 1] == UInt8(ascii: "\n") { i += 2; continue }  // line continuation
                i += 1
                let len = scalarLength(bytes[i])
                word.append(contentsOf: bytes[i..<min(n, i + len)])
                i += len
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                if !inWord { inWord = true; start = i }
                let quote = c
                i += 1
                var closed = false
                while i < n {
                    let d = bytes[i]
                    if d == quote { closed = true; i += 1; break }
                    if quote == UInt8(ascii: "\"") && d == UInt8(ascii: "\\") && i + 1 < n {
                        let e = bytes[i + 1]
                        if e == UInt8(ascii: "\"") || e == UInt8(ascii: "\\") || e == UInt8(ascii: "$") || e == UInt8(ascii: "`") {
                            word.append(e); i += 2; continue
                        }
                        if e == UInt8(ascii: "\n") { i += 2; continue }
                    }
                    word.append(d)
                    i += 1
                }
                if !closed {
                    if lenient {
                        finishWord(at: n, openQuote: Character(UnicodeScalar(quote)))
                        finishCommand()
                        return commands
                    }
                    throw UsageError("unterminated \(quote == UInt8(ascii: "'") ? "single" : "double") quote")
                }
            default:
                if !inWord { inWord = true; start = i }
                word.append(c)
                i += 1
            }
        }
        finishWord(at: n)
        finishCommand()
        return commands
    }

    private static func scalarLength(_ lead: UInt8) -> Int {
        if lead < 0x80 { return 1 }
        if lead >> 5 == 0b110 { return 2 }
        if lead >> 4 == 0b1110 { return 3 }
        if lead >> 3 == 0b11110 { return 4 }
        return 1
    }

    /// Quotes a word so `split` gives it back unchanged (plain words stay bare).
    public static func quote(_ word: String) -> String {
        if !word.isEmpty && !word.unicodeScalars.contains(where: needsQuoting) && !word.hasPrefix("#") { return word }
        var out = "'"
        for ch in word {
            if ch == "'" { out += "'\\''" } else { out.append(ch) }
        }
        return out + "'"
    }

    static func needsQuoting(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case " ", "\t", "\n", "\r", "'", "\"", "\\", ";", "$", "`", "&", "|", "<", ">", "(", ")", "*", "?", "[", "]", "{", "}", "!": return true
        default: return false
        }
    }
}
