import SXKCore
/// Aliases: a short name for the start of a command (`alias so='orders --role storeAdmin'`).
/// Only the first word of a command is looked up; a quoted or escaped first word (`\orders`) never
/// is. Each alias expands at most once per command, and a definition that would loop is refused.
public final class AliasTable: @unchecked Sendable {
    public struct Alias: Sendable, Equatable {
        public var name: String
        /// The words as typed in the definition (re-read each time the alias runs).
        public var text: String
        /// `text` split into commands; variable references stay until the command runs.
        var commands: [[Token]]
    }

    /// Names an alias may not take: the shell's own commands, so `exit`, `help` and friends always work.
    public static let reserved: Set<String> = Builtins.names

    private let lock = Lock()
    private var table: [String: Alias] = [:]

    public init() {}

    /// A name: letters (any script), digits, `_`, `-`, `.`; not starting with `-`.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first != "-" else { return false }
        return name.unicodeScalars.allSatisfy { s in
            if s.value > 0x7F { return s.properties.isAlphabetic || s.properties.numericType != nil }
            switch s {
            case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".": return true
            default: return false
            }
        }
    }

    /// Defines or replaces an alias. `isCommand` tells whether a word names a real command: an
    /// alias may start with its own name only then (`alias orders='orders --page-size 50'`).
    public func define(_ name: String, as text: String, isCommand: (String) -> Bool) throws {
        guard Self.isValidName(name) else {
            throw UsageError("bad alias name '\(name)' (letters, digits, _, - and .; not starting with -)")
        }
        if Self.reserved.contains(name) {
            throw UsageError("'\(name)' is a shell command and cannot be an alias")
        }
        let commands: [[Token]]
        do { commands = try Tokenizer.tokenize(text, lenient: false) } catch {
            throw UsageError("alias \(name): \(error)")
        }
        guard !commands.isEmpty else { throw UsageError("alias \(name): the value is empty") }
        let alias = Alias(name: name, text: text, commands: commands)
        try lock.withLock {
            var next = table
            next[name] = alias
            if let loop = Self.loop(from: name, in: next, isCommand: isCommand) {
                throw UsageError(loop)
            }
            table = next
        }
    }

    /// Removes an alias; false when there was none.
    @discardableResult
    public func remove(_ name: String) -> Bool {
        lock.withLock { table.removeValue(forKey: name) != nil }
    }

    public func removeAll() { lock.withLock { table.removeAll() } }

    public func alias(_ name: String) -> Alias? { lock.withLock { table[name] } }

    /// Every alias, by name.
    public var all: [Alias] { lock.withLock { table.values.sorted { $0.name < $1.name } } }

    /// The commands `command` stands for: itself when its first word is no alias; otherwise the
    /// alias's commands with the rest of the words added to the last one, expanded again (each
    /// alias once).
    public func expand(_ command: [Token]) -> [[Token]] {
        let snapshot = lock.withLock { table }
        return Self.expand(command, table: snapshot, used: [])
    }

    /// `command` with the alias of the command it passes on (`watch -n 5 so …`, `compare --as … -- so`)
    /// expanded, as that command would be typed alone: its redirection or pipe is the line's, and
    /// an alias that stands for several commands, or starts with no command (flags of the command
    /// that runs it), is refused. `command` as it is when it passes none on or that word is no alias.
    /// `words`: the command's words as far as they are known now (variables expanded). `shown`: the
    /// alias as an error line may show it (its secret items masked).
    public func expandingPassedCommand(_ command: [Token], words: [String], parser: CommandParser,
                                       shown: (Alias) -> String = AliasTable.definition) throws(UsageError) -> [Token] {
        guard let start = parser.passedCommandStart(words), start < command.count, let runner = parser.command(named: words[0]) else { return command }
        let head = command[start]
        guard !head.quoted, head.parts.isEmpty, let alias = alias(head.text) else { return command }
        let commands = expand(Array(command[start...]))
        guard commands.count == 1, let inner = commands.first, let first = inner.first else {
            throw UsageError("\(runner.name): '\(head.text)' stands for several commands; \(runner.name) runs one")
        }
        // A word made by a variable is only known when the line runs, as at the start of a line.
        guard !first.parts.isEmpty || parser.command(named: first.text) != nil else {
            throw UsageError("\(shown(alias)): unknown command '\(first.text)'")
        }
        return Array(command[..<start]) + inner
    }

    /// `alias so=…` as it would be typed again (for listing and sxkrc files).
    public static func definition(_ alias: Alias) -> String { definition(name: alias.name, text: alias.text) }

    public static func definition(name: String, text: String) -> String { "alias \(name)=\(Tokenizer.quote(text))" }

    private static func expand(_ command: [Token], table: [String: Alias], used: Set<String>) -> [[Token]] {
        guard let first = command.first, !first.quoted, first.parts.isEmpty,
              let alias = table[first.text], !used.contains(alias.name) else { return [command] }
        var commands = alias.commands
        commands[commands.count - 1] += command.dropFirst()
        let now = used.union([alias.name])
        return commands.flatMap { expand($0, table: table, used: now) }
    }

    /// A message when the alias `name` would reach itself through other aliases, or start with
    /// itself without being a command; nil when it is fine.
    private static func loop(from name: String, in table: [String: Alias], isCommand: (String) -> Bool) -> String? {
        var result: String?
        func visit(_ current: String, path: [String]) {
            guard result == nil, let alias = table[current] else { return }
            for command in alias.commands {
                guard let first = command.first, !first.quoted, first.parts.isEmpty else { continue }
                let word = first.text
                if word == name {
                    if path.count == 1 {
                        if !isCommand(name) { result = "alias \(name) would start with itself, and '\(name)' is not a command" }
                    } else {
                        result = "alias \(name) not defined: it would loop (" + (path + [name]).joined(separator: " → ") + ")"
                    }
                    return
                }
                if path.contains(word) { continue }
                visit(word, path: path + [word])
            }
        }
        visit(name, path: [name])
        return result
    }
}
