import SXKCore

/// Rules for variable names and how a stored JSON value reads when expanded or listed.
public enum Variables {
    /// The name `$_` answers to: the data of the last command that kept any.
    public static let lastData = "_"

    static func isNameStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
    }

    static func isNameByte(_ b: UInt8) -> Bool {
        isNameStart(b) || (b >= 0x30 && b <= 0x39)
    }

    static func isValidName(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first, isNameStart(first) else { return false }
        return bytes.allSatisfy(isNameByte)
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isValidName(_ name: String) -> Bool { isValidName(Array(name.utf8)) }

    /// What `$name` becomes in a command line: a string as it is, a number as written, true/false,
    /// nothing for null, and compact JSON for an object or array.
    public static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        case .null: return ""
        case .array, .object: return JSONWriter.string(value)
        }
    }

    /// One line for `vars` and confirmations: strings in quotes, the rest as compact JSON, cut at `width` columns.
    public static func preview(_ value: JSONValue, width: Int) -> String {
        let text: String
        if case .string(let s) = value { text = JSONWriter.string(.string(s)) } else { text = JSONWriter.string(value) }
        return TextWidth.truncate(text, to: max(8, width))
    }

    /// The value with secret members masked (`token`, `password`, …) and every secret the
    /// session holds replaced by `***` wherever it appears in a string, so none is ever stored.
    public static func sanitize(_ value: JSONValue, secrets: [String]) -> JSONValue {
        Redaction.redact(value, secrets: secrets)
    }
}

/// Session variables set with `let`, and `$_`, the data of the last command that kept any.
/// Memory only: never written to disk, gone when the shell exits.
public final class VariableStore: @unchecked Sendable {
    public struct Entry: Sendable, Equatable {
        public var value: JSONValue
        /// The command line that produced it (`orders --limit 1 .list[0].orderId`).
        public var source: String
    }

    private let lock = Lock()
    private var entries: [(name: String, entry: Entry)] = []
    private var last: Entry?

    public init() {}

    /// Sets or replaces a variable, keeping the first definition's place in the listing.
    public func set(_ name: String, value: JSONValue, source: String) {
        lock.withLock {
            let entry = Entry(value: value, source: source)
            if let i = entries.firstIndex(where: { $0.name == name }) { entries[i].entry = entry } else { entries.append((name, entry)) }
        }
    }

    /// A variable's value; `_` is the last command's data.
    public func value(_ name: String) -> JSONValue? {
        lock.withLock {
            if name == Variables.lastData { return last?.value }
            return entries.first { $0.name == name }?.entry.value
        }
    }

    /// Removes a variable (`_` forgets the last data); false when there was none.
    @discardableResult
    public func remove(_ name: String) -> Bool {
        lock.withLock {
            if name == Variables.lastData {
                defer { last = nil }
                return last != nil
            }
            guard let i = entries.firstIndex(where: { $0.name == name }) else { return false }
            entries.remove(at: i)
            return true
        }
    }

    public func setLast(_ value: JSONValue, source: String) {
        lock.withLock { last = Entry(value: value, source: source) }
    }

    public var lastEntry: Entry? { lock.withLock { last } }

    /// Variables in definition order, then `_` when set.
    public var all: [(name: String, entry: Entry)] {
        lock.withLock { entries + (last.map { [(Variables.lastData, $0)] } ?? []) }
    }

    /// Names that can be expanded now (for completion and "did you mean").
    public var names: [String] { all.map(\.name) }
}

/// The data one command kept (what it prints with `--json`), for `$_` and `let`.
public final class CommandData: @unchecked Sendable {
    private let lock = Lock()
    private var kept: JSONValue?
    private var unread = false

    public init() {}

    /// False where nothing can read the data after the command (a one-shot `sxk orders --all`):
    /// `keep` drops it and a stream gathers no rows for `$_` (memory stays one page).
    public var isRead: Bool { lock.withLock { !unread } }

    /// Marks the data as never read (set before the command runs).
    func discard() { lock.withLock { unread = true } }

    /// Keeps `value`; a later call replaces it. Masking waits until the data is read, since most
    /// commands' data is never read (one walk less per command).
    public func keep(_ value: JSONValue) {
        lock.withLock { if !unread { kept = value } }
    }

    /// The kept data with secret members masked.
    public var value: JSONValue? { lock.withLock { kept }.map(Redaction.redact) }

    /// As kept, for a caller that masks it itself (`Variables.sanitize`).
    var unmasked: JSONValue? { lock.withLock { kept } }

    func reset() { lock.withLock { kept = nil } }
}
