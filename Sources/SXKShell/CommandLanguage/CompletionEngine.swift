import SXKCore
/// One completion: the value to insert and an optional note (`1` — `西湖景区`).
public struct CompletionCandidate: Sendable, Equatable, Hashable {
    public var value: String
    public var description: String?
    /// A folder: chosen alone it stays open (no closing quote, no space), so Tab goes on inside it.
    public var continues = false
    public init(_ value: String, description: String? = nil) {
        self.value = value
        self.description = description
    }

    /// As shown to a person or handed to a shell: the description (often a name from the server)
    /// with every control escaped and the live tokens masked. The value needs neither: only
    /// typeable values are offered (`CompletionEngine.typeable`).
    public func shown(secrets: [String]) -> CompletionCandidate {
        var c = self
        c.description = description.map { Redaction.redact(TerminalText.sanitize($0), secrets: secrets) }
        return c
    }
}

/// Values for `ValueKind.provider(name)`, from cached data only (never the network).
/// Returns candidates already matched against `prefix` (a provider may match names, not just values).
/// The shell's own providers: `"variable"` (names for `$<Tab>`) and `"alias"` (names that
/// complete as commands).
public protocol CompletionValueProvider: Sendable {
    func completions(for provider: String, prefix: String) -> [CompletionCandidate]
    /// The words an alias stands for (its last command), so its flags complete; nil for no alias.
    func aliasWords(_ name: String) -> [String]?
}

extension CompletionValueProvider {
    public func aliasWords(_ name: String) -> [String]? { nil }
}

/// A provider with no values (builtins only).
public struct NoValues: CompletionValueProvider {
    public init() {}
    public func completions(for provider: String, prefix: String) -> [CompletionCandidate] { [] }
}

/// What can go at the cursor and which part of the line a choice replaces.
public struct CompletionResult: Sendable, Equatable {
    public var candidates: [CompletionCandidate]
    /// UTF-8 offsets of the raw word being completed (quotes included).
    public var replaceStart: Int
    public var replaceEnd: Int
    /// The word as typed, unquoted.
    public var prefix: String
    /// The quote the word opened and did not close, if any.
    public var openQuote: Character?
    /// Candidates go in as they are, never quoted (variable names after `$`).
    public var verbatim = false

    public init(candidates: [CompletionCandidate], replaceStart: Int, replaceEnd: Int, prefix: String, openQuote: Character? = nil) {
        self.candidates = candidates
        self.replaceStart = replaceStart
        self.replaceEnd = replaceEnd
        self.prefix = prefix
        self.openQuote = openQuote
    }

    /// Text for the word when `candidate` is chosen: quoted as needed; `final` closes the quote and adds a
    /// space. `next` is the character after the cursor (nil at the end of the line): a space already
    /// there is not doubled, and a partial value inside a line is escaped with backslashes rather than
    /// left in an open quote that would take in the rest of the line.
    public func insertion(for value: String, final: Bool, next: Character? = nil) -> String {
        let space = next == " " ? "" : " "
        if verbatim { return final && openQuote == nil ? value + space : value }
        if let q = openQuote {
            // By scalar (as `Tokenizer.quote`): a quote followed by a combining mark is one Character.
            var body = ""
            for scalar in value.unicodeScalars {
                if q == "\"" && (scalar == "\"" || scalar == "\\") { body.append("\\") }
                if q == "'" && scalar == "'" { body += "'\\'" }
                body.unicodeScalars.append(scalar)
            }
            return String(q) + body + (final ? String(q) + space : "")
        }
        if final { return Tokenizer.quote(value) + space }
        if next != nil {
            var escaped = ""
            for scalar in value.unicodeScalars {
                if Tokenizer.needsQuoting(scalar) { escaped.append("\\") }
                escaped.unicodeScalars.append(scalar)
            }
            return escaped
        }
        // A partial value at the end of the line: quote only if it needs it, and leave the quote open.
        let quoted = Tokenizer.quote(value)
        return quoted == value ? value : String(quoted.dropLast())
    }

