import FoundationEssentials
import SXKAPI
import SXKSession

/// What `restore()` found at start.
public struct RestoreResult: Sendable, Equatable {
    public var phase: SessionPhase
    /// A token was stored (and trusted).
    public var hadToken: Bool
    /// An account snapshot filled the contexts.
    public var hadSnapshot: Bool
}

/// What `validate()` concluded.
public enum ValidationOutcome: Sendable {
    /// No token: nothing to validate.
    case notLoggedIn
    /// The server accepted the token; the contexts are refreshed and saved.
    case loggedIn(AccountLoadReport)
    /// The server accepted the token and the contexts are refreshed, but the snapshot could not be
    /// written (disk full, read-only): the session goes on; `reason` is the storage line.
    case loggedInUnsaved(AccountLoadReport, reason: String)
    /// The server said the token is invalid: session cleared; `notice` is the one line to show.
    case loggedOut(notice: String)
    /// The server could not be reached, or answered with an error: the snapshot stays, the session is
    /// marked offline; `failure` is what went wrong (its description the one line to show).
    case offline(FeatureError)
    /// Interrupted (Ctrl-C) before an answer: nothing concluded, the session stays as it was.
    case cancelled
}

/// Seed 001 启动流程 `SessionBootstrapper`: restore from the token and snapshot with no network, then
/// validate through `AccountContextLoader` when a command first needs the server.
public struct SessionBootstrapper: Sendable {
    public let loader: AccountContextLoader
    public let sessionGuard: SessionGuard
    private var contexts: SessionContexts { sessionGuard.contexts }

    public init(loader: AccountContextLoader, guard sessionGuard: SessionGuard) {
        self.loader = loader
        self.sessionGuard = sessionGuard
    }

    /// Reads token and snapshot (`AppModel.restore`). No token → loggedOut; a token → contexts from the
    /// snapshot at once, phase `.restoring`. Makes no request and writes nothing.
    public func restore() throws(FeatureError) -> RestoreResult {
        let token: String?
        do {
            try contexts.store.reload()
            // The read this process's session is made from: its end removes only this file.
            token = try contexts.store.tokens.read(adopting: true)
        } catch {
            throw .storage(error)
        }
        // Which screen, which phase and what fills the contexts: the app model's restore.
        // A token the server rejected in this process is not used again (a snapshot's file keeps it,
        // and so does a profile whose token only a replay saw rejected), nor one of another backend.
        let usable = sessionGuard.isRejected(token) || sessionGuard.withholds(token) ? nil : token
        let plan = AppModel.restore(token: usable, state: contexts.store, account: contexts.account, permission: contexts.permission)
        guard let token = usable, plan.phase == .restoring else {
            contexts.session.reset()
            return RestoreResult(phase: .loggedOut, hadToken: false, hadSnapshot: contexts.store.hasAccountSnapshot)
        }
        contexts.session.beginRestoring(token: token)
        return RestoreResult(phase: .restoring, hadToken: true, hadSnapshot: contexts.store.hasAccountSnapshot)
    }

    /// Reads the session again when another sxk process logged in, switched account or logged out of
    /// this profile since this one last read or wrote its token (a REPL, a script, `watch`): the next
    /// command runs as the stored session, not as the account this process read at its start, and
    /// changes not yet written are dropped (they were for the account it read). Returns the one line
    /// to say it; nil when the stored token is the one this process holds. A device snapshot is read
    /// again before every command already.
    public func readAgainIfChangedElsewhere() throws(FeatureError) -> String? {
        let store = contexts.store
        let anotherAccount = store.defaults.anotherSessionSeen
        guard !store.isDeviceSnapshot, store.tokens.changedOnDisk || anotherAccount else { return nil }
        let before = contexts.session.token
        let stored: String?
        do { stored = try store.token() } catch { throw .storage(error) }
        guard stored != before || anotherAccount else { return nil }
        sessionGuard.resetInMemory()
        do { try store.defaults.discardHeld() } catch { throw .storage(error) }
        let restored = try restore()
        guard restored.phase != .loggedOut else {
            // A token file still there but refused (its warning said why) is not another process's logout.
            if store.tokens.refusedOnDisk { return "the stored token is not usable (see above): this shell is logged out" }
            if let withheld = sessionGuard.withheldStoredToken {
                return "another sxk process stored a session of \(withheld.owner) in this profile: its token is not sent here, and this shell is logged out"
            }
            // A logout and the server's expiry seen by that process clear the same files: either it was.
            return "another sxk process ended this profile's session (a logout, or the server's expiry): this shell is logged out too"
        }
        let account = contexts.account.current
        let who = [account.userId.map { "user \($0)" }, account.displayName, contexts.permission.roleCode.map { "role \($0)" }]
            .compactMap { $0 }.joined(separator: ", ")
        return "another sxk process changed this profile's session: now \(who.isEmpty ? "its stored session" : who), read again"
    }

