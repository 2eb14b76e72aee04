import Foundation
import Synchronization

/// A dedicated thread for blocking reads (line editor, secret prompts) so neither the main actor
/// nor the cooperative pool ever blocks. It is also the thread that receives SIGINT.
final class ReaderThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var thread: Thread?
    private let started = DispatchSemaphore(value: 0)

    init() {
        let t = Thread { [unowned self] in self.loop() }
        t.name = "sxk-reader"
        t.stackSize = 1 << 20
        thread = t
        t.start()
        started.wait()
    }

    private func loop() {
        SignalRouter.becomeReceiver()
        started.signal()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Runs `body` on the reader thread and returns its result to the caller's task.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            condition.lock()
            jobs.append { continuation.resume(returning: body()) }
            condition.signal()
            condition.unlock()
        }
    }
}
