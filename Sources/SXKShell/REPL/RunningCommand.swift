import Foundation

/// The command Task in flight, so Ctrl-C can cancel it. If the command ignores cancellation the
/// runner stops waiting after a grace period and returns to the prompt anyway.
final class RunningCommand: @unchecked Sendable {
    /// How the command ended: its status, or what it threw. Not `Result<Int32, any Error>`: that
    /// type's metadata is made at the first command of a process, and checking its `Error`
    /// requirement then looks across every conformance record of the binary (≈ 0.2 ms).
    enum CommandEnd: Sendable {
        case finished(Int32)
        case failed(any Error)
    }

    private let lock = NSLock()
    private var cancelAction: (() -> Void)?
    /// An interrupt that came while no command could be cancelled, kept for the next one (`cancel(orNext:)`).
    private var interruptedBeforeStart = false
    static let grace: TimeInterval = 0.2

    func run(_ body: @escaping @Sendable () async throws -> Int32) async -> CommandEnd {
        let gate = Gate()
        SignalRouter.commandActive.store(true, ordering: .sequentiallyConsistent)
        defer {
            SignalRouter.commandActive.store(false, ordering: .sequentiallyConsistent)
            lock.withLock {
                cancelAction = nil
                interruptedBeforeStart = false
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<CommandEnd, Never>) in
            gate.set(continuation)
            let task = Task {
                do { gate.resume(.finished(try await body())) } catch { gate.resume(.failed(error)) }
            }
            let cancelNow: (() -> Void)? = lock.withLock {
                cancelAction = {
                    task.cancel()
                    DispatchQueue.global().asyncAfter(deadline: .now() + RunningCommand.grace) {
                        gate.resume(.failed(CancellationError()))
                    }
                }
                defer { interruptedBeforeStart = false }
                return interruptedBeforeStart ? cancelAction : nil
            }
            cancelNow?()
        }
    }

    /// Cancels the running command. `orNext`: an interrupt that comes while none can be cancelled yet
    /// (before the command's task exists, or between a script's commands) cancels the next one as it
    /// starts, so a one-shot or a script stops as asked; the REPL's prompt handles its own Ctrl-C, so
    /// there it is dropped. Kept only until that next command ends.
    func cancel(orNext: Bool = false) {
        let action: (() -> Void)? = lock.withLock {
            if cancelAction == nil && orNext { interruptedBeforeStart = true }
            return cancelAction
        }
        action?()
    }

    /// Resumes the continuation once, whoever comes first (the command or the grace timer).
    private final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<CommandEnd, Never>?
        func set(_ c: CheckedContinuation<CommandEnd, Never>) { lock.withLock { continuation = c } }
        func resume(_ value: CommandEnd) {
            let c: CheckedContinuation<CommandEnd, Never>? = lock.withLock {
                defer { continuation = nil }
                return continuation
            }
            c?.resume(returning: value)
        }
    }
}
