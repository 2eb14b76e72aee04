#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain detached pthread running a closure: the threads sxk makes for blocking work (the line
/// reader, the signal watcher, a kept connection's exchange and the holder's workers; libcurl's
/// engine runs on a thread CCurl makes). Not a Foundation `Thread`: the first of those in a process cost ≈ 0.4 ms before its
/// closure ran, on the path of every one-shot's request. The new thread inherits the caller's
/// signal mask, as any pthread does.
public enum DetachedThread {
    /// Starts `body` on a thread named `name` (what ps, top and gdb show; the kernel keeps its first 15 bytes)
    /// with `stackSize` bytes of stack (nil: the platform's default). Returns the `pthread_create`
    /// error, 0 when the thread started.
    @discardableResult
    public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Int32 {
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attr, stackSize) }
        let context = Unmanaged.passRetained(Job(name: name, body: body)).toOpaque()
        #if canImport(Glibc)
        var handle = pthread_t()
        let created = pthread_create(&handle, &attr, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        #else
        var handle: pthread_t?
        let created = pthread_create(&handle, &attr, { raw in
            Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        #endif
        if created != 0 { Unmanaged<Job>.fromOpaque(context).release() }
        return created
    }

    private final class Job: @unchecked Sendable {
        let name: String, body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }

        func run() {
            DetachedThread.nameCurrent(name)
            body()
        }
    }

    /// Names the calling thread (a thread that goes on to other work than it was started for).
    public static func nameCurrent(_ name: String) {
        #if os(Linux)
        // The kernel's copy of the name (Glibc's module has no pthread_setname_np, which writes
        // this same file).
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = name.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        #endif
    }
}
