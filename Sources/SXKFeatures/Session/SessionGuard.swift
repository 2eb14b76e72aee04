import FoundationEssentials
import SXKAPI
import SXKSession
import SXKCore
import Synchronization

/// The one place a session ends (seed 001 logout and `sessionDidExpire`): token and snapshot cleared,
/// every context reset, preferences kept. Expiries seen by several calls at once reset once.
public final class SessionGuard: @unchecked Sendable {
    /// The one line shown when the server ends the session.
    public static let expiredNotice = "session expired — run login"
    /// The same on a device snapshot, whose stored state stays as imported.
    public static let snapshotExpiredNotice = "session expired: the server rejects this device snapshot's token; the snapshot stays as imported"

    public let contexts: SessionContexts
    private let lock = Lock()
    private var resetHooks: [@Sendable () -> Void] = []
    private var resets = 0
    private var lastResetExpired = false

    public init(contexts: SessionContexts) { self.contexts = contexts }

    /// The stored token, when the server rejected it in this process. This process never sends it
    /// again (`SessionBootstrapper.restore` leaves it out; the replays answer with the rejection): a
    /// device snapshot keeps it on disk as imported, and so does a profile whose token only a replay
    /// saw rejected (replays write nothing); any other rejection clears it on disk as the app does.
    /// Kept for the process, not for this guard: `env use` and `import-defaults` make new services,
    /// and coming back to the profile finds the token still known.
    public var rejectedToken: String? {
        guard let stored = try? contexts.store.token(), isRejected(stored) else { return nil }
        return stored
    }

    /// Whether the server rejected `token` in this process.
    public func isRejected(_ token: String?) -> Bool {
        guard let token else { return false }
        return Self.rejectedInProcess.withLock { $0.contains(token) }
    }
    private static let rejectedInProcess = Mutex<Set<String>>([])

    /// Whose session a stored token is, asked each time a token is about to be used (`restore`, a
    /// replay, the prompt): nil when this process may send it; otherwise the backend it belongs to and
    /// the line a command that needs the session says. Set by `AppServices` from the profile's
    /// `backend.json` as it is on disk then, so a token another process stores later (a login on
    /// another backend) is judged too: a token goes only to the backend that issued it.
    public var ownerCheck: (@Sendable () -> WithheldToken?)? {
        get { lock.withLock { check } }
        set { lock.withLock { check = newValue } }
    }
    private var check: (@Sendable () -> WithheldToken?)?

    public struct WithheldToken: Sendable {
        /// The backend the session belongs to (`release`, a base URL), or what is known of it.
        public let owner: String
        /// The one line a command that needs the session says.
        public let note: String
        public init(owner: String, note: String) { self.owner = owner; self.note = note }
    }

    /// Why `token` (a stored one: the record judges the profile's) is not sent by this process to its
    /// backend, nil when it may be.
    public func withheld(_ token: String?) -> WithheldToken? {
        guard token != nil, let check = ownerCheck else { return nil }
        return check()
    }

    /// `withheld` for the token the profile stores now.
    public var withheldStoredToken: WithheldToken? { withheld(try? contexts.store.token()) }

    /// Whether this process keeps `token` from its backend (another backend's session).
    public func withholds(_ token: String?) -> Bool { withheld(token) != nil }

    /// The line to say for a command that needs the session, when the stored token is withheld or
    /// was rejected: nil when neither.
    public var unusableTokenNote: String? {
        if let withheld = withheldStoredToken { return withheld.note }
        if rejectedToken != nil { return "not logged in: the server rejected this profile's token earlier (kept, not sent again) — run `login`" }
        return nil
    }

    /// How many times the session was reset (logout or expiry), for tests and `whoami`.
    public var resetCount: Int { lock.withLock { resets } }

    /// Whether the last reset was the server's rejection of the token (not a logout): `whoami` says
    /// the token was rejected in this process.
    public var endedByRejection: Bool { lock.withLock { lastResetExpired } }

    /// Registers in-memory state to drop at every reset (the login's temporary token, caches).
    public func onReset(_ hook: @escaping @Sendable () -> Void) { lock.withLock { resetHooks.append(hook) } }

