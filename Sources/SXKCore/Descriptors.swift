#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Open descriptors and children: a program sxk starts (the pager) gets stdin, stdout and stderr
/// only, never a connection to the backend, a lock or a library's internal pipe.
public enum Descriptors {
    /// Marks every open descriptor from `lowest` up close-on-exec. sxk opens its own with
    /// O_CLOEXEC / SOCK_CLOEXEC; this catches those a library made without (libcurl's wake-up
    /// socket pair), and runs before each child is started.
    public static func markCloseOnExec(from lowest: Int32 = 3) {
        for fd in openDescriptors() where fd >= lowest {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// The descriptors open now (from `/proc/self/fd`, else every number below the limit that is valid).
    public static func openDescriptors() -> [Int32] {
        var out: [Int32] = []
        if let dir = opendir("/proc/self/fd") {
            let own = dirfd(dir)
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if let fd = Int32(name), fd != own { out.append(fd) }
            }
            closedir(dir)
            return out
        }
        let limit = min(Int32(clamping: sysconf(Int32(_SC_OPEN_MAX))), 65536)
        for fd in 0..<max(limit, 0) where fcntl(fd, F_GETFD) >= 0 { out.append(fd) }
        return out
    }
}
