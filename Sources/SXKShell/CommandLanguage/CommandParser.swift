#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SXKCore

/// What a typed command asks for: run a command, or show help for a command path.
public enum ParseResult: Sendable, Equatable {
    case run(ParsedCommand)
    /// `CMD --help`, `CMD SUB -h`: the chain of specs from the top-level command down.
    case help([CommandSpec])
}

/// Turns the words of one command into a `ParsedCommand`, checked against the specs.
public struct CommandParser: Sendable {
    public var specs: [CommandSpec]
    public init(specs: [CommandSpec]) { self.specs = specs }

    public func command(named word: String) -> CommandSpec? { specs.first { $0.matches(word) } }

    public func parse(_ words: [String]) throws -> ParseResult {
        guard let first = words.first else { throw UsageError("empty command") }
        guard let top = command(named: first) else {
            let names = specs.filter { !$0.isHidden }.flatMap { [$0.name] + $0.aliases }
            throw UsageError("unknown command '\(first)'\(Suggestion.hint(first, names))")
        }
        if let help = Self.helpFirst(words, top: top) { return .help(help) }
        var state = ParseState(top: top)
        var onlyPositionals = false
        var i = 1
        while i < words.count {
            let word = words[i]
            i += 1
            if onlyPositionals {
                state.positionals.append(word)
                continue
            }
            if word == "--" { onlyPositionals = true; continue }
            if word == "--help" || word == "-h" { return .help(state.chain) }
            if word.hasPrefix("--") {
                try state.readLong(word, words, &i)
            } else if word.hasPrefix("-") && word.count > 1 && !ValueCheck.isNumber(word) {
                try state.readShorts(word, words, &i)
            } else {
                // After a passed-on command's first word, every word is that command's.
                if try state.readWord(word), state.current.passesCommand { onlyPositionals = true }
            }
        }
        try state.checkPositionals()
        return .run(ParsedCommand(spec: top, path: state.path, positionals: state.positionals, options: state.options, switches: state.switches))
    }

    /// Where the command that `words` pass on starts (`watch -n 5 orders …`: 3), read past the
    /// passing command's own flags by their names alone (a value is not checked: it may be a
    /// variable not yet expanded); nil when `words` pass none on, or name a flag it does not have.
    public func passedCommandStart(_ words: [String]) -> Int? {
        guard let first = words.first, let top = command(named: first), top.passesCommand else { return nil }
        var i = 1
        while i < words.count {
            let word = words[i]
            if word == "--" { return i + 1 < words.count ? i + 1 : nil }
            if word == "--help" || word == "-h" { return nil }
            i += 1
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                guard let flag = top.flag(named: String(body.prefix { $0 != "=" })) else { return nil }
                if !flag.isSwitch && !body.contains("=") { i += 1 }
            } else if word.hasPrefix("-") && word.count > 1 && !ValueCheck.isNumber(word) {
                // `-d`, `-dn 5`, `-n5`: a flag that takes a value ends the cluster.
                var rest = word.dropFirst()
                while let c = rest.first {
                    rest = rest.dropFirst()
                    guard let flag = top.flags.first(where: { $0.short == c }) else { return nil }
                    if !flag.isSwitch {
                        if rest.isEmpty { i += 1 }
                        break
                    }
                }
            } else {
                return i - 1
            }
        }
        return nil
    }

    /// `--help` anywhere before `--` wins over any other mistake on the line (for a command that
    /// passes a command on, only before that command: the word loop sees it there).
    static func helpFirst(_ words: [String], top: CommandSpec) -> [CommandSpec]? {
        guard !top.passesCommand else { return nil }
        let end = words.firstIndex(of: "--") ?? words.count
        guard words[1..<max(1, end)].contains(where: { $0 == "--help" || $0 == "-h" }) else { return nil }
        var chain = [top]
        for word in words[1..<end] where !word.hasPrefix("-") {
            guard let sub = chain[chain.count - 1].subcommand(word) else { continue }
            chain.append(sub)
        }
        return chain
    }
}

/// What the words of one command have given so far: the subcommand chain, positionals and flags.
private struct ParseState {
    var chain: [CommandSpec]
    var path: [String]
    var positionals: [String] = []
    var options: [String: [String]] = [:]
    var switches: Set<String> = []

    init(top: CommandSpec) {
        chain = [top]
        path = [top.name]
    }

    var current: CommandSpec { chain[chain.count - 1] }
    var label: String { path.joined(separator: " ") }

    /// Flags visible at this depth: the subcommand's own, then its parents'.
    func findFlag(_ name: String) -> FlagSpec? {
        for spec in chain.reversed() { if let f = spec.flag(named: name) { return f } }
        return nil
    }

    func findShort(_ c: Character) -> FlagSpec? {
        for spec in chain.reversed() { if let f = spec.flags.first(where: { $0.short == c }) { return f } }
        return nil
    }

    var allFlagNames: [String] { chain.reversed().flatMap { $0.flags.map { "--" + $0.name } } + ["--help"] }

    mutating func record(_ flag: FlagSpec, value: String?) throws {
        if let kind = flag.value {
            guard let value else { throw UsageError("missing value for '--\(flag.name)' (\(flag.valueName)) in '\(label)'") }
            try ValueCheck.check(value, kind: kind, what: "'--\(flag.name)'")
            options[flag.name, default: []].append(ValueCheck.expanded(value, kind: kind))
        } else {
            switches.insert(flag.name)
        }
    }

