#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file sxk writes where the user points it (`--har FILE`, `har save FILE`, a `> FILE`
/// redirection): `-` is standard output, a new name is created with mode 0600, an existing regular
/// file (or a symbolic link to one) is written over in place, and `/dev/null` discards. Anything else
/// is refused before it is opened for writing — a FIFO (a reader could be waiting on it, or none: a
/// hang), any other device (`/dev/full`, a terminal: output for a file would reach a screen
/// unfiltered), a socket, a directory, or a link to one of them — so sxk never turns a special file
/// into a regular one nor blocks on it.
public final class OutputFile: @unchecked Sendable {
    /// The open descriptor (close-on-exec); `STDOUT_FILENO` for `-`.
    public let fd: Int32
    /// Whether this is standard output (not closed by `close`).
    public let isStandardOutput: Bool
    public let path: String
    private var closed = false

    private init(fd: Int32, isStandardOutput: Bool, path: String) {
        self.fd = fd
        self.isStandardOutput = isStandardOutput
        self.path = path
    }

    /// A file never closed (an error on the way) is closed here, unsynced.
    deinit { if !closed && !isStandardOutput { _ = posixClose(fd) } }

    /// Why `path` cannot be written, as one phrase (`it is a FIFO`), or nil when it may be: a new
    /// name, a regular file, `/dev/null`, a link to one, or `-`. Checks without creating or opening anything.
    public static func refusal(_ path: String) -> String? {
        if path == "-" { return nil }
        if path.isEmpty { return "no file name" }
        var st = stat()
        if stat(path, &st) != 0 {
            let code = errno
            var link = stat()
            // A dangling link: creating through it would make a file somewhere else.
            if lstat(path, &link) == 0 { return "it is a symbolic link to a missing file" }
            return code == ENOENT ? nil : String(cString: strerror(code))
        }
        return kindRefusal(st)
    }

    /// Why a file to be read cannot be (missing, unreadable, a folder), or nil.
    public static func readRefusal(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return String(cString: strerror(errno)) }
        if (st.st_mode & S_IFMT) == S_IFDIR { return "it is a directory" }
        return access(path, R_OK) == 0 ? nil : String(cString: strerror(errno))
    }

    /// `refusal`, and for a file written later (at exit): a new name needs a folder that exists and
    /// can be written, checked now so the run is refused before its work rather than its file lost.
    public static func laterWriteRefusal(_ path: String) -> String? {
        if path == "-" { return nil }
        if let reason = refusal(path) { return reason }
        guard access(path, F_OK) != 0 else { return access(path, W_OK) == 0 ? nil : String(cString: strerror(errno)) }
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var st = stat()
        guard stat(folder, &st) == 0 else { return "its folder: \(String(cString: strerror(errno)))" }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { return "its folder is not a folder" }
        return access(folder, W_OK | X_OK) == 0 ? nil : "its folder: \(String(cString: strerror(errno)))"
    }

    /// Checks `path` (as `refusal`) and opens it for writing: truncated, or with `append` (`>> FILE`)
    /// added to at its end. The check is repeated on the open descriptor, so a file swapped in
    /// between is refused too.
    public static func open(_ path: String, append: Bool = false) throws(OutputFileError) -> OutputFile {
        if path == "-" { return OutputFile(fd: STDOUT_FILENO, isStandardOutput: true, path: path) }
        if let reason = refusal(path) { throw OutputFileError(path: path, reason: reason) }
        // A new name: created here, never through a link.
        let appending = append ? O_APPEND : 0
        var fd = posixOpen(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | appending, 0o600)
        if fd >= 0 { return OutputFile(fd: fd, isStandardOutput: false, path: path) }
        guard errno == EEXIST else { throw OutputFileError(path: path, reason: String(cString: strerror(errno))) }
        // An existing name: opened without blocking (a FIFO put there since the check fails with
        // ENXIO instead of waiting for a reader) and without taking a terminal, then checked again.
        fd = posixOpen(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | appending)
        guard fd >= 0 else {
            let code = errno
            throw OutputFileError(path: path, reason: code == ENXIO ? "it is a FIFO or a device" : String(cString: strerror(code)))
        }
        var st = stat()
        if fstat(fd, &st) != 0 || kindRefusal(st) != nil {
            let reason = kindRefusal(st) ?? String(cString: strerror(errno))
            _ = posixClose(fd)
            throw OutputFileError(path: path, reason: reason)
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        // The null device has nothing to empty (ftruncate refuses it).
        let regular = (st.st_mode & S_IFMT) == S_IFREG
        guard append || !regular || ftruncate(fd, 0) == 0 else {
            let code = errno
            _ = posixClose(fd)
            throw OutputFileError(path: path, reason: String(cString: strerror(code)))
        }
        return OutputFile(fd: fd, isStandardOutput: false, path: path)
    }

    /// Hands the descriptor to the caller, who closes it (a redirection's file).
    public func detach() -> Int32 {
        closed = true
        return fd
    }

    /// Writes every byte (retrying short writes and EINTR).
    public func write(_ bytes: [UInt8]) throws(OutputFileError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { posixWrite(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputFileError(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { throw OutputFileError(path: path, reason: String(cString: strerror(EIO))) }
            written += n
        }
    }

    /// Flushes a file to disk and closes it (standard output stays open); a second call does nothing.
    public func close() throws(OutputFileError) {
        if isStandardOutput || closed { return }
        closed = true
        let synced = fsync(fd) == 0 || errno == EINVAL
        let code = errno
        let closed = posixClose(fd) == 0
        if !synced { throw OutputFileError(path: path, reason: String(cString: strerror(code))) }
        if !closed { throw OutputFileError(path: path, reason: String(cString: strerror(errno))) }
    }

    /// `open`, `write` and `close` in one.
    public static func write(_ bytes: [UInt8], to path: String) throws(OutputFileError) {
        let file = try open(path)
        do {
            try file.write(bytes)
        } catch {
            try? file.close()
            throw error
        }
        try file.close()
    }

    private static func kindRefusal(_ st: stat) -> String? {
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        // `> /dev/null` is how output is thrown away: it never blocks, fills or shows anything.
        // Known by its device number, not its name, so only the null device itself passes.
        case S_IFCHR where nullDevice == st.st_rdev: return nil
        case S_IFDIR: return "it is a directory"
        case S_IFIFO: return "it is a FIFO"
        case S_IFSOCK: return "it is a socket"
        case S_IFCHR, S_IFBLK: return "it is a device"
        default: return "it is not a regular file"
        }
    }

    /// The device number of `/dev/null`, when it is the character device it should be.
    private static let nullDevice: dev_t? = {
        var st = stat()
        guard stat("/dev/null", &st) == 0, (st.st_mode & S_IFMT) == S_IFCHR else { return nil }
        return st.st_rdev
    }()
}

/// A file the user named cannot be written; `description` is the one line shown.
public struct OutputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "refusing to write \(path): \(reason)" }
}

#if canImport(Glibc)
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { Glibc.open(path, flags, mode) }
private let posixWrite = Glibc.write
private let posixClose = Glibc.close
#elseif canImport(Darwin)
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { Darwin.open(path, flags, mode) }
private let posixWrite = Darwin.write
private let posixClose = Darwin.close
#endif
