#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes of several state files that belong together (an import's keys and its token, a login's token
/// and account keys): an interrupt or a SIGTERM lets one in progress finish before the shell gives up on
/// its command or the process ends, so no half of it is left on disk (one device's keys beside another's token).
public enum StateWrites {
    private static let lock = Lock()
    nonisolated(unsafe) private static var running = 0

    nonisolated(unsafe) private static var ended = 0

    /// True while such a write runs.
    public static var inProgress: Bool { lock.withLock { running > 0 } }

    /// How many such writes have ended so far: a later count than one taken before says one ended since.
    public static var endedCount: Int { lock.withLock { ended } }

    /// Waits while such a write runs, at most `seconds` by the clock (a write stuck on a dead disk or
    /// another process's lock does not hold the process's end for good); `waiting` runs once when the
    /// wait has lasted half a second, so a long one is said. True when none runs any more.
    @discardableResult
    public static func waitForNone(atMost seconds: Double, waiting: () -> Void = {}) -> Bool {
        let start = ContinuousClock.now
        var said = false
        while inProgress {
            let waited = ContinuousClock.now - start
            if waited >= .milliseconds(Int(seconds * 1000)) { return false }
            if !said, waited >= .milliseconds(500) {
                said = true
                waiting()
            }
            usleep(5_000)
        }
        return true
    }

    /// Runs `body` as one such write.
    public static func together<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.withLock { running += 1 }
        defer { lock.withLock { running -= 1; ended += 1 } }
        return try body()
    }
}