    /// The longest prefix shared by every candidate (compared by Unicode scalars).
    public var commonPrefix: String {
        guard var common = candidates.first.map({ Array($0.value.unicodeScalars) }) else { return "" }
        for c in candidates.dropFirst() {
            var n = 0
            for s in c.value.unicodeScalars {
                if n >= common.count || common[n] != s { break }
                n += 1
            }
            if n < common.count { common.removeSubrange(n...) }
            if common.isEmpty { break }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: common)
        return String(view)
    }
}

/// A pure function from (line, cursor) to completions, driven by the command specs.
public struct CompletionEngine: Sendable {
    public var specs: [CommandSpec]
    public init(specs: [CommandSpec]) { self.specs = specs }

    /// `cursor` is a UTF-8 offset into `line`.
    public func complete(line: String, cursor: Int, provider: any CompletionValueProvider) -> CompletionResult {
        let utf8 = Array(line.utf8)
        let end = max(0, min(cursor, utf8.count))
        let head = String(decoding: utf8[0..<end], as: UTF8.self)
        let commands = (try? Tokenizer.tokenize(head, lenient: true)) ?? []
        var tokens = commands.last ?? []
        // A separator or blank after the last token means a fresh word at the cursor.
        let lastSignificant = head.utf8.last
        var currentWord = Token(text: "", start: end, end: end)
        if let last = tokens.last, last.end == end, lastSignificant != UInt8(ascii: ";") {
            currentWord = last
            tokens.removeLast()
        } else if let lastByte = lastSignificant, lastByte == UInt8(ascii: ";") || lastByte == UInt8(ascii: "\n") {
            tokens = []
        }
        if commands.count > 1, tokens.isEmpty, currentWord.text.isEmpty, let lb = lastSignificant,
           lb != UInt8(ascii: ";"), lb != UInt8(ascii: "\n"), let lastCmd = commands.last, !lastCmd.isEmpty {
            tokens = lastCmd
        }
        if let variable = variableAtCursor(utf8, end: end, openQuote: currentWord.openQuote) {
            let names = provider.completions(for: "variable", prefix: variable.prefix)
            var result = CompletionResult(candidates: names.map { CompletionCandidate($0.value + (variable.braced ? "}" : ""), description: $0.description) },
                                          replaceStart: end - variable.prefix.utf8.count, replaceEnd: end,
                                          prefix: variable.prefix, openQuote: currentWord.openQuote)
            result.verbatim = true
            return result
        }
        // After `| COMMAND` or `> FILE` the words are the system shell's or a file's, not sxk's: the
        // word right after `>`/`>>` is the file, completed as a path argument is.
        if let past = Self.pastPipeOrRedirect(utf8[0..<end]) {
            // `>>/tm`: the lenient tokenizer keeps the operator in the word; the file starts after it.
            let wordStart = min(max(currentWord.start, past.end), end)
            if past.redirect, utf8[past.end..<wordStart].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                let prefix = currentWord.start < past.end ? String(decoding: utf8[past.end..<end], as: UTF8.self) : currentWord.text
                return CompletionResult(candidates: Self.typeable(PathCompletion.candidates(prefix: prefix)), replaceStart: wordStart, replaceEnd: end,
                                        prefix: prefix, openQuote: currentWord.openQuote)
            }
            return CompletionResult(candidates: [], replaceStart: currentWord.start, replaceEnd: end, prefix: currentWord.text)
        }
        let words = tokens.map(\.text)
        let candidates = candidatesFor(words: words, current: currentWord.text, provider: provider)
        var result = CompletionResult(candidates: Self.typeable(candidates.values),
                                      replaceStart: currentWord.start, replaceEnd: end,
                                      prefix: currentWord.text, openQuote: currentWord.openQuote)
        if let valueStart = candidates.valueOffset {
            // `--flag=val`: only the part after `=` is replaced.
            result.replaceStart = currentWord.start + valueStart
            result.prefix = String(currentWord.text.utf8.dropFirst(valueStart)).map { String($0) } ?? ""
        }
        return result
    }

    /// The last unquoted `|` or `>` after the last command's start (`;` or a newline): whether it is a
    /// redirect, and the index just past it; nil when there is none.
    static func pastPipeOrRedirect(_ bytes: ArraySlice<UInt8>) -> (redirect: Bool, end: Int)? {
        var quote: UInt8?
        var escaped = false
        var past: (redirect: Bool, end: Int)?
        for index in bytes.indices {
            let byte = bytes[index]
            if escaped { escaped = false; continue }
            if let q = quote {
                if byte == q { quote = nil } else if byte == UInt8(ascii: "\\") && q == UInt8(ascii: "\"") { escaped = true }
                continue
            }
            switch byte {
            case UInt8(ascii: "\\"): escaped = true
            case UInt8(ascii: "'"), UInt8(ascii: "\""): quote = byte
            // After a pipe, a `>` belongs to the shell command: the pipe stays what counts.
            case UInt8(ascii: "|"): past = (false, index + 1)
            case UInt8(ascii: ">"): if past?.redirect != false { past = (true, index + 1) }
            case UInt8(ascii: ";"), UInt8(ascii: "\n"): past = nil
            default: break
            }
        }
        return past
    }

    /// `$na` or `${na` just before the cursor (not escaped, not in single quotes): the name typed so far.
    private func variableAtCursor(_ bytes: [UInt8], end: Int, openQuote: Character?) -> (prefix: String, braced: Bool)? {
        if openQuote == "'" { return nil }
        var i = end
        while i > 0, Variables.isNameByte(bytes[i - 1]) { i -= 1 }
        let nameStart = i
        var braced = false
        if i > 0, bytes[i - 1] == UInt8(ascii: "{") { braced = true; i -= 1 }
        guard i > 0, bytes[i - 1] == UInt8(ascii: "$") else { return nil }
        var slashes = 0
        var j = i - 1
        while j > 0, bytes[j - 1] == UInt8(ascii: "\\") { slashes += 1; j -= 1 }
        if slashes % 2 == 1 { return nil }
        let name = Array(bytes[nameStart..<end])
        if let first = name.first, !Variables.isNameStart(first) { return nil }
        return (String(decoding: name, as: UTF8.self), braced)
    }

    /// Completions for `words` (already typed, unquoted) and the partial `current` word.
    public func candidates(words: [String], current: String, provider: any CompletionValueProvider) -> [CompletionCandidate] {
        Self.typeable(candidatesFor(words: words, current: current, provider: provider).values)
    }

    /// A value holding a control character (a hostile store or scenic name) cannot be typed, and a
    /// line editor would insert it raw (a NUL even cuts the line): the id completes such a one.
    static func typeable(_ candidates: [CompletionCandidate]) -> [CompletionCandidate] {
        // A byte scan (`needsEscaping`), and the list itself when nothing is to go: a Tab over 20,000
        // stores neither looks up scalar properties nor copies the list.
        guard candidates.contains(where: { TerminalText.needsEscaping($0.value) }) else { return candidates }
        return candidates.filter { !TerminalText.needsEscaping($0.value) }
    }

    private func candidatesFor(words: [String], current: String, provider: any CompletionValueProvider, depth: Int = 0,
                               passedFlags: Swift.Set<String>? = nil) -> (values: [CompletionCandidate], valueOffset: Int?) {
        var words = words
        // `let NAME = COMMAND…`: the command after `=` completes as a command of its own.
        if words.first == "let" {
            if words.count >= 3 && words[2] == "=" {
                words.removeFirst(3)
            } else if words.count == 1 {
                return (provider.completions(for: "variable", prefix: current).filter { $0.value != Variables.lastData }, nil)
            } else {
                return (words.count == 2 && "=".hasPrefix(current) ? [CompletionCandidate("=")] : [], nil)
            }
        }
        words = Self.expandingAliases(words, provider: provider)
        guard let first = words.first else { return (commandNames(current, provider: provider), nil) }
        guard let top = specs.first(where: { $0.matches(first) }) else { return ([], nil) }
        var typed = TypedWords(top: top)
        // `watch -n 5 orders --st…`: from the inner command on, its own spec completes.
        if let inner = typed.read(words) {
            // A passed-on command passing one on itself (`watch compare …`) is as deep as it goes:
            // `watch watch watch …` is refused when it runs, and must not recurse once per word here.
            guard depth < 2 else { return ([], nil) }
            return candidatesFor(words: Array(words[inner...]), current: current, provider: provider, depth: depth + 1,
                                 passedFlags: typed.current.passedFlags)
        }
        if let flag = typed.pendingFlag, let kind = flag.value {
            return (values(of: kind, prefix: current, provider: provider), nil)
        }
        if !typed.onlyPositionals && current.hasPrefix("-") {
            // Passed on by a command that takes only some of its flags (`compare … -- orders --`): those.
            var found = flagCandidates(current, typed, provider: provider)
            if let passedFlags {
                found.values.removeAll { candidate in
                    let name = String(candidate.value.dropFirst(2).prefix { $0 != "=" })
                    return candidate.value.hasPrefix("--") && !passedFlags.contains(name)
                }
            }
            return found
        }
        return (argumentCandidates(current, typed, provider: provider), nil)
    }

    /// An alias completes as what it stands for (`so --j` → `orders --role storeAdmin --j`).
    static func expandingAliases(_ words: [String], provider: any CompletionValueProvider) -> [String] {
        var words = words
        var expanded: Set<String> = []
        while let first = words.first, !expanded.contains(first), let expansion = provider.aliasWords(first), !expansion.isEmpty {
            expanded.insert(first)
            words = expansion + words.dropFirst()
        }
        return words
    }

    /// The first word: commands, their aliases, then the user's aliases.
    private func commandNames(_ current: String, provider: any CompletionValueProvider) -> [CompletionCandidate] {
        var out: [CompletionCandidate] = []
        for spec in specs where !spec.isHidden {
            if spec.name.hasPrefix(current) { out.append(CompletionCandidate(spec.name, description: spec.summary)) }
            for alias in spec.aliases where alias.hasPrefix(current) && !spec.name.hasPrefix(current) {
                out.append(CompletionCandidate(alias, description: spec.summary))
            }
        }
        let taken = Set(out.map(\.value))
        return out + provider.completions(for: "alias", prefix: current).filter { !taken.contains($0.value) }
    }

    /// `--fl…` (flags not used yet, switches once) or `--flag=va…` (the flag's values, after the `=`).
    private func flagCandidates(_ current: String, _ typed: TypedWords, provider: any CompletionValueProvider) -> (values: [CompletionCandidate], valueOffset: Int?) {
        if current.hasPrefix("--"), let eq = current.firstIndex(of: "=") {
            let name = String(current[current.index(current.startIndex, offsetBy: 2)..<eq])
            guard let f = typed.findFlag(name), let kind = f.value else { return ([], nil) }
            let valuePrefix = String(current[current.index(after: eq)...])
            return (values(of: kind, prefix: valuePrefix, provider: provider), current[...eq].utf8.count)
        }
        var out: [CompletionCandidate] = []
        var seen: Set<String> = []
        for s in typed.chain.reversed() {
            for f in s.flags where !seen.contains(f.name) {
                seen.insert(f.name)
                if typed.usedFlags.contains(f.name) && f.isSwitch { continue }
                let text = "--" + f.name
                if text.hasPrefix(current) { out.append(CompletionCandidate(text, description: f.summary)) }
            }
        }
        if "--help".hasPrefix(current) && !seen.contains("help") { out.append(CompletionCandidate("--help", description: "Show help for this command")) }
        return (out, nil)
    }

    /// A subcommand before any positional, and the values of the argument at this position.
    private func argumentCandidates(_ current: String, _ typed: TypedWords, provider: any CompletionValueProvider) -> [CompletionCandidate] {
        let spec = typed.current
        var out: [CompletionCandidate] = []
        if typed.positionalCount == 0 && !typed.onlyPositionals {
            for sub in spec.subcommands where !sub.isHidden && sub.name.hasPrefix(current) {
                out.append(CompletionCandidate(sub.name, description: sub.summary))
            }
        }
        let args = spec.arguments
        let arg: ArgumentSpec? = typed.positionalCount < args.count ? args[typed.positionalCount] : args.last(where: { $0.isVariadic })
        if spec.name == "help", arg?.kind == .provider("command"), let first = typed.positionals.first,
           var node = specs.first(where: { $0.matches(first) }) {
            // `help stats <Tab>`: the subcommands of the command named so far.
            for word in typed.positionals.dropFirst() {
                guard let sub = node.subcommand(word) else { return [] }
                node = sub
            }
            return node.subcommands.filter { !$0.isHidden && $0.name.hasPrefix(current) }.map { CompletionCandidate($0.name, description: $0.summary) }
        }
        if arg?.kind == .provider(DisplaySettings.valueProvider) {
            // `set NAME VALUE`: the values of the setting named before it.
            let name = typed.positionals.last ?? ""
            return DisplaySettings.values(of: name).filter { $0.hasPrefix(current) }.map { CompletionCandidate($0) }
        }
        if let arg { out += values(of: arg.kind, prefix: current, provider: provider) }
        return out
    }

    private func values(of kind: ValueKind, prefix: String, provider: any CompletionValueProvider) -> [CompletionCandidate] {
        switch kind {
        case .choice(let choices):
            return choices.filter { $0.hasPrefix(prefix) }.map { CompletionCandidate($0) }
        case .provider("command"):
            return specs.filter { !$0.isHidden && $0.name.hasPrefix(prefix) }.map { CompletionCandidate($0.name, description: $0.summary) }
        case .provider(let name):
            return provider.completions(for: name, prefix: prefix)
        case .path:
            return PathCompletion.candidates(prefix: prefix)
        case .string, .int, .double, .date:
            return []
        }
    }
}

