import FoundationEssentials
import SXKCore
import Dispatch

/// The command Task in flight, so Ctrl-C can cancel it. If the command ignores cancellation the
/// runner stops waiting after a grace period and returns to the prompt anyway, unless a pager is
/// running: that owns the terminal until it quits, and the command ends with it.
final class RunningCommand: @unchecked Sendable {
    /// How the command ended: its status, or what it threw.
    enum CommandEnd: Sendable {
        case finished(Int32)
        case failed(any Error)
    }

    private let lock = Lock()
    /// The running command's cancel, false once that command has ended; `generation` tells a command
    /// from the next one.
    private var current: (generation: Int, cancel: () -> Bool)?
    private var generation = 0
    /// An interrupt that came while no command could be cancelled, kept for the next one (`cancel(orNext:)`).
    private var interruptedBeforeStart = false
    static let grace: TimeInterval = 0.2
    static let afterWriteGrace: TimeInterval = 5

    func run(_ body: @escaping @Sendable () async throws -> Int32) async -> CommandEnd {
        let gate = Gate()
        SignalRouter.commandActive.store(true, ordering: .sequentiallyConsistent)
        var mine = 0
        defer {
            lock.withLock { if current?.generation == mine { current = nil } }
            SignalRouter.commandActive.store(false, ordering: .sequentiallyConsistent)
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<CommandEnd, Never>) in
            gate.set(continuation)
            let task = Task {
                do { gate.resume(.finished(try await body())) } catch { gate.resume(.failed(error)) }
            }
            let cancel: () -> Bool = {
                guard !gate.hasEnded else { return false }
                // A write that ends after this (one already running) is the command's to report.
                let writesBefore = StateWrites.endedCount
                task.cancel()
                RunningCommand.giveUp(gate, after: RunningCommand.grace, writesBefore: writesBefore)
                return true
            }
            // An interrupt kept while the task was being made (`cancel(orNext:)`) cancels it now.
            let cancelNow: Bool = lock.withLock {
                generation += 1
                mine = generation
                current = (mine, cancel)
                defer { interruptedBeforeStart = false }
                return interruptedBeforeStart
            }
            if cancelNow { _ = cancel() }
        }
    }

    /// Ends the wait for an interrupted command after `delay`, or once no pager runs (the command,
    /// which waits for its pager, usually ends first).
    private static func giveUp(_ gate: Gate, after delay: TimeInterval, writesBefore: Int? = nil) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            guard !gate.hasEnded else { return }
            // A pager owns the terminal until it quits; a write of state files that belong together
            // finishes first (`StateWrites`), or half of it would stay on disk.
            if PagerProcess.isRunning || StateWrites.inProgress { return giveUp(gate, after: 0.05, writesBefore: writesBefore) }
            // Once such a write has ended since the interrupt, the command has what it wrote to say: it
            // gets time for that (an import's report of 150,000 keys takes a while), not the short grace.
            if let writesBefore, StateWrites.endedCount > writesBefore { return giveUp(gate, after: RunningCommand.afterWriteGrace) }
            gate.resume(.failed(CancellationError()))
        }
    }

    /// Cancels the running command. `orNext`: an interrupt that comes while none can be cancelled (before
    /// the command's task exists, after it ended, between a script's commands) is kept for the next one:
    /// `takeKeptInterrupt` before it starts, or `run` as it starts, so a one-shot or a script stops as
    /// asked. The REPL's prompt handles its own Ctrl-C, so there it is dropped.
    func cancel(orNext: Bool = false) {
        var tried = -1
        while true {
            // Kept under the same lock `run` installs under: a command that starts meanwhile is cancelled.
            let entry: (generation: Int, cancel: () -> Bool)? = lock.withLock {
                if let entry = current, entry.generation != tried { return entry }
                if orNext { interruptedBeforeStart = true }
                return nil
            }
            guard let entry else { return }
            if entry.cancel() {
                // A command whose output is all delivered and that only waits for its pager to quit ends
                // as it would have: the interrupt is kept for the next one, which it stops (the pager's
                // quit is not a command the Ctrl-C could stop).
                if orNext, PagerProcess.isRunning { lock.withLock { interruptedBeforeStart = true } }
                return
            }
            tried = entry.generation
        }
    }

    /// True, once, when an interrupt was kept for the next command.
    func takeKeptInterrupt() -> Bool {
        lock.withLock {
            defer { interruptedBeforeStart = false }
            return interruptedBeforeStart
        }
    }

    /// Resumes the continuation once, whoever comes first (the command or the grace timer).
    private final class Gate: @unchecked Sendable {
        private let lock = Lock()
        private var continuation: CheckedContinuation<CommandEnd, Never>?
        private var ended = false
        func set(_ c: CheckedContinuation<CommandEnd, Never>) { lock.withLock { continuation = c } }
        var hasEnded: Bool { lock.withLock { ended } }
        func resume(_ value: CommandEnd) {
            let c: CheckedContinuation<CommandEnd, Never>? = lock.withLock {
                defer { continuation = nil }
                ended = true
                return continuation
            }
            c?.resume(returning: value)
        }
    }
}
