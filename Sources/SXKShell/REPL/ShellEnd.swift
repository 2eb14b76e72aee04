#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Who ends a shell: its own end (its mode returned) or a SIGTERM/SIGHUP on the watcher's thread.
/// The first to claim it shuts the host down. A command that SIGTERM cancels returns on the shell's
/// thread while the watcher is still saving: that thread must neither shut the host down a second
/// time nor end the process with the command's status (130) before the watcher's `_exit(143)`.
final class ShellEnd: Sendable {
    /// 0 while the shell runs, -1 once its own end has begun, or the signal that claimed it.
    private let claim = Atomic<Int32>(0)
    /// A SIGTERM/SIGHUP that came after the shell's own end had begun.
    private let late = Atomic<Int32>(0)

    /// The shell's own end claims it; false when a signal got there first.
    func claimByShell() -> Bool {
        claim.compareExchange(expected: 0, desired: -1, ordering: .sequentiallyConsistent).exchanged
    }

    /// A terminating signal claims it; false when the shell's own end got there first, which then
    /// ends with `status(_:)`.
    func claim(bySignal sig: Int32) -> Bool {
        if claim.compareExchange(expected: 0, desired: sig, ordering: .sequentiallyConsistent).exchanged { return true }
        late.store(sig, ordering: .sequentiallyConsistent)
        return false
    }

    /// The shell's status, or 128 + a signal that came while the shell was ending: it was asked to end.
    func status(_ status: Int32) -> Int32 {
        let sig = late.load(ordering: .sequentiallyConsistent)
        return sig != 0 ? 128 + sig : status
    }

    /// The shell's thread, once a signal has claimed the end: the watcher's `_exit` comes as soon as
    /// it has saved what it keeps. Bounded (10 s), so a save that hangs still ends the process, with
    /// the signal's status.
    func waitForTheSignalsExit() -> Never {
        for _ in 0..<1_000 { usleep(10_000) }
        _exit(128 + claim.load(ordering: .sequentiallyConsistent))
    }
}
