/// One word of a command line: its unquoted text and where its raw text sits (UTF-8 offsets).
public struct Token: Sendable, Equatable {
    /// The word without quotes and escapes; a variable reference stays as typed (`$id`, `${id}`).
    public var text: String
    public var start: Int
    public var end: Int
    /// The quote still open at the end of the input (lenient mode only), else nil.
    public var openQuote: Character?
    /// Literal text and variable references, in order; empty when the word has no reference.
    public var parts: [WordPart] = []
    /// A quote or backslash appeared in the word (such a first word is never an alias).
    public var quoted = false
    /// Set on the token an unquoted `|`, `>` or `>>` made (strict mode only): for a pipe `text` is
    /// the shell command, the rest of the line as typed; for `>`/`>>` it is the operator and the
    /// target is the next word.
    public var output: OutputOperator?
    public init(text: String, start: Int, end: Int, openQuote: Character? = nil) {
        self.text = text
        self.start = start
        self.end = end
        self.openQuote = openQuote
    }
}

/// What an unquoted `|`, `>` or `>>` in a command line asks for.
public enum OutputOperator: Sendable, Equatable {
    /// `| SHELL COMMAND`: the output feeds `/bin/sh -c` with the rest of the line.
    case pipe
    /// `> FILE` (`append` false) or `>> FILE`.
    case file(append: Bool)
}