    /// `--name`, `--name=value` or `--name value` (then `i` moves past the value).
    mutating func readLong(_ word: String, _ words: [String], _ i: inout Int) throws {
        let body = word.dropFirst(2)
        let name: String
        var inline: String?
        if let eq = body.firstIndex(of: "=") {
            name = String(body[..<eq])
            inline = String(body[body.index(after: eq)...])
        } else {
            name = String(body)
        }
        guard let flag = findFlag(name) else {
            // `--json` is a global option, before the command or after it: a command without a
            // `--json` of its own takes it as the global one (`logout --json | jq`).
            if name == "json", inline == nil { switches.insert(name); return }
            throw UsageError("unknown flag '--\(name)' for '\(label)'\(Suggestion.hint("--" + name, allFlagNames))")
        }
        if flag.isSwitch {
            if inline != nil { throw UsageError("flag '--\(name)' takes no value") }
            try record(flag, value: nil)
        } else if let inline {
            try record(flag, value: inline)
        } else {
            try record(flag, value: i < words.count ? words[i] : nil)
            i += 1
        }
    }

    /// `-abc` (switches), `-nVALUE` or `-n VALUE`.
    mutating func readShorts(_ word: String, _ words: [String], _ i: inout Int) throws {
        var rest = Substring(word.dropFirst())
        while let c = rest.first {
            rest = rest.dropFirst()
            guard let flag = findShort(c) else {
                let shorts = chain.reversed().flatMap { $0.flags.compactMap { $0.short.map { "-\($0)" } } } + allFlagNames
                throw UsageError("unknown flag '-\(c)' for '\(label)'\(Suggestion.hint("-\(c)", shorts))")
            }
            if flag.isSwitch {
                try record(flag, value: nil)
            } else if !rest.isEmpty {
                try record(flag, value: String(rest))
                rest = ""
            } else {
                try record(flag, value: i < words.count ? words[i] : nil)
                i += 1
            }
        }
    }

    /// A subcommand while no positional has come yet, else a positional (then true).
    mutating func readWord(_ word: String) throws -> Bool {
        if positionals.isEmpty && !current.subcommands.isEmpty {
            if let sub = current.subcommand(word) {
                chain.append(sub)
                path.append(sub.name)
                return false
            }
            if current.arguments.isEmpty {
                let names = current.subcommands.filter { !$0.isHidden }.map(\.name)
                throw UsageError("unknown subcommand '\(word)' for '\(label)'\(Suggestion.hint(word, names))")
            }
        }
        positionals.append(word)
        return true
    }

    /// A word the command takes no place for. A command that reads a password (`neverInHistory`) does
    /// not echo it: `login PHONE PASSWORD` is how other tools take one, and the line would show it.
    func unexpected(_ value: String, at index: Int) -> UsageError {
        guard chain.contains(where: \.neverInHistory) else { return UsageError("unexpected argument '\(value)' for '\(label)'") }
        return UsageError("unexpected argument \(index + 1) for '\(label)', not shown as it may be a password: '\(label)' asks for one at a no-echo prompt or reads it with --password-stdin, never as an argument")
    }

    /// Each positional against its argument's kind (a file's `~/` made the home folder); too many or
    /// too few is a usage error.
    mutating func checkPositionals() throws {
        let args = current.arguments
        for (index, value) in positionals.enumerated() {
            guard let arg = index < args.count ? args[index] : args.last(where: { $0.isVariadic }) else {
                throw unexpected(value, at: index)
            }
            if index >= args.count && !arg.isVariadic { throw unexpected(value, at: index) }
            // A choice's name is its values (`on|off`): the message names the command instead.
            if case .choice = arg.kind {
                try ValueCheck.check(value, kind: arg.kind, what: "the argument of '\(label)'")
            } else {
                try ValueCheck.check(value, kind: arg.kind, what: arg.name)
            }
            positionals[index] = ValueCheck.expanded(value, kind: arg.kind)
        }
        if positionals.count < args.count {
            for arg in args[positionals.count...] where !arg.isOptional && !arg.isVariadic {
                // A word the command takes as it is (`har save`): named as the word to type.
                if case .choice(let words) = arg.kind, words.count == 1 {
                    throw UsageError("'\(label)' needs the word '\(words[0])' next (\(([label] + args.map(HelpRenderer.argName)).joined(separator: " ")))")
                }
                throw UsageError("missing argument \(arg.name) for '\(label)'")
            }
        }
    }
}

/// Checks a value against its `ValueKind` with a one-line message.
public enum ValueCheck {
    public static func check(_ value: String, kind: ValueKind, what: String) throws {
        switch kind {
        case .string, .path, .provider: return
        case .int:
            if Int(value) == nil { throw UsageError("\(what) expects an integer, got '\(value)'") }
        case .double:
            if JSONValue.decimal(value) == nil { throw UsageError("\(what) expects a number, got '\(value)'") }
        case .date:
            if !isDate(value) { throw UsageError("\(what) expects a date yyyy-MM-dd, got '\(value)'") }
        case .choice(let choices):
            if !choices.contains(value) {
                throw UsageError("\(what) must be one of \(choices.joined(separator: ", ")), got '\(value)'\(Suggestion.hint(value, choices))")
            }
        }
    }

    /// A decimal number as JSON writes one (`-1`, `0.5`, `2e3`): not hexadecimal, `inf` or `nan`,
    /// which `Double` also reads and no one types as a number here.
    static func isNumber(_ word: String) -> Bool { JSONValue.decimal(word) != nil }

    /// A file or folder value with a leading `~` or `~/` as the home folder, as a shell reads it (and as
    /// Tab completes it); any other value as given.
    public static func expanded(_ value: String, kind: ValueKind, home: String? = getenv("HOME").map { String(cString: $0) }) -> String {
        guard case .path = kind, value == "~" || value.hasPrefix("~/"), let home, !home.isEmpty else { return value }
        return home + value.dropFirst()
    }

    /// `yyyy-MM-dd` with a real month and day.
    public static func isDate(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m), d >= 1
        else { return false }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        return d <= days
    }
}
