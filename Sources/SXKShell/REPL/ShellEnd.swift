#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Who ends a shell: its own end (its mode returned) or a SIGTERM/SIGHUP on the watcher's thread.
/// The first to claim it shuts the host down. A command that SIGTERM cancels returns on the shell's
/// thread while the watcher is still saving: that thread must neither shut the host down a second
/// time, nor start or report anything more, nor end the process with the command's status (130)
/// before the watcher's `_exit(143)`.
final class ShellEnd: Sendable {
    /// 0 while the shell runs, -1 once its own end has begun, or the signal that claimed it.
    private let claim = Atomic<Int32>(0)
    /// A SIGTERM/SIGHUP that came after the shell's own end had begun.
    private let late = Atomic<Int32>(0)

    /// The shell's own end claims it; false when a signal got there first.
    func claimByShell() -> Bool {
        let (exchanged, original) = claim.compareExchange(expected: 0, desired: -1, ordering: .sequentiallyConsistent)
        return exchanged || original == -1
    }

    /// A terminating signal claims it; false when the shell's own end got there first, which then
    /// ends with `status(_:)`.
    func claim(bySignal sig: Int32) -> Bool {
        if claim.compareExchange(expected: 0, desired: sig, ordering: .sequentiallyConsistent).exchanged { return true }
        late.store(sig, ordering: .sequentiallyConsistent)
        return false
    }

    /// A signal has claimed the end: the shell's thread starts nothing more and waits for its exit.
    var signalled: Bool { claim.load(ordering: .sequentiallyConsistent) > 0 }

    /// The shell's status, or 128 + a signal that came while the shell was ending (it was asked to
    /// end). One that comes after this is read is dropped: the process is past its last write.
    func status(_ status: Int32) -> Int32 {
        let sig = late.load(ordering: .sequentiallyConsistent)
        return sig != 0 ? 128 + sig : status
    }

    /// The shell's thread, once a signal has claimed the end: the watcher's `_exit` comes as soon as
    /// it has saved what it keeps. Bounded (10 s), so a save that hangs still ends the process, with
    /// the signal's status, after `restore` (the terminal's mode).
    func waitForTheSignalsExit(restore: () -> Void) -> Never {
        for _ in 0..<1_000 { usleep(10_000) }
        restore()
        _exit(128 + claim.load(ordering: .sequentiallyConsistent))
    }
}
