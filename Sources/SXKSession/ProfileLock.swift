import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a profile's `.lock` file, held around every read-modify-write so two
/// shells on one profile do not clobber each other. Each acquisition opens its own descriptor, so
/// threads of one process exclude each other as well.
public struct ProfileLock: Sendable {
    public let path: String
    /// How long to wait for another holder before giving up.
    public let timeout: TimeInterval

    public init(path: String, timeout: TimeInterval = 10) {
        self.path = path
        self.timeout = timeout
    }

    /// Runs `body` while holding the lock.
    public func withLock<T>(_ body: () throws(SessionError) -> T) throws(SessionError) -> T {
        let fd = try acquire()
        defer {
            flock(fd, LOCK_UN)
            close(fd)
        }
        return try body()
    }

    /// Opens the lock file (0600, never through a symlink) and takes the lock, polling until `timeout`.
    public func acquire() throws(SessionError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path: path, op: "open lock file", errno: errno) }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_uid == geteuid(), (st.st_mode & 0o777) != 0o600 {
            _ = fchmod(fd, 0o600)
        }
        let deadline = Date().addingTimeInterval(timeout)
        var pause: useconds_t = 1_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                close(fd)
                throw .io(path: path, op: "lock", errno: code)
            }
            if Date() >= deadline {
                close(fd)
                throw .locked(path: path)
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        return fd
    }

    /// Releases a descriptor returned by `acquire()`.
    public func release(_ fd: Int32) {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
