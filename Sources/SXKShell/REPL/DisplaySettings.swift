import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How tables become records (psql's `\x`): `off` never (tables are fitted), `on` always, `auto`
/// when a table cannot fit the terminal whole.
public enum ExpandedMode: String, Sendable, CaseIterable {
    case off, on, auto
}

/// The shell's display settings, as psql's `\pset`: `set expanded auto|on|off`, `set format
/// table|json|ndjson|csv|tsv`, `set pager on|off` (also `pager on|off`). A command's own flags
/// win over them (`--json`, `-x`, `--no-pager`). `set --save` keeps them for this user in the
/// config folder (`$XDG_CONFIG_HOME/sxk/display`, one `name value` per line), read at start.
public final class DisplaySettings: @unchecked Sendable {
    public static let names = ["expanded", "format", "pager"]
    /// The formats `set format` takes: every one a command can fall back from when it has no rows.
    public static let formats: [OutputFormat.Kind] = [.table, .json, .ndjson, .csv, .tsv]
    /// The completion provider of `set`'s VALUE: the values of the setting named before it.
    public static let valueProvider = "setting-value"

    /// The values `name` takes (empty for an unknown name).
    public static func values(of name: String) -> [String] {
        switch name {
        case "expanded": return ExpandedMode.allCases.map(\.rawValue)
        case "format": return formats.map(\.rawValue)
        case "pager": return ["on", "off"]
        default: return []
        }
    }

    private let lock = Lock()
    private var expandedMode = ExpandedMode.off
    private var formatKind = OutputFormat.Kind.table
    private var pagerOn = true
    /// Where `set --save` writes; nil when there is no config folder (no HOME).
    public let path: String?

    public init(path: String? = nil) {
        self.path = path
    }

    /// The settings saved at `path`, or the defaults. A line that does not parse is skipped with a
    /// warning in `problems` (a hand-edited file must not stop the shell).
    public static func load(path: String?) -> (settings: DisplaySettings, problems: [String]) {
        let settings = DisplaySettings(path: path)
        guard let path else { return (settings, []) }
        let data: [UInt8]
        switch contents(path) {
        case .success(nil): return (settings, [])
        case .success(let bytes?): data = bytes
        case .failure(let problem): return (settings, ["\(path): \(problem.reason); the defaults are used"])
        }
        var problems: [String] = []
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = line.split(separator: " ").map(String.init)
            if words.isEmpty || words[0].hasPrefix("#") { continue }
            do {
                guard words.count == 2 else { throw UsageError("expected 'NAME VALUE'") }
                try settings.set(words[0], words[1])
            } catch {
                problems.append("\(path):\(number + 1): \(error)")
            }
        }
        return (settings, problems)
    }

    struct Unreadable: Error { let reason: String }

    /// The saved file's bytes, nil when there is none. Read with `open`, not Foundation's file APIs:
    /// it is read at every start, and a missing one made them build an error and its dictionary.
    static func contents(_ path: String) -> Result<[UInt8]?, Unreadable> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return .success(nil) }
            return .failure(Unreadable(reason: "cannot open it: \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(Unreadable(reason: "cannot inspect it: \(String(cString: strerror(errno)))")) }
        // Trusted as sxkrc beside it is: this user's, not writable by others, in a safe folder.
        if let reason = StartupFile.refusal(st, path: path) { return .failure(Unreadable(reason: reason)) }
        switch FileBytes.readAll(fd, sizeHint: Int(st.st_size), limit: 1 << 20) {
        case .bytes(let bytes): return .success(bytes)
        case .tooLarge: return .failure(Unreadable(reason: "it is larger than 1 MB"))
        case .failed(let code): return .failure(Unreadable(reason: "cannot read it: \(String(cString: strerror(code)))"))
        }
    }

    public var expanded: ExpandedMode {
        get { lock.withLock { expandedMode } }
        set { lock.withLock { expandedMode = newValue } }
    }

    public var format: OutputFormat.Kind {
        get { lock.withLock { formatKind } }
        set { lock.withLock { formatKind = newValue } }
    }

    public var pager: Bool {
        get { lock.withLock { pagerOn } }
        set { lock.withLock { pagerOn = newValue } }
    }

    /// `set NAME VALUE`; an unknown name or value is a usage error naming the valid ones.
    public func set(_ name: String, _ value: String) throws {
        switch name {
        case "expanded":
            guard let mode = ExpandedMode(rawValue: value) else { throw UsageError("expanded is auto, on or off (got '\(value)')") }
            expanded = mode
        case "format":
            guard let kind = OutputFormat.Kind(rawValue: value), Self.formats.contains(kind) else {
                throw UsageError("format is " + Self.formats.map(\.rawValue).joined(separator: ", ") + " (got '\(value)')")
            }
            format = kind
        case "pager":
            guard value == "on" || value == "off" else { throw UsageError("pager is on or off (got '\(value)')") }
            pager = value == "on"
        default:
            throw UsageError("unknown setting '\(name)'\(Suggestion.hint(name, Self.names)); settings: " + Self.names.joined(separator: ", "))
        }
    }

    public func value(_ name: String) -> String {
        switch name {
        case "expanded": return expanded.rawValue
        case "format": return format.rawValue
        default: return pager ? "on" : "off"
        }
    }

    /// `name value` per setting, as `set` lists them and the saved file holds them.
    public var lines: [String] { Self.names.map { "\($0) \(value($0))" } }

    /// Writes every setting to `path` (folder made 0700, file 0600, replaced atomically).
    public func save() throws {
        guard let path else { throw UsageError("no config folder to save into (HOME and XDG_CONFIG_HOME are unset)") }
        do {
            try HistoryStore.makeDirectory(PathText.folder(of: path))
        } catch {
            throw UsageError("cannot save to '\(path)': \(error)")
        }
        // A new file of its own (O_EXCL): nothing planted at a guessable name (a FIFO, a link) is opened.
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw UsageError("cannot write '\(temporary)': \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw UsageError("cannot write '\(temporary)': \(reason)")
            }
            written += n
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw UsageError("cannot save to '\(path)': \(reason)")
        }
    }
}
