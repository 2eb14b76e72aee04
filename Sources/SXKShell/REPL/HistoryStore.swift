import CLibedit
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import SXKCore

/// The history file in libedit's format: loaded at start, merged with what other shells wrote
/// and saved atomically (0600 temp file, fsync, rename, under flock). Lines marked not to persist
/// (space-prefixed, `neverInHistory` commands) stay in this shell's memory only. Each line may
/// carry where it ran (`HistoryEntry.stored`); recall sees the command alone.
public final class HistoryStore: @unchecked Sendable {
    public let path: String?
    public let limit: Int
    private let lock = Lock()
    private var loaded: [HistoryEntry] = []
    private var session: [(entry: HistoryEntry, persist: Bool)] = []
    private var savedCount = 0

    public init(path: String?, limit: Int = 2000) {
        self.path = path
        self.limit = limit
    }

    /// Why the file there was not read (not this user's regular file, writable by others, past
    /// 16 MB), said once by the shell: its lines are not recalled, and the next save replaces it
    /// (but for one past 16 MB, which is kept).
    public private(set) var refusal: String?

    /// Reads the file (a missing file is an empty history).
    public func load() {
        guard let path else { return }
        var st = stat()
        if lstat(path, &st) == 0 {
            if !Self.isOwnRegularFile(path) {
                refusal = "\(path) is not read: not a regular file of this user that only you can write; the next save replaces it"
            } else if Self.isTooLarge(path) {
                refusal = "\(path) is not read: it is larger than 16 MB; move it aside to start a new one"
            }
        }
        let lines = Self.readEntries(path: path, limit: limit)
        lock.withLock { loaded = lines }
    }

    /// Adds a line typed in this shell; `persist == false` keeps it out of the file.
    public func add(_ line: String, persist: Bool, context: HistoryContext? = nil) {
        lock.withLock { session.append((HistoryEntry(line: line, context: context), persist)) }
    }

    /// The last line added stays out of the file (it ran as a usage error); recall still has it.
    public func keepLastOutOfFile() {
        lock.withLock {
            guard session.count > savedCount, let last = session.indices.last else { return }
            session[last].persist = false
        }
    }

    /// Everything recallable now, oldest first.
    public var entries: [String] { records.map(\.line) }

    /// Every entry with its context, oldest first.
    public var records: [HistoryEntry] { lock.withLock { loaded + session.map(\.entry) } }

    /// Whether a typed line may be written to the file. Aliases and `let NAME =` are looked
    /// through, so `let x = login …` or an alias for `login` stays out as well; so does a line
    /// with a secret-named `k=v` word or JSON member (`Redaction.isSecretName`), an `alias` whose
    /// body would be kept out, and a line the parser rejects (an unknown command: a password typed
    /// on its own line after a failed `login`; a usage error). Recall in this shell still offers every line.
    public static func shouldPersist(_ line: String, specs: [CommandSpec], aliases: AliasTable? = nil) -> Bool {
        if line.hasPrefix(" ") || line.hasPrefix("\t") { return false }
        // Read as the shell runs it (pipes and redirections are operators), else leniently.
        let typed = (try? Tokenizer.tokenize(line, lenient: false)) ?? (try? Tokenizer.tokenize(line, lenient: true)) ?? []
        for command in typed.flatMap({ aliases?.expand($0) ?? [$0] }) {
            guard let first = command.first else { continue }
            // The parser's own test: a command word it cannot name is "unknown command". A word
            // made by a variable (`$cmd`, `pa$word`) cannot be named before it runs, so it stays out.
            guard first.parts.isEmpty, specs.contains(where: { $0.matches(first.text) }) else { return false }
            var checked = command
            if command.count > 3, first.text == "let", command[2].text == "=" {
                checked = aliases?.expand(Array(command.dropFirst(3))).last ?? Array(command.dropFirst(3))
                // `let x = $y`, `let x = .path` or `let x = COMMAND…`; any other word runs as an unknown command.
                let head = checked[0]
                var isVariable = false
                if head.parts.count == 1, case .variable = head.parts[0] { isVariable = true }
                let isPath = checked.count == 1 && (head.text.hasPrefix(".") || head.text.hasPrefix("["))
                if !isVariable && !isPath && !specs.contains(where: { $0.matches(head.text) }) { return false }
            }
            // `watch so`, `compare … so`: the command they run, as they run it.
            if let aliases {
                do { checked = try aliases.expandingPassedCommand(checked, words: checked.map(\.text), parser: CommandParser(specs: specs)) } catch { return false }
            }
            if !isSafe(checked, specs: specs, aliases: aliases, depth: 0) { return false }
            // A line the parser rejects (a usage error: perhaps a password typed where a word was
            // expected) stays out. A word made by a variable is only known when the line runs.
            // What is piped or redirected to (`| jq`, `> file`) is the shell's, not the command's words.
            var words = (try? OutputTarget.split(checked))?.words ?? checked
            // `let x = COMMAND … .path`: the path is the shell's, not the command's.
            if checked.count < command.count, let last = words.last, last.text.hasPrefix(".") || last.text.hasPrefix("[") { words.removeLast() }
            if let head = words.first, specs.contains(where: { $0.matches(head.text) }), words.allSatisfy({ $0.parts.isEmpty }) {
                guard (try? CommandParser(specs: specs).parse(words.map(\.text))) != nil else { return false }
            }
        }
        return true
    }

