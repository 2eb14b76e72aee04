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
                if let fd = Int32(String(decoding: DirectoryEntry.name(entry), as: UTF8.self)), fd != own { out.append(fd) }
            }
            closedir(dir)
            return out
        }
        let limit = min(Int32(clamping: sysconf(Int32(_SC_OPEN_MAX))), 65536)
        for fd in 0..<max(limit, 0) where fcntl(fd, F_GETFD) >= 0 { out.append(fd) }
        return out
    }
}

/// One `readdir` entry's name. The record is only as long as its name (`d_reclen`), so the name is
/// read up to its NUL through a pointer: copying `d_name` (a 256-byte field) can read past the end
/// of the directory buffer and fault when the record ends near a page boundary.
public enum DirectoryEntry {
    public static func name(_ entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let start = UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: UInt8.self)
        return Array(UnsafeBufferPointer(start: start, count: strlen(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self))))
    }
}
