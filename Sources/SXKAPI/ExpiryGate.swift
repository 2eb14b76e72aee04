import FoundationEssentials
import SXKCore

/// Collapses concurrent session-expiry answers into one notification.
///
/// Each request records the gate's epoch when it is sent. The first expiry answer whose epoch is
/// still current advances the epoch and notifies; answers to requests sent before that (same
/// epoch, now stale) and answers carrying a token already reported expired stay silent. A request
/// sent after a new login has the new epoch, so a later expiry notifies again.
final class ExpiryGate: @unchecked Sendable {
    private let lock = Lock()
    private var epoch = 0
    private var generation = 0
    private var lastExpiredToken: String?

    var currentEpoch: Int { lock.withLock { epoch } }

    /// The generation number to report, or nil when this expiry was already reported.
    func report(sentAtEpoch sentEpoch: Int, token: String) -> Int? {
        lock.withLock {
            if token == lastExpiredToken || sentEpoch != epoch { return nil }
            epoch += 1
            generation += 1
            lastExpiredToken = token
            return generation
        }
    }
}

/// The token provider, replaceable after construction (the app binds its session store later).
final class TokenSource: @unchecked Sendable {
    private let lock = Lock()
    private var provider: @Sendable () -> String?
    init(_ provider: @escaping @Sendable () -> String?) { self.provider = provider }
    func set(_ provider: @escaping @Sendable () -> String?) { lock.withLock { self.provider = provider } }
    func current() -> String? {
        let p = lock.withLock { provider }
        guard let token = p(), !token.isEmpty else { return nil }
        return token
    }
}
