import FoundationEssentials
import SXKCore
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
    /// A process that made a profile's folder and wrote nothing removes it at its end, lock file
    /// included, while holding the lock (`ProfileStorage.removeIfMadeAndUnused`): a lock taken on a
    /// file no longer at `path` is let go and taken again, the folder made again (0700) when it is gone.
    public func acquire() throws(SessionError) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = try lockedDescriptor(until: deadline)
            var held = stat(), now = stat()
            if fstat(fd, &held) == 0, stat(path, &now) == 0, held.st_ino == now.st_ino, held.st_dev == now.st_dev { return fd }
            release(fd)
        }
    }

    private func lockedDescriptor(until deadline: Date) throws(SessionError) -> Int32 {
        var fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0, errno == ENOENT, Self.makeFolder(PathText.folder(of: path), depth: 2) {
            fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard fd >= 0 else { throw .io(path: path, op: "open lock file", errno: errno) }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_uid == geteuid(), (st.st_mode & 0o777) != 0o600 {
            _ = fchmod(fd, 0o600)
        }
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

    /// Makes `folder` (0700), and up to `depth` folders above it that are missing (the state folder a
    /// process removed with the profile's); false when it cannot.
    private static func makeFolder(_ folder: String, depth: Int) -> Bool {
        if mkdir(folder, 0o700) == 0 || errno == EEXIST { return true }
        guard errno == ENOENT, depth > 0 else { return false }
        let parent = PathText.folder(of: folder)
        guard parent != folder, makeFolder(parent, depth: depth - 1) else { return false }
        return mkdir(folder, 0o700) == 0 || errno == EEXIST
    }

    /// Releases a descriptor returned by `acquire()`.
    public func release(_ fd: Int32) {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