    /// Whether the session still needs `validate()` (restored and not yet confirmed, or offline).
    public var needsValidation: Bool {
        let s = contexts.session.current
        return s.token != nil && (s.phase == .restoring || s.offline)
    }

    /// When the session was last validated, if that was at most `window` seconds before `now`: a
    /// restored session is then taken as logged in from the snapshot without a request (the shell's
    /// choice for one-shot commands, docs/session.md). nil, changing nothing, when there is no
    /// restored session to trust, no recorded validation, or it is older (or in the future: clock moved).
    public func trustRecentValidation(window: TimeInterval, now: Date) -> Date? {
        let s = contexts.session.current
        guard let token = s.token, s.phase == .restoring, !s.offline,
              let at = contexts.store.sessionValidatedAt else { return nil }
        let age = now.timeIntervalSince(at)
        guard age >= -1, age <= window else { return nil }
        contexts.session.logIn(token: token)
        return at
    }

    /// What a validation left in the contexts: a device snapshot's later commands start from the state
    /// as imported again, and are given this instead of asking the server the same questions again.
    public struct Validated: Sendable {
        public let token: String
        public let account: AccountContext.State
        public let permission: PermissionContext.State
        public let report: AccountLoadReport
    }

    /// The contexts as the validation that gave `report` left them (nil without a token).
    public func validated(_ report: AccountLoadReport) -> Validated? {
        guard let token = contexts.session.token else { return nil }
        return Validated(token: token, account: contexts.account.current, permission: contexts.permission.current, report: report)
    }

    /// Puts back what an earlier validation of the same token loaded, without a request: the session
    /// is logged in on those contexts, saved as a validation saves them (a held write on a snapshot).
    /// False, changing nothing, unless the session is restored (not offline) with that token.
    public func reuse(_ kept: Validated) throws(FeatureError) -> Bool {
        let s = contexts.session.current
        guard s.token == kept.token, s.phase == .restoring, !s.offline else { return false }
        contexts.account.replace(with: kept.account)
        contexts.permission.replace(with: kept.permission)
        contexts.session.logIn(token: kept.token)
        try contexts.persist(validated: true)
        return true
    }

    /// userinfo and role-permission in parallel, then scenic and store. Invalid token → cleared and
    /// logged out; any other failure → the snapshot stays and the session is marked offline.
    public func validate() async -> ValidationOutcome {
        guard let token = contexts.session.token else { return .notLoggedIn }
        let report: AccountLoadReport
        do {
            report = try await loader.loadAll()
        } catch let error as APIError where error.kind == .sessionExpired {
            sessionGuard.sessionExpired(token: token)
            return .loggedOut(notice: SessionGuard.expiredNotice)
        } catch {
            // Interrupted: no answer says anything of the session; the next command validates.
            if Task.isCancelled || FeatureError.from(error, context: "").isCancelled { return .cancelled }
            // Seed 001 step 11: keep the local login, enter with the snapshot.
            if contexts.session.phase == .restoring { contexts.session.logIn(token: token) }
            contexts.session.setOffline(true)
            return .offline(FeatureError.from(error, context: "validate"))
        }
        contexts.session.logIn(token: token)
        // The server answered: a failure to save is a storage problem, not an offline session.
        do { try contexts.persist(validated: true) } catch { return .loggedInUnsaved(report, reason: "\(error)") }
        return .loggedIn(report)
    }
}
