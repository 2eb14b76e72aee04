import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A dedicated thread for blocking work, run one job at a time in order: the line editor and secret
/// prompts (so neither the main actor nor the cooperative pool ever blocks), and the signal watcher's
/// read. The routed signals are delivered to the line reader's thread (`receivesSignals`).
final class ReaderThread: @unchecked Sendable {
    private let condition = Condition()
    private var jobs: [@Sendable () -> Void] = []

    /// `receivesSignals`: the thread unblocks the routed signals and becomes their receiver (the line
    /// reader); otherwise it blocks them, since it may be started (`ShellThreads.startEarly`) before
    /// `Shell.run` blocks them on its own thread, whose mask later threads inherit. Not waited for: a
    /// job posted before it runs waits in the queue, and a signal that comes first is handled on the
    /// thread it lands on (`SignalRouter`; before `SignalRouter.install`, by the default action).
    /// `stackSize` nil: the platform's default. The thread holds the object: both last as long as the
    /// process (a job may be posted to a thread whose creator has let go of it, as the watcher's is).
    init(name: String = "sxk-reader", receivesSignals: Bool = true, stackSize: Int? = 1 << 20) {
        let created = DetachedThread.start(name: name, stackSize: stackSize) { [self] in
            if receivesSignals { SignalRouter.becomeReceiver() } else { SignalRouter.setShellThreadMask(receiving: false) }
            loop()
        }
        guard created != 0 else { return }
        // No thread to be had (a process or user limit): the shell cannot read a line or see a
        // signal without it, so it ends here, with one line and exit 1, before anything has run.
        let line = "sxk: cannot start the \(name) thread: \(String(cString: strerror(created)))\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        _exit(1)
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Queues `job` on the thread and returns at once.
    func post(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on the reader thread and returns its result to the caller's task.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            post { continuation.resume(returning: body()) }
        }
    }
}