    /// Clears token and snapshot, resets the contexts and the session; keeps last phone and privacy flag.
    /// Storage failures do not stop the in-memory reset; the first one is returned.
    @discardableResult
    public func reset() -> SessionError? {
        lock.withLock { resetLocked() }
    }

    /// What is cleared on disk is the app model's plan: `AppModel.logout`, or `AppModel.sessionExpired`
    /// when the server ended the session (the same keys).
    /// Resets the contexts and the session (and runs the reset hooks) without touching what is
    /// stored: for a caller that has already written the cleared state (`home --apply` after a
    /// replay in which the server rejected the token).
    public func resetInMemory() {
        lock.withLock { _ = resetLocked(keepStored: true) }
    }

    private func resetLocked(expired: Bool = false, keepStored: Bool = false) -> SessionError? {
        var failure: SessionError?
        if !keepStored {
            let store = contexts.store
            let plan = expired ? AppModel.sessionExpired(state: store) : AppModel.logout(state: store)
            // Only this session's token goes: a login another process made since is its session.
            do { try AppModel.apply(plan, to: store) } catch { failure = error }
        }
        contexts.account.reset()
        contexts.permission.reset()
        contexts.session.reset()
        for hook in resetHooks { hook() }
        resets += 1
        lastResetExpired = expired
        return failure
    }

    /// The server said the session is over. Resets only when `token` (the one the failing request
    /// carried; nil = whatever is current) is still the session's token, so concurrent and stale
    /// expiries collapse into one reset. Returns the notice when this call did the reset.
    @discardableResult
    public func sessionExpired(token: String? = nil) -> String? {
        lock.withLock {
            let current = contexts.session.token
            let phase = contexts.session.phase
            guard phase != .loggedOut || current != nil else { return nil }
            if let token, token != current { return nil }
            // A device snapshot is never changed by what the server says of its token: the reset is
            // of this process's session only; later commands read the import again, without that token.
            let snapshot = contexts.store.isDeviceSnapshot
            if let current { Self.rejectedInProcess.withLock { _ = $0.insert(current) }; TokenStore.forgetRejected(current) }
            _ = resetLocked(expired: true, keepStored: snapshot)
            return snapshot ? SessionGuard.snapshotExpiredNotice : SessionGuard.expiredNotice
        }
    }

    /// A replay (`home`, `context diff`) saw the server reject `token`: this process goes on logged
    /// out without sending it again, and nothing stored changes (a replay writes only with `--apply`,
    /// which has written the cleared state itself). Resets only when `token` is still the session's.
    public func replayRejected(token: String) {
        lock.withLock {
            Self.rejectedInProcess.withLock { _ = $0.insert(token) }
            TokenStore.forgetRejected(token)
            guard contexts.session.token == token else { return }
            _ = resetLocked(expired: true, keepStored: true)
        }
    }

    /// A login's new token is the server's answer: accepted, whatever was said of it before.
    public func loggedIn(token: String) {
        Self.rejectedInProcess.withLock { _ = $0.remove(token) }
        TokenStore.rememberAccepted(token)
    }

    /// Runs a call that uses the session token; a session-expired answer resets the session (once)
    /// before the error is rethrown wrapped with `context`. Calls sent together run inside one `run`,
    /// each wrapping its own error (`FeatureError.catching`) without resetting: the group throws the first
    /// failure in request order, so a rejected token resets the session only where the calls made one
    /// after another would have reached that call, and a later call's answer is dropped with it.
    func run<T>(_ context: String, _ body: () async throws -> T) async throws(FeatureError) -> T {
        let token = contexts.session.token
        do {
            return try await FeatureError.catching(context, body)
        } catch {
            if error.isSessionExpired { sessionExpired(token: token) }
            throw error
        }
    }

    /// Runs a call made outside a facade (a raw `get`/`post`, `config`) with the same rule as `run`:
    /// a session-expired answer resets the session once; the error is rethrown as the call threw it.
    public func guarding<T>(_ body: () async throws -> T) async throws -> T {
        let token = contexts.session.token
        do {
            return try await body()
        } catch let error as APIError where error.kind == .sessionExpired {
            sessionExpired(token: token)
            throw error
        }
    }

    /// Throws `.notLoggedIn` unless a token is held (restoring counts: the snapshot is usable).
    func requireSession() throws(FeatureError) {
        guard contexts.session.token != nil else { throw .notLoggedIn }
    }
}
