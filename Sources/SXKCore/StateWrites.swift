/// Writes of several state files that belong together (an import's keys and its token): an interrupt
/// lets one in progress finish before the shell gives up on its command or the process ends, so no
/// half of it is left on disk (one device's keys beside another's token).
public enum StateWrites {
    private static let lock = Lock()
    nonisolated(unsafe) private static var running = 0

    /// True while such a write runs.
    public static var inProgress: Bool { lock.withLock { running > 0 } }

    /// Runs `body` as one such write.
    public static func together<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.withLock { running += 1 }
        defer { lock.withLock { running -= 1 } }
        return try body()
    }
}