/// A piece of a word: text as typed, or a `$name` / `${name}` reference expanded when the command runs.
public enum WordPart: Sendable, Equatable {
    case literal(String)
    case variable(String)
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
        var scan = Scanner(bytes: Array(line.utf8), lenient: lenient)
        let bytes = scan.bytes, n = bytes.count
        while scan.i < n {
            let c = bytes[scan.i]
            switch c {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                scan.finishWord(at: scan.i)
                scan.i += 1
            case UInt8(ascii: ";"), UInt8(ascii: "\n"):
                scan.finishWord(at: scan.i)
                scan.finishCommand()
                scan.i += 1
            case UInt8(ascii: "|") where !lenient:
                try scan.pipe()
            case UInt8(ascii: ">") where !lenient:
                scan.redirect()
            case UInt8(ascii: "#") where !scan.inWord:
                // Comment to end of line.
                while scan.i < n && bytes[scan.i] != UInt8(ascii: "\n") { scan.i += 1 }
            case UInt8(ascii: "\\"):
                try scan.escape()
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // Lenient, an unterminated quote ends the input: its word is the last.
                if try !scan.quoted(by: c) { return scan.commands }
            case UInt8(ascii: "$"):
                scan.beginWord()
                if try scan.takeVariable() { continue }
                scan.word.append(c)
                scan.i += 1
            default:
                scan.beginWord()
                scan.word.append(c)
                scan.i += 1
            }
        }
        scan.finishWord(at: n)
        scan.finishCommand()
        return scan.commands
    }

    /// The state of one `tokenize` pass: the position, the word being built and the commands so far.
    private struct Scanner {
        let bytes: [UInt8]
        let lenient: Bool
        var i = 0
        var commands: [[Token]] = []
        var current: [Token] = []
        var word: [UInt8] = []
        var inWord = false
        var start = 0
        var parts: [WordPart] = []
        var literalStart = 0
        var quoted = false

        init(bytes: [UInt8], lenient: Bool) {
            self.bytes = bytes
            self.lenient = lenient
        }

        mutating func beginWord() {
            if !inWord { inWord = true; start = i }
        }

        mutating func finishWord(at end: Int, openQuote: Character? = nil) {
            if inWord {
                var token = Token(text: String(decoding: word, as: UTF8.self), start: start, end: end, openQuote: openQuote)
                if !parts.isEmpty {
                    if literalStart < word.count { parts.append(.literal(String(decoding: word[literalStart...], as: UTF8.self))) }
                    token.parts = parts
                }
                token.quoted = quoted
                current.append(token)
            }
            word.removeAll(keepingCapacity: true)
            inWord = false
            parts = []
            literalStart = 0
            quoted = false
        }

        mutating func finishCommand() {
            if !current.isEmpty { commands.append(current) }
            current = []
        }

        /// A `$name` / `${name}` at `i`: records it as a part, keeps its raw text in the word, moves past it.
        mutating func takeVariable() throws -> Bool {
            guard let ref = try variableReference(bytes, i, lenient: lenient) else { return false }
            if literalStart < word.count { parts.append(.literal(String(decoding: word[literalStart...], as: UTF8.self))) }
            parts.append(.variable(ref.name))
            word.append(contentsOf: bytes[i..<(i + ref.length)])
            literalStart = word.count
            i += ref.length
            return true
        }

        /// `| COMMAND`: the shell command runs to the next `;` or newline outside quotes, as a
        /// pipeline does in sh; its text goes to sh as typed (its own quotes, `$` and pipes are sh's).
        mutating func pipe() throws {
            let n = bytes.count
            finishWord(at: i)
            let end = shellCommandEnd(bytes, from: i + 1)
            guard end <= n else { throw UsageError("unterminated quote in the shell command after '|'") }
            var from = i + 1, to = end
            while from < to && (bytes[from] == UInt8(ascii: " ") || bytes[from] == UInt8(ascii: "\t")) { from += 1 }
            while to > from && [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(bytes[to - 1]) { to -= 1 }
            let command = String(decoding: bytes[from..<to], as: UTF8.self)
            guard !command.isEmpty else { throw UsageError("nothing after '|': name a shell command to read the output") }
            var token = Token(text: command, start: i, end: end)
            token.output = .pipe
            current.append(token)
            i = end
        }

        /// `>` or `>>`: an operator token; the target is the next word.
        mutating func redirect() {
            finishWord(at: i)
            let append = i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: ">")
            var token = Token(text: append ? ">>" : ">", start: i, end: i + (append ? 2 : 1))
            token.output = .file(append: append)
            current.append(token)
            i += append ? 2 : 1
        }

        /// A backslash: the next character as itself; before a newline, a line continuation.
        mutating func escape() throws {
            let n = bytes.count
            // Line continuation: removed as in sh, so it never starts a word of its own.
            if i + 1 < n && bytes[i + 1] == UInt8(ascii: "\n") { i += 2; return }
            beginWord()
            quoted = true
            if i + 1 >= n {
                if lenient { i += 1; return }
                throw UsageError("unfinished escape at end of line")
            }
            i += 1
            let len = scalarLength(bytes[i])
            word.append(contentsOf: bytes[i..<min(n, i + len)])
            i += len
        }

        /// A quoted run: nothing special inside single quotes; `\"`, `\\`, `\$`, `` \` ``, a line
        /// continuation and `$name` inside double quotes. False when lenient mode met the end of the
        /// input inside it (the word and its command are then finished).
        mutating func quoted(by quote: UInt8) throws -> Bool {
            let n = bytes.count
            beginWord()
            quoted = true
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
                if quote == UInt8(ascii: "\"") && d == UInt8(ascii: "$"), try takeVariable() { continue }
                word.append(d)
                i += 1
            }
            if closed { return true }
            if lenient {
                finishWord(at: n, openQuote: Character(UnicodeScalar(quote)))
                finishCommand()
                return false
            }
            throw UsageError("unterminated \(quote == UInt8(ascii: "'") ? "single" : "double") quote")
        }
    }

    /// Where the shell command after a `|` ends: the offset of the first `;` or newline outside
    /// sh's quotes (single, double, backslash), or the end of the text; past the end (n + 1) when
    /// a quote is left open.
    static func shellCommandEnd(_ bytes: [UInt8], from start: Int) -> Int {
        let n = bytes.count
        var i = start
        while i < n {
            switch bytes[i] {
            case UInt8(ascii: ";"), UInt8(ascii: "\n"): return i
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "'"):
                i += 1
                while i < n && bytes[i] != UInt8(ascii: "'") { i += 1 }
                if i >= n { return n + 1 }
                i += 1
            case UInt8(ascii: "\""):
                i += 1
                while i < n && bytes[i] != UInt8(ascii: "\"") {
                    i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                if i >= n { return n + 1 }
                i += 1
            default: i += 1
            }
        }
        return min(i, n)
    }

    /// `$name` or `${name}` starting at `i` (a `$`): the name and the raw length. Nil when the `$`
    /// is plain text (`$5`, `$ `, a `$` at the end); a broken `${…}` is a usage error.
    static func variableReference(_ bytes: [UInt8], _ i: Int, lenient: Bool) throws -> (name: String, length: Int)? {
        let n = bytes.count
        guard i + 1 < n else { return nil }
        if bytes[i + 1] == UInt8(ascii: "{") {
            var j = i + 2
            while j < n && bytes[j] != UInt8(ascii: "}") && bytes[j] != UInt8(ascii: "\n") { j += 1 }
            guard j < n, bytes[j] == UInt8(ascii: "}") else {
                if lenient { return nil }
                throw UsageError("unterminated '${' (write \\$ for a literal dollar sign)")
            }
            let name = Array(bytes[(i + 2)..<j])
            guard Variables.isValidName(name) else {
                if lenient { return nil }
                throw UsageError("bad variable name '${\(String(decoding: name, as: UTF8.self))}' (letters, digits and _)")
            }
            return (String(decoding: name, as: UTF8.self), j - i + 1)
        }
        guard Variables.isNameStart(bytes[i + 1]) else { return nil }
        var j = i + 1
        while j < n && Variables.isNameByte(bytes[j]) { j += 1 }
        return (String(decoding: bytes[(i + 1)..<j], as: UTF8.self), j - i)
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
        if !word.isEmpty && !word.unicodeScalars.contains(where: needsQuoting) && word.unicodeScalars.first != "#" { return word }
        // By scalar, not Character: a quote followed by a combining mark is one Character, yet `split`
        // reads its quote byte as the end of the quoted part.
        var out = "'"
        for scalar in word.unicodeScalars {
            if scalar == "'" { out += "'\\''" } else { out.unicodeScalars.append(scalar) }
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