/// What the complete words before the cursor have given, read leniently (completion never fails):
/// the subcommand chain, how many positionals, the flags used, and a flag still waiting for its value.
private struct TypedWords {
    var chain: [CommandSpec]
    var positionals: [String] = []
    var positionalCount: Int { positionals.count }
    var usedFlags: Set<String> = []
    var pendingFlag: FlagSpec?
    var onlyPositionals = false

    init(top: CommandSpec) { chain = [top] }

    var current: CommandSpec { chain[chain.count - 1] }

    func findFlag(_ name: String) -> FlagSpec? {
        for s in chain.reversed() { if let f = s.flag(named: name) { return f } }
        return nil
    }

    func findShort(_ c: Character) -> FlagSpec? {
        for s in chain.reversed() { if let f = s.flags.first(where: { $0.short == c }) { return f } }
        return nil
    }

    /// Reads the words after the command; the index of a passed-on command's first word, if one starts.
    mutating func read(_ words: [String]) -> Int? {
        for (index, word) in words.enumerated().dropFirst() {
            if pendingFlag != nil {
                pendingFlag = nil
                continue
            }
            let passesOn = current.passesCommand && positionalCount == 0
            if passesOn && (onlyPositionals || !word.hasPrefix("-") || word == "-") { return index }
            if onlyPositionals { positionals.append(word); continue }
            if word == "--" { onlyPositionals = true; continue }
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                if let f = findFlag(name) {
                    usedFlags.insert(f.name)
                    if !f.isSwitch && !body.contains("=") { pendingFlag = f }
                }
                continue
            }
            if word.hasPrefix("-") && word.count > 1 && !ValueCheck.isNumber(word) {
                readShorts(word)
                continue
            }
            if positionalCount == 0, let sub = current.subcommand(word) {
                chain.append(sub)
                continue
            }
            positionals.append(word)
        }
        return nil
    }

    /// `-abc`: switches until a flag that takes a value (the rest of the word, else the next word).
    mutating func readShorts(_ word: String) {
        var rest = Substring(word.dropFirst())
        while let c = rest.first {
            rest = rest.dropFirst()
            guard let f = findShort(c) else { continue }
            usedFlags.insert(f.name)
            if !f.isSwitch {
                if rest.isEmpty { pendingFlag = f }
                return
            }
        }
    }
}