    /// No secret word, no `neverInHistory` command or subcommand, no alias body that has either.
    private static func isSafe(_ command: [Token], specs: [CommandSpec], aliases: AliasTable?, depth: Int) -> Bool {
        guard let first = command.first?.text else { return true }
        // A password typed as a word (`post …/login password=…`, or in a JSON body) stays out.
        if command.contains(where: { SecretWord.carriesSecret($0.text) }) { return false }
        guard let spec = specs.first(where: { $0.matches(first) }) else { return true }
        if spec.neverInHistory { return false }
        // A subcommand may be marked too (`menus common …` is not, `login` is).
        var current = spec
        for word in command.dropFirst().map(\.text) {
            guard let sub = current.subcommand(word) else { break }
            if sub.neverInHistory { return false }
            current = sub
        }
        // `alias x='get … password=…'`: the body is read as the commands it will run.
        if spec.name == "alias", depth < 4 {
            for word in command.dropFirst().map(\.text) {
                guard let eq = word.firstIndex(of: "=") else { continue }
                let body = (try? Tokenizer.tokenize(String(word[word.index(after: eq)...]), lenient: true)) ?? []
                for inner in body.flatMap({ aliases?.expand($0) ?? [$0] })
                where !isSafe(inner, specs: specs, aliases: aliases, depth: depth + 1) {
                    return false
                }
            }
        }
        return true
    }

    /// How long `save` waits for another shell's save to finish.
    static let lockWaitMilliseconds = 3_000

