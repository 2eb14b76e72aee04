/// Why a typed line does not end its command, as in sh and psql.
public enum LineContinuation: Sendable, Equatable {
    /// A backslash at the end, outside quotes: it is dropped and the next line follows right after.
    case backslash
    /// A quote still open: the line break belongs to the quoted text.
    case quote(Character)
}

/// Collects physical lines into whole commands: the one joining rule of the REPL, piped input and
/// the startup file. It follows the tokenizer's quoting rules (quotes, backslash escapes, `#`
/// comments; `TokenizerTests` checks that both agree), scanning each line once, so a long quoted
/// body piped in line by line costs linear time.
public struct LineJoiner: Sendable {
    private var text = ""
    private var quote: UInt8?
    private var inWord = false
    /// Set while the lines so far do not end a command.
    public private(set) var continuation: LineContinuation?

    public init() {}

    public var isPending: Bool { continuation != nil }

    /// Adds one line (without its line break); returns the whole command when this line ends it.
    public mutating func add(_ line: String) -> String? {
        if case .quote = continuation { text += "\n" }
        let bytes = Array(line.utf8)
        if scan(bytes) {
            text += String(decoding: bytes.dropLast(), as: UTF8.self)
            continuation = .backslash
            return nil
        }
        text += line
        if let quote {
            continuation = .quote(Character(UnicodeScalar(quote)))
            return nil
        }
        defer { reset() }
        return text
    }

    /// What was collected so far (the pending command at the end of input), and a fresh start.
    public mutating func finish() -> String? {
        defer { reset() }
        return isPending ? text : nil
    }

    /// Drops the pending command (Ctrl-C on a continuation line).
    public mutating func reset() {
        text = ""
        quote = nil
        inWord = false
        continuation = nil
    }

    /// Runs the tokenizer's state machine over one line; true when the line ends with a backslash
    /// that joins the next line (an odd number of them, outside a comment; inside quotes too, as the
    /// startup file always had it). The state is then the one before that backslash.
    private mutating func scan(_ bytes: [UInt8]) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if let q = quote {
                if c == q {
                    quote = nil
                } else if q == UInt8(ascii: "\"") && c == UInt8(ascii: "\\") {
                    i += 1  // an escaped character never closes the quote
                }
                i += 1
                continue
            }
            switch c {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: ";"):
                inWord = false
            case UInt8(ascii: "#") where !inWord:
                return false  // a comment runs to the end of the line
            case UInt8(ascii: "\\"):
                if i + 1 >= n { return true }
                inWord = true
                i += 1
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                inWord = true
                quote = c
            default:
                inWord = true
            }
            i += 1
        }
        guard quote != nil else { return false }
        return bytes.reversed().prefix { $0 == UInt8(ascii: "\\") }.count % 2 == 1
    }
}

extension LineContinuation {
    /// The prompt of a continuation line (as psql's `'#`): the open quote, if any, then `… › `.
    public var prompt: PromptText {
        switch self {
        case .backslash: return PromptText([.init("…", style: .dim), .init(" › ")])
        case .quote(let q): return PromptText([.init("\(q)…", style: .dim), .init(" › ")])
        }
    }

    /// What is still open, for an error line.
    public var openDescription: String {
        switch self {
        case .backslash: return "a line continued with '\\'"
        case .quote(let q): return q == "'" ? "a single quote" : "a double quote"
        }
    }
}
