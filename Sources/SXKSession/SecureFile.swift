import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place that touches state files on disk: private folders (0700), private files (0600 from
/// creation, never trusting the umask), atomic replacement, refusal of unsafe files, and setting
/// corrupt files aside instead of overwriting them.
public struct SecureFile: Sendable {
    /// How strictly a file is checked when read.
    public enum Kind: Sendable {
        /// The token: a group/world-readable mode is refused as well.
        case secret
        /// Any other state file (defaults, accounts, …): one another user could have written
        /// (group or world-writable) is refused; one only they could read is made 0600 at once,
        /// with one warning.
        case state
    }

    /// What reading a file found.
    public enum ReadOutcome: Sendable, Equatable {
        case missing
        /// Not a file we may trust (symlink, not regular, other owner, loose secret); the reason is one phrase.
        case refused(String)
        /// Larger than `maxBytes`.
        case oversized(Int)
        case loaded(bytes: [UInt8], looseMode: Bool)
    }

    /// The largest state file read (16 MB); anything bigger is treated as corrupt.
    public static let defaultMaxBytes = 16 << 20

    public let warn: WarningSink
    public let clock: any WallClock
    public let maxBytes: Int

    public init(warn: @escaping WarningSink, clock: any WallClock = SystemClock(), maxBytes: Int = SecureFile.defaultMaxBytes) {
        self.warn = warn
        self.clock = clock
        self.maxBytes = maxBytes
        SecureFile.ignoreFileSizeSignal
    }

    /// A file-size limit (`prlimit --fsize`) must turn into a write error, not SIGXFSZ killing the shell.
    private static let ignoreFileSizeSignal: Void = {
        signal(SIGXFSZ, SIG_IGN)
    }()

    // MARK: Folders

    /// Creates `path` (and missing parents) with mode 0700. An existing `path` is refused, as ssh
    /// refuses its folder, when another user owns it or others can write it (they could have put
    /// files in it, or replace them); one only readable by others is tightened to 0700.
    /// `refusingLink`: a symbolic link there is refused, not followed (a profile's own folder: a link
    /// planted there would have its target made 0700 and filled with the profile's files).
    public func ensureDirectory(_ path: String, refusingLink: Bool = false) throws(SessionError) {
        // A profile folder another process made and left unused is removed at its end
        // (`ProfileStorage.removeIfMadeAndUnused`): one gone between the steps here is made again.
        var attempt = 0
        while true {
            do {
                return try ensureDirectoryOnce(path, refusingLink: refusingLink)
            } catch {
                attempt += 1
                guard attempt < 3, case .io(_, _, ENOENT) = error else { throw error }
            }
        }
    }

    private func ensureDirectoryOnce(_ path: String, refusingLink: Bool) throws(SessionError) {
        var st = stat()
        if refusingLink, lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK {
            throw .unsafeFolder(path: path, reason: "it is a symbolic link; a profile's folder is used as it is, never through a link")
        }
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw .io(path: path, op: "use folder", errno: ENOTDIR) }
            if let reason = SecureFile.unsafeFolderReason(st, path: path) { throw .unsafeFolder(path: path, reason: reason) }
            if (st.st_mode & 0o077) != 0 {
                if chmod(path, 0o700) != 0 { throw .io(path: path, op: "restrict folder", errno: errno) }
            }
            return
        }
        guard errno == ENOENT else { throw .io(path: path, op: "inspect folder", errno: errno) }
        let parent = SecureFile.directoryName(path)
        if parent != path && !parent.isEmpty {
            var pst = stat()
            if stat(parent, &pst) != 0 { try ensureDirectory(parent) }
        }
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw .io(path: path, op: "create folder", errno: errno) }
        if chmod(path, 0o700) != 0 { throw .io(path: path, op: "restrict folder", errno: errno) }
    }

    /// Why a state folder with this status must not be used, or nil when it is ours and only we can write it.
    static func unsafeFolderReason(_ st: stat, path: String) -> String? {
        if st.st_uid != geteuid() { return "it is owned by uid \(st.st_uid), not by you (uid \(geteuid()))" }
        let mode = st.st_mode & 0o7777
        if mode & 0o022 != 0 {
            return "others can write it (mode \(String(mode, radix: 8))); fix with: chmod go-w \(path)"
        }
        return nil
    }

    /// What a file's mode lets group and others do, as a message says it: "writable by group" (0620),
    /// "readable by group and others" (0644), "readable by others and writable by group" (0624).
    static func openness(_ permissions: mode_t) -> String {
        let granted = [(mode_t(0o044), "readable"), (0o022, "writable"), (0o011, "executable")]
            .filter { permissions & $0.0 != 0 }.map { (verb: $0.1, by: who(permissions & $0.0)) }
        func list(_ words: [String]) -> String {
            words.count <= 2 ? words.joined(separator: " and ") : words.dropLast().joined(separator: ", ") + " and " + words.last!
        }
        if let first = granted.first, granted.allSatisfy({ $0.by == first.by }) { return "\(list(granted.map(\.verb))) by \(first.by)" }
        return list(granted.map { "\($0.verb) by \($0.by)" })
    }

    /// "group", "others" or "group and others": whose bits of `bits` are set.
    static func who(_ bits: mode_t) -> String {
        switch (bits & 0o070 != 0, bits & 0o007 != 0) {
        case (true, true): return "group and others"
        case (true, false): return "group"
        default: return "others"
        }
    }

    // MARK: Reading

    /// A small file's bytes as they are, to compare them, not to trust them: not through a symlink,
    /// only a regular file of this user, whatever its mode; nothing changed, nothing said. nil when
    /// it cannot be read so, or is larger than `limit`.
    public func peek(_ path: String, limit: Int = 65_536) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid(), Int(st.st_size) <= limit else { return nil }
        guard case .bytes(let bytes) = FileBytes.readAll(fd, sizeHint: Int(st.st_size), limit: limit) else { return nil }
        return bytes
    }

    /// Reads a file without following a symlink and without blocking on a FIFO. `tighten: false`
    /// leaves a state file only others could read as it is (a read that must change nothing).
    public func read(_ path: String, kind: Kind, tighten: Bool = true) throws(SessionError) -> ReadOutcome {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            switch code {
            case ENOENT: return .missing
            case ELOOP: return .refused("it is a symbolic link")
            case ENXIO, EOPNOTSUPP: return .refused("it is not a regular file")
            case EACCES: return .refused("it is not readable by this user")
            default: throw .io(path: path, op: "open", errno: code)
            }
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io(path: path, op: "inspect", errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .refused("it is not a regular file") }
        guard st.st_uid == geteuid() else { return .refused("it is owned by another user (uid \(st.st_uid))") }
        var loose = (st.st_mode & 0o077) != 0
        let permissions = st.st_mode & 0o777
        // Spelled only when a message needs it: `String(_:radix:)` is generic code, costly in every start.
        func mode() -> String { String(permissions, radix: 8) }
        if loose && kind == .secret {
            return .refused("it is \(Self.openness(permissions)) (mode \(mode()))")
        }
        if loose && (st.st_mode & 0o022) != 0 {
            return .refused("\(Self.who(permissions & 0o022)) could have written it (mode \(mode()))")
        }
        if loose && tighten {
            // Only readable by others: what they could read is out already; make it private now.
            if fchmod(fd, 0o600) != 0 { throw .io(path: path, op: "restrict", errno: errno) }
            warn("\(path) was \(Self.openness(permissions)) (mode \(mode())); made private (0600)")
            loose = false
        }
        if Int(st.st_size) > maxBytes { return .oversized(Int(st.st_size)) }
        let bytes: [UInt8]
        switch FileBytes.readAll(fd, sizeHint: Int(st.st_size), limit: maxBytes) {
        case .bytes(let read): bytes = read
        case .tooLarge(let count):
            // It grew past the limit while being read: what it holds now, if that can be told.
            var now = stat()
            return .oversized(fstat(fd, &now) == 0 ? max(count, Int(now.st_size)) : count)
        case .failed(let code): throw .io(path: path, op: "read", errno: code)
        }
        return .loaded(bytes: bytes, looseMode: loose)
    }

    /// Reads and decodes a file, handling every bad case the same way: missing → nil; unsafe → one
    /// warning, nil; oversized or undecodable → set aside with one warning, nil. `decode` returns the
    /// value or the reason it is corrupt. `looseMode` tells whether a state file had a loose mode.
    /// `warnIfRefused: false` is for a read just before the file is replaced anyway.
    public func load<T>(
        _ path: String, kind: Kind, warnIfRefused: Bool = true, decode: ([UInt8]) -> Result<T, CorruptReason>
    ) throws(SessionError) -> (value: T, looseMode: Bool)? {
        switch try read(path, kind: kind) {
        case .missing:
            return nil
        case .refused(let reason):
            let consequence = kind == .secret ? "; treated as logged out" : "; ignored (replaced at the next save)"
            if warnIfRefused { warn("refusing \(path): \(reason)\(consequence)") }
            return nil
        case .oversized(let size):
            setAside(path, reason: "larger than \(maxBytes >> 20) MB (\(size) bytes)")
            return nil
        case .loaded(let bytes, let loose):
            switch decode(bytes) {
            case .success(let value): return (value, loose)
            case .failure(let corrupt):
                setAside(path, reason: corrupt.reason)
                return nil
            }
        }
    }

    /// Why a file's content cannot be used.
    public struct CorruptReason: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    // MARK: Writing

    /// Replaces `path` atomically: a 0600 temp file in the same folder, all bytes written, fsync,
    /// rename over `path`, fsync of the folder. On any failure the old file is untouched.
    /// `durable: false` leaves out both fsyncs, for a cache whose loss costs nothing but itself: a
    /// reader still sees the old file or the new one whole, but after a crash of the machine the file
    /// may be the old one or empty (its reader then has nothing, and the next write puts it back).
    /// A file larger than `maxBytes` is refused before anything is written: every reader of these
    /// files would set it aside as corrupt.
    public func writeAtomically(_ path: String, bytes: [UInt8], durable: Bool = true) throws(SessionError) {
        guard bytes.count <= maxBytes else {
            throw .rejected("cannot write \(path): \(bytes.count) bytes, more than the \(maxBytes >> 20) MB sxk reads back; nothing was written")
        }
        let dir = SecureFile.directoryName(path)
        let temp = dir + "/." + SecureFile.baseName(path) + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path: path, op: "create a temporary file for", errno: errno) }
        func fail(_ op: String, _ code: Int32) -> SessionError {
            close(fd)
            unlink(temp)
            return .io(path: path, op: op, errno: code)
        }
        if fchmod(fd, 0o600) != 0 { throw fail("restrict", errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                posixWrite(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail("write", errno)
            }
            if n == 0 { throw fail("write", EIO) }
            written += n
        }
        if durable, fsync(fd) != 0 { throw fail("flush", errno) }
        if close(fd) != 0 {
            let code = errno
            unlink(temp)
            throw .io(path: path, op: "write", errno: code)
        }
        if rename(temp, path) != 0 {
            let code = errno
            unlink(temp)
            throw .io(path: path, op: "replace", errno: code)
        }
        if durable { SecureFile.syncDirectory(dir) }
    }

    /// Removes a file; a missing one is fine.
    public func remove(_ path: String) throws(SessionError) {
        if unlink(path) != 0 && errno != ENOENT { throw .io(path: path, op: "remove", errno: errno) }
        SecureFile.syncDirectory(SecureFile.directoryName(path))
    }

    /// The set-aside copies of `path` (`NAME.corrupt-…`), which a token's may still hold a token in.
    public static func setAsideCopies(of path: String) -> [String] {
        let dir = directoryName(path), prefix = baseName(path) + ".corrupt-"
        return (entries(of: dir) ?? []).filter { $0.hasPrefix(prefix) }.sorted().map { dir + "/" + $0 }
    }

    /// Renames a corrupt file to `NAME.corrupt-<yyyyMMddHHmmss>` (never overwriting an earlier one)
    /// and warns once, naming the file. Returns the new path, or nil if it could not be moved.
    @discardableResult
    public func setAside(_ path: String, reason: String) -> String? {
        let stamp = SecureFile.stamp(clock.now())
        var target = "\(path).corrupt-\(stamp)"
        var n = 1
        var st = stat()
        while lstat(target, &st) == 0 {
            target = "\(path).corrupt-\(stamp)-\(n)"
            n += 1
        }
        if rename(path, target) == 0 {
            SecureFile.syncDirectory(SecureFile.directoryName(path))
            warn("\(path) is corrupt (\(reason)); moved aside to \(SecureFile.baseName(target))")
            return target
        }
        let code = errno
        warn("\(path) is corrupt (\(reason)) and could not be moved aside: \(String(cString: strerror(code))); ignored")
        return nil
    }

    /// Deletes `.NAME.tmp-<pid>-*` files left by a process that died mid-write (live writers are skipped).
    @discardableResult
    public func cleanTemporaryFiles(in dir: String) -> [String] {
        guard let names = Self.entries(of: dir) else { return [] }
        var removed: [String] = []
        for name in names where name.hasPrefix(".") {
            guard let range = name.range(ofBytes: ".tmp-") else { continue }
            let rest = name[range.upperBound...]
            let pidText = rest.prefix { $0.isNumber }
            if let pid = Int32(pidText), pid > 0 {
                if pid == getpid() { continue }
                if kill(pid, 0) == 0 || errno == EPERM { continue }
            }
            if unlink(dir + "/" + name) == 0 { removed.append(name) }
        }
        return removed
    }

    // MARK: Helpers

    /// The names in `dir` (not `.` and `..`), nil when it cannot be read. `readdir`, not
    /// `FileManager.contentsOfDirectory`: its first call looks up a conformance across the binary's
    /// records (≈ 0.15 ms of every start, which opens the profile).
    static func entries(of dir: String) -> [String]? {
        guard let stream = opendir(dir) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = String(decoding: DirectoryEntry.name(entry), as: UTF8.self)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func directoryName(_ path: String) -> String {
        let folder = PathText.folder(of: path)
        return folder.isEmpty ? "." : folder
    }

    static func baseName(_ path: String) -> String { PathText.name(of: path) }

    static func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// `yyyyMMddHHmmss` in the local time zone.
    static func stamp(_ date: Date) -> String { LocalTime.compact(date) }
}

#if canImport(Glibc)
private let posixWrite = Glibc.write
#elseif canImport(Darwin)
private let posixWrite = Darwin.write
#endif