    /// Appends this shell's unsaved persistable lines to what is on disk now and replaces the file.
    /// With `waiting` false (the save after each command) a lock another shell holds is not waited
    /// for: the lines stay unsaved for the next save.
    public func save(waiting: Bool = true) throws {
        guard let path else { return }
        let pending: [String] = lock.withLock {
            let new = session[savedCount...].filter(\.persist).map(\.entry.stored)
            return new
        }
        if pending.isEmpty { return }
        // Only the line editor records lines, so without libedit there are none to save; the check keeps
        // the wrappers from being called on a library that is not loaded, and the file as it is.
        if let why = Libedit.loadError { throw HistoryError("cannot save history: \(why)") }
        let dir = PathText.folder(of: path)
        if !dir.isEmpty { try Self.makeDirectory(dir) }

        // Never through a symlink: a planted `history.lock` link would make us create its target.
        let lockPath = path + ".lock"
        let lockFD = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else {
            let code = errno
            throw HistoryError("cannot save history: refusing \(lockPath): "
                + (code == ELOOP ? "it is a symbolic link" : String(cString: strerror(code))))
        }
        defer { _ = flock(lockFD, LOCK_UN); close(lockFD) }
        var lockStat = stat()
        guard fstat(lockFD, &lockStat) == 0, (lockStat.st_mode & S_IFMT) == S_IFREG, lockStat.st_uid == geteuid() else {
            throw HistoryError("cannot save history: refusing \(lockPath): not a regular file of this user")
        }
        // Bounded: a `history.lock` held by a stuck process must not keep this shell from ending.
        var waited = 0
        while flock(lockFD, LOCK_EX | LOCK_NB) != 0 {
            if !waiting && errno == EWOULDBLOCK { return }
            guard errno == EWOULDBLOCK || errno == EINTR, waited < Self.lockWaitMilliseconds else {
                throw HistoryError("cannot save history: \(lockPath) is held by another process (waited \(Self.lockWaitMilliseconds / 1000) s); this session's lines are not saved")
            }
            usleep(20_000)
            waited += 20
        }

        var event = HistEvent()
        guard let h = sxk_history_init() else { throw HistoryError("cannot start libedit history") }
        defer { sxk_history_end(h) }
        _ = sxk_history_setsize(h, &event, Int32(limit))
        if Self.isOwnRegularFile(path) {
            // Not read, and not replaced by this session's lines alone: the old lines are the user's.
            if Self.isTooLarge(path) { throw HistoryError("cannot save history: \(path) is larger than 16 MB; it was not read or changed (move it aside to start a new one)") }
            _ = sxk_history_load(h, &event, path)
        }
        for line in pending { _ = sxk_history_enter(h, &event, line) }

        let tmp = dir + "/.history.tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HistoryError("cannot write history in \(dir): \(String(cString: strerror(errno)))") }
        _ = fchmod(fd, 0o600)
        guard let fp = fdopen(fd, "w") else {
            close(fd)
            unlink(tmp)
            throw HistoryError("cannot write history in \(dir)")
        }
        errno = 0
        let count = sxk_history_save_fp(h, &event, fp)
        var failure: Int32 = count < 0 ? (errno != 0 ? errno : EIO) : 0
        if fflush(fp) != 0, failure == 0 { failure = errno }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        fclose(fp)
        if failure == 0, rename(tmp, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(tmp)
            throw HistoryError("cannot save history to \(path): \(String(cString: strerror(failure)))")
        }
        lock.withLock { savedCount = session.count }
    }

    /// Command lines of a libedit history file, oldest first.
    public static func read(path: String, limit: Int = 2000) -> [String] {
        readEntries(path: path, limit: limit).map(\.line)
    }

    /// Entries of a libedit history file with their contexts, oldest first.
    public static func readEntries(path: String, limit: Int = 2000) -> [HistoryEntry] {
        readStored(path: path, limit: limit).map(HistoryEntry.init(stored:))
    }

    /// Lines exactly as stored, oldest first.
    static func readStored(path: String, limit: Int) -> [String] {
        guard isOwnRegularFile(path), !isTooLarge(path), Libedit.loadError == nil, let h = sxk_history_init() else { return [] }
        defer { sxk_history_end(h) }
        var event = HistEvent()
        _ = sxk_history_setsize(h, &event, Int32(limit))
        guard sxk_history_load(h, &event, path) >= 0 else { return [] }
        var lines: [String] = []
        var rc = sxk_history_last(h, &event)
        while rc >= 0, let str = event.str {
            var line = String(cString: str)
            if line.hasSuffix("\n") { line.removeLast() }
            lines.append(line)
            rc = sxk_history_prev(h, &event)
        }
        return lines
    }

    /// Largest history file read: 2,000 lines of commands are far less; a bigger one (a pasted
    /// megabyte line, a file made by something else) would cost every start seconds and memory.
    static let maxFileBytes = 16 << 20

    static func isTooLarge(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && Int(st.st_size) > maxFileBytes
    }

    /// A history file is read only when it is a regular file of this user, not a link to another file
    /// (libedit's loader follows links), that no one else could have written (the state files' rule);
    /// one only readable by others is made 0600. The next save replaces anything refused.
    static func isOwnRegularFile(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid(), st.st_mode & 0o022 == 0 else { return false }
        if st.st_mode & 0o044 != 0 { _ = chmod(path, 0o600) }
        return true
    }

    static func makeDirectory(_ dir: String) throws {
        if PathText.isDirectory(dir) { return }
        let parent = PathText.folder(of: dir)
        if parent != dir, !parent.isEmpty { try makeDirectory(parent) }
        if mkdir(dir, 0o700) != 0 && errno != EEXIST {
            throw HistoryError("cannot create \(dir): \(String(cString: strerror(errno)))")
        }
        _ = chmod(dir, 0o700)
    }
}

/// A history file could not be read or written.
public struct HistoryError: Error, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}
