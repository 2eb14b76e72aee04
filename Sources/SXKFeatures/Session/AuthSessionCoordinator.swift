import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

/// The result of a completed login or account switch.
public struct LoginOutcome: Sendable {
    /// The account now current (from set-user).
    public var account: Account
    /// Every account of this login, for `accounts`.
    public var accounts: [Account]
    /// The context load that followed (nil when it failed without ending the session; see `warnings`).
    public var load: AccountLoadReport?
    /// Lines for stderr: a load that failed but did not stop the login.
    public var warnings: [String]
    /// The token set-user was sent with: the login's temporary one (as the app does), or, in a process
    /// that has none, the current formal one (sxk's choice, docs/app-behaviour.md#switch-account).
    public var setUserWith: SetUserToken = .temporary
    /// Ctrl-C came during the context load: the login stands as written before it (token and set-user's
    /// snapshot), offline, and nothing was written after it; the command ends as interrupted.
    public var interrupted = false

    public enum SetUserToken: String, Sendable { case temporary, formal }
}

/// What `login` returns: done, or a choice the caller must make among several accounts.
public enum LoginStep: Sendable {
    case completed(LoginOutcome)
    /// Several accounts: ask (numbered 1…n), then call `chooseAccount`.
    case chooseAccount([Account])
}

/// What `switchAccount` returns.
public enum SwitchOutcome: Sendable {
    case switched(LoginOutcome)
    /// The server refused set-user with every token held: ask for the password once, then `relogin`.
    case passwordRequired(account: Account, phone: String)
}

/// One row of `accounts`.
public struct AccountRow: Sendable, Equatable {
    public var index: Int
    public var account: Account
    public var isCurrent: Bool
}

/// Seed 001 `AuthSessionCoordinator` with seed 000 §3: form validation, v9/login, account choice,
/// set-user, `completeLogin`, account switch and logout. Holds only this login's memory (the
/// temporary token, phone, account list), dropped at every reset.
public final class AuthSessionCoordinator: @unchecked Sendable {
    public let account: AccountAPI
    public let loader: AccountContextLoader
    public let sessionGuard: SessionGuard
    private var contexts: SessionContexts { sessionGuard.contexts }

    private struct Memory {
        var tempToken: String?
        var phone: String?
        var privacyAccepted = false
        var enableRegister: Bool?
        /// A login waiting for its account choice; it becomes this login's memory only when set-user
        /// succeeds, so a choice that is cancelled or fails leaves the session as it was.
        var pending: PendingLogin?
    }
    private struct PendingLogin {
        var tempToken: String
        var phone: String
        var privacyAccepted: Bool
        var accounts: [Account]
    }
    private let lock = Lock()
    private var memory = Memory()

    public init(account: AccountAPI, commerce: CommerceAPI, guard sessionGuard: SessionGuard) {
        self.account = account
        self.sessionGuard = sessionGuard
        self.loader = AccountContextLoader(account: account, commerce: commerce, contexts: sessionGuard.contexts)
        sessionGuard.onReset { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                self.memory.tempToken = nil
                self.memory.phone = nil
                self.memory.pending = nil
            }
        }
    }

    /// The tokens this login holds in memory (the temporary token, a pending choice's): what output
    /// must mask besides the session's formal token.
    public var liveSecrets: [String] {
        lock.withLock { [memory.tempToken, memory.pending?.tempToken].compactMap { $0 }.filter { !$0.isEmpty } }
    }

        // MARK: Form (seed 000 §3.1, §3.3)

    /// The stored form preferences: last phone and privacy flag (`applyStoredPreferences`).
    public var storedPreferences: (lastPhone: String?, privacyAccepted: Bool) {
        (contexts.store.lastLoginUsername, contexts.store.privacyAgreementAccepted)
    }

    /// Local rules before any request: 11 digits starting with 1, non-empty password, privacy accepted.
    public static func validateLogin(phone: String, password: String, privacyAccepted: Bool) throws(FeatureError) {
        let digits = phone.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
        guard phone.utf8.count == 11, digits, phone.hasPrefix("1") else { throw .invalidPhone(phone) }
        guard !password.isEmpty else { throw .emptyPassword }
        guard privacyAccepted else { throw .privacyNotAccepted }
    }

    /// GET app/config once before login; failures are ignored (seed §3.2). Returns `enableRegister`.
    @discardableResult
    public func fetchConfig() async -> Bool? {
        if let known = lock.withLock({ memory.enableRegister }) { return known }
        guard let config = try? await account.config().value else { return nil }
        lock.withLock { memory.enableRegister = config.enableRegister }
        return config.enableRegister
    }

    /// `enableRegister` from the last successful config fetch (memory only).
    public var enableRegister: Bool? { lock.withLock { memory.enableRegister } }

    // MARK: Login

    /// Validates, POSTs v9/login, and with one account (or `choice` naming one) completes the login at once.
    /// `choice` is a user id or a 1-based index into the accounts.
    public func login(phone: String, password: String, privacyAccepted: Bool, choice: String? = nil) async throws(FeatureError) -> LoginStep {
        let result = try await postLogin(phone: phone, password: password, privacyAccepted: privacyAccepted)
        return try await continueLogin(result, phone: phone, privacyAccepted: privacyAccepted, choice: choice)
    }

    /// The local checks and v9/login.
    private func postLogin(phone: String, password: String, privacyAccepted: Bool) async throws(FeatureError) -> LoginResult {
        try AuthSessionCoordinator.validateLogin(phone: phone, password: password, privacyAccepted: privacyAccepted)
        do {
            return try await account.login(username: phone, password: password).value
        } catch {
            throw FeatureError.api(error, context: "login")
        }
    }

    /// What follows v9/login's answer: the account choice, or set-user and the rest at once.
    private func continueLogin(_ result: LoginResult, phone: String, privacyAccepted: Bool, choice: String?) async throws(FeatureError) -> LoginStep {
        guard !result.accounts.isEmpty else { throw .noAccounts }
        let pending = PendingLogin(tempToken: result.tempToken, phone: phone, privacyAccepted: privacyAccepted, accounts: result.accounts)
        if result.accounts.count == 1 {
            return .completed(try await selectAccount(result.accounts[0], of: pending))
        }
        if let choice {
            let chosen = try AuthSessionCoordinator.resolve(choice, in: result.accounts)
            return .completed(try await selectAccount(chosen, of: pending))
        }
        lock.withLock { memory.pending = pending }
        return .chooseAccount(result.accounts)
    }

    /// The login page's requests: app/config goes out beside v9/login instead of before it (the page
    /// loads the config when it appears and ignores its failure, so v9/login never waits for it).
    /// The config is awaited whatever the login's outcome, so its answer is kept as it was when it
    /// went first, and before set-user: a Ctrl-C while it is still out ends the login there with
    /// nothing written, as it would have before v9/login was sent; a cancelled login cancels it too.
    public func loginFromLoginPage(phone: String, password: String, privacyAccepted: Bool, choice: String? = nil) async throws(FeatureError) -> LoginStep {
        async let config = fetchConfig()
        let result: LoginResult
        do {
            result = try await postLogin(phone: phone, password: password, privacyAccepted: privacyAccepted)
        } catch {
            _ = await config
            throw error
        }
        _ = await config
        // The config's own failure is ignored (`fetchConfig`), a cancellation included: asked here.
        if Task.isCancelled { throw .api(.cancelled(request: RequestLabel(method: "GET", path: Endpoint.config.path)), context: "login") }
        return try await continueLogin(result, phone: phone, privacyAccepted: privacyAccepted, choice: choice)
    }

    /// The multi-account choice (`LoginViewModel.selectAccount`): set-user with the temporary token, then complete.
    public func chooseAccount(_ selector: String) async throws(FeatureError) -> LoginOutcome {
        guard let pending = lock.withLock({ memory.pending }) else { throw .noAccountList }
        let chosen = try AuthSessionCoordinator.resolve(selector, in: pending.accounts)
        return try await selectAccount(chosen, of: pending)
    }

    /// Drops a login still waiting for its account choice (the choice was cancelled).
    public func cancelAccountChoice() {
        lock.withLock { memory.pending = nil }
    }

    private func selectAccount(_ chosen: Account, of login: PendingLogin) async throws(FeatureError) -> LoginOutcome {
        let result: SetUserResult
        do {
            result = try await account.setUser(userId: chosen.userId, accountType: chosen.accountType, tempToken: login.tempToken).value
        } catch {
            throw FeatureError.api(error, context: "set-user")
        }
        lock.withLock {
            memory.tempToken = login.tempToken
            memory.phone = login.phone
            memory.privacyAccepted = login.privacyAccepted
            memory.pending = nil
        }
        contexts.account.setAccounts(login.accounts)
        var outcome = try await completeLogin(result, phone: login.phone, privacyAccepted: login.privacyAccepted)
        if let other = Self.answeredForAnother(result, asked: chosen) { outcome.warnings.insert(other, at: 0) }
        return outcome
    }

    /// set-user answered with another account than the one asked for: the session is the answer's, as
    /// the app stores what set-user returns (seed 001 completeLogin); said, since the engineer chose another.
    static func answeredForAnother(_ result: SetUserResult, asked: Account) -> String? {
        guard result.user.userId != asked.userId || result.user.accountType != asked.accountType else { return nil }
        return "set-user was asked for account \(asked.userId) (\(asked.accountType)) and answered with account \(result.user.userId) (\(result.user.accountType)): the session is the answer's account, as the app stores what set-user returns"
    }

    /// Seed 001 `completeLogin` + seed 000 §3.4, as `AppModel.completeLogin` plans it: formal token, last
    /// phone, privacy flag and the chosen account stored; contexts filled from the chosen account; role-permission and userinfo loaded in parallel (then scenic and
    /// store); the snapshot saved; phase → loggedIn. A load that fails for a reason other than session
    /// expiry keeps the login (a warning says so). Ctrl-C during the load keeps what was written before
    /// it (the token and set-user's snapshot) and writes nothing more (`LoginOutcome.interrupted`).
    /// `switching`: an account switch of this process's session, refused with nothing written when another
    /// process logged in or out meanwhile (`SessionError.anotherSession`); a login writes over any session.
    public func completeLogin(_ result: SetUserResult, phone: String, privacyAccepted: Bool, switching: Bool = false) async throws(FeatureError) -> LoginOutcome {
        let accounts = contexts.account.current.accounts
        // The context pair needs only the new token, not the files: it goes out while the token and
        // the snapshot are written (durably, which takes a while), carrying that token explicitly.
        let loader = self.loader, token = result.token
        let timer = CallTimer(), sink = CallSink()
        let pair = Task { try await loader.loadProfileAndPermissions(timer: timer, sink: sink, token: token) }
        // So does the store list when set-user's account already says the store step will ask.
        let user = result.user
        let stores = AppModel.storeLoadExpected(role: user.roleCode, scenicId: user.scenicId, scenicName: user.scenicName)
            ? Task { try await loader.requestStores(timer: timer, sink: sink, token: token) } : nil
        // What the app writes at completeLogin is the app model's plan; the contexts follow it.
        let plan = AppModel.completeLogin(token: result.token, user: result.user, phone: phone, privacyAccepted: privacyAccepted, now: contexts.store.wallClock.now())
        do {
            try AppModel.apply(plan, to: contexts.store, replacingOwnSession: switching)
        } catch {
            pair.cancel()
            stores?.cancel()
            _ = try? await pair.value
            _ = try? await stores?.value
            throw .storage(error)
        }
        sessionGuard.loggedIn(token: result.token)
        contexts.account.reset()
        contexts.account.apply(result.user)
        if let stored = plan.value(of: StoreKey.phone)?.stringValue { contexts.account.applyUserInfo(UserInfo(phone: stored)) }
        contexts.account.setAccounts(accounts.isEmpty ? [result.user] : accounts)
        contexts.permission.reset()
        contexts.permission.setCurrentRole(code: result.user.roleCode, name: result.user.roleName)
        // The token is held (phase restoring) while the context loads, so the loads carry it.
        contexts.session.beginRestoring(token: result.token)
        // The account list (no token), for account switches in a later process, needs only set-user's
        // answer: it is written while the pair is in flight, not after it. Its warning keeps its place.
        var accountListWarning: String?
        // Not after a Ctrl-C that came while the token and the snapshot were written.
        if !Task.isCancelled {
            do { try contexts.store.writeAccountList(.init(phone: phone, accounts: contexts.account.current.accounts), expectingToken: result.token) } catch {
                accountListWarning = "logged in, but the account list was not saved: \(error)"
            }
        }

        var warnings: [String] = []
        var report: AccountLoadReport?
        do {
            report = try await loader.loadAll(timer: timer, sink: sink, prefetched: pair, prefetchedStores: stores)
        } catch let error as APIError where error.kind == .sessionExpired {
            sessionGuard.sessionExpired(token: result.token)
            throw FeatureError.api(error, context: "login")
        } catch {
            if Task.isCancelled || FeatureError.from(error, context: "").isCancelled {
                // As the process would stand had it ended at the Ctrl-C: logged in on what is stored, not validated.
                if let accountListWarning { warnings.append(accountListWarning) }
                warnings.append("interrupted: logged in, but the account context was not loaded (\(FeatureError.wrap(error, ""))); the next command that needs the server loads it")
                contexts.session.logIn(token: result.token)
                contexts.session.setOffline(true)
                var outcome = LoginOutcome(account: result.user, accounts: contexts.account.current.accounts, load: nil, warnings: warnings)
                outcome.interrupted = true
                return outcome
            }
            warnings.append("logged in, but loading the account context failed: \(FeatureError.wrap(error, ""))")
        }
        // The token is stored: a snapshot that cannot be written (disk full) does not undo the login.
        // The shell's login = the app's login + home's first appearance, which writes the default
        // common menus (seed 000 §6.2; docs/app-behaviour.md#login): both go in one save of the
        // defaults (one durable write after the last answer, not two). When that save fails, the
        // common menus are given up, as when they were only tried after a saved snapshot.
        let store = contexts.store
        var menus: (key: String, value: JSONValue?, pending: Bool)?
        do {
            try store.batch(expecting: .holds(result.token)) { () throws(SessionError) in
                try store.persistContexts(account: contexts.account, permission: contexts.permission, validated: report != nil)
                guard let role = contexts.permission.roleCode, !role.isEmpty else { return }
                let common = CommonMenuStore(store: store), key = common.key(roleCode: role)
                menus = (key, store.defaults[key], store.defaults.isPending(key))
                _ = try common.commonURIs(roleCode: role, visibleURIs: contexts.permission.current.permissions.map(\.uri))
            }
        } catch {
            if let menus { store.defaults.revert(menus.key, to: menus.value, pending: menus.pending) }
            warnings.append("logged in, but the account snapshot was not saved: \(FeatureError.storage(error))")
        }
        if let accountListWarning { warnings.append(accountListWarning) }
        contexts.session.logIn(token: result.token)
        if report == nil { contexts.session.setOffline(true) }
        return LoginOutcome(account: result.user, accounts: contexts.account.current.accounts, load: report, warnings: warnings)
    }

    // MARK: Accounts

    /// The accounts of this login with the current one marked (memory only; empty after a restart).
    public func accounts() -> [AccountRow] {
        // The list `switch-account` uses: this login's, else the one kept from the profile's last.
        let known = knownAccounts()
        let a = contexts.account.current
        return known.enumerated().map { i, acc in
            AccountRow(index: i + 1, account: acc, isCurrent: acc.userId == a.userId && acc.accountType == a.accountType)
        }
    }

    /// set-user for another account of this login with the temporary token, then the formal one; the
    /// contexts are rebuilt without the password. When the server refuses both, `.passwordRequired`.
    public func switchAccount(to selector: String) async throws(FeatureError) -> SwitchOutcome {
        let accounts = knownAccounts()
        guard !accounts.isEmpty else { throw .noAccountList }
        let target = try AuthSessionCoordinator.resolve(selector, in: accounts)
        let (temp, phone, privacy) = lock.withLock { (memory.tempToken, memory.phone, memory.privacyAccepted) }
        let loginPhone = phone ?? contexts.store.lastLoginUsername ?? target.phone
        var tokens: [String] = []
        if let temp { tokens.append(temp) }
        if let formal = contexts.session.token, !tokens.contains(formal) { tokens.append(formal) }
        for token in tokens {
            let result: SetUserResult
            do {
                // tokenOverride: a refusal here must not end the current session.
                result = try await account.setUser(userId: target.userId, accountType: target.accountType, tempToken: token).value
            } catch {
                switch error.kind {
                case .sessionExpired, .server, .http: continue
                default: throw FeatureError.api(error, context: "switch-account")
                }
            }
            let privacyFlag = privacy || contexts.store.privacyAgreementAccepted
            var outcome = try await completeLogin(result, phone: loginPhone, privacyAccepted: privacyFlag, switching: true)
            if token != temp { outcome.setUserWith = .formal }
            if let other = Self.answeredForAnother(result, asked: target) { outcome.warnings.insert(other, at: 0) }
            return .switched(outcome)
        }
        return .passwordRequired(account: target, phone: loginPhone)
    }

    /// A formal token for another account of this login, for a one-off probe (`compare`): set-user with
    /// the tokens `switchAccount` tries (the login's temporary token, then the current formal one), but
    /// nothing is stored and no context or phase changes. The caller keeps the token in memory only.
    public func probeToken(for target: Account) async throws(FeatureError) -> String {
        try sessionGuard.requireSession()
        let temp = lock.withLock { memory.tempToken }
        var tokens: [String] = []
        if let temp { tokens.append(temp) }
        if let formal = contexts.session.token, !tokens.contains(formal) { tokens.append(formal) }
        var lastError: APIError?
        for token in tokens {
            do {
                return try Self.probed(try await account.setUser(userId: target.userId, accountType: target.accountType, tempToken: token).value, target)
            } catch let error as FeatureError {
                throw error
            } catch let error as APIError {
                switch error.kind {
                case .sessionExpired, .server, .http: lastError = error
                default: throw FeatureError.api(error, context: "set-user for account \(target.userId)")
                }
            } catch {
                throw FeatureError.from(error, context: "set-user for account \(target.userId)")
            }
        }
        throw FeatureError.api(lastError ?? .sessionExpired(ExpiryCause(code: nil, message: "no token"), request: RequestLabel(method: "POST", path: Endpoint.setUser.path)),
                               context: "set-user for account \(target.userId)")
    }

    /// The password fallback of `switchAccount`: v9/login again, then set-user for `target`.
    public func relogin(phone: String, password: String, target: Account) async throws(FeatureError) -> LoginOutcome {
        let privacy = contexts.store.privacyAgreementAccepted || lock.withLock { memory.privacyAccepted }
        let step = try await login(phone: phone, password: password, privacyAccepted: privacy, choice: String(target.userId))
        switch step {
        case .completed(let outcome): return outcome
        case .chooseAccount(let accounts):
            throw .accountNotFound(String(target.userId), available: accounts.map { String($0.userId) })
        }
    }

    // MARK: Accounts across processes

    /// Asks for the password of `phone` to log in again for `account` (the App asks: prompt or
    /// `--password-stdin`). Called only when no held token can do the set-user.
    public typealias PasswordSource = @Sendable (_ phone: String, _ account: Account) async throws -> String

    /// This login's accounts: the process's memory, else the list the profile kept from the last login.
    public func knownAccounts() -> [Account] {
        let inMemory = contexts.account.current.accounts
        if !inMemory.isEmpty { return inMemory }
        let stored = (try? contexts.store.accountList.read())?.accounts ?? []
        if !stored.isEmpty { contexts.account.setAccounts(stored) }
        return stored
    }

    /// The account `selector` names when this session is already on it (nil: a switch is needed, or
    /// the selector names none). Switching to it anyway would send set-user, which loads the account's
    /// own role again over the one chosen in it.
    public func currentAccount(named selector: String) -> Account? {
        guard contexts.session.token != nil, let target = try? Self.resolve(selector, in: knownAccounts()) else { return nil }
        return target.userId == contexts.store.userId && target.accountType == contexts.store.accountType ? target : nil
    }

    /// The store a store account stands for (its `storeId` in this login's account list): the one
    /// store the server lets it use. nil for a scenic account, or when no account list is kept.
    public func ownStoreId() -> Int? {
        let current = contexts.account.current
        guard current.accountType == AccountType.store else { return nil }
        return knownAccounts().first { $0.userId == current.userId && $0.accountType == current.accountType }?.storeId
    }

    /// `switch-account` in any process: set-user with a held token; when none works (a new process has
    /// no temporary token) v9/login again with the password from `password`, then set-user.
    public func switchAccount(to selector: String, password: PasswordSource) async throws(FeatureError) -> LoginOutcome {
        guard !knownAccounts().isEmpty else { throw .noAccountList }
        switch try await switchAccount(to: selector) {
        case .switched(let outcome):
            return outcome
        case .passwordRequired(let target, let phone):
            let secret: String
            do { secret = try await password(phone, target) } catch {
                throw (error as? FeatureError) ?? (error is CancellationError ? .cancelled : .failed("password: \(error)"))
            }
            return try await relogin(phone: phone, password: secret, target: target)
        }
    }

    /// `probeToken` in any process: when no held token can do the set-user, v9/login again with the
    /// password (the new temporary token stays in this process's memory only), then set-user. Nothing
    /// is stored and no context changes.
    public func probeToken(for target: Account, password: PasswordSource) async throws(FeatureError) -> String {
        do {
            return try await probeToken(for: target)
        } catch let error where asksPassword(after: error) {
            return try await probeTokenWithPassword(for: target, password: password)
        }
    }

    /// Whether `probeToken(for:password:)` asks for the password after `probeToken(for:)` failed with
    /// `error`: the session's token was refused, or this process holds no temporary token to try.
    public func asksPassword(after error: FeatureError) -> Bool {
        // An answer for another account is no refusal: a new login would not change it.
        if case .otherAccountAnswered = error { return false }
        return error.isSessionExpired || lock.withLock { memory.tempToken == nil }
    }

    /// The password half of `probeToken(for:password:)`: v9/login again, then set-user.
    public func probeTokenWithPassword(for target: Account, password: PasswordSource) async throws(FeatureError) -> String {
        let phone = lock.withLock { memory.phone } ?? (try? contexts.store.accountList.read())?.phone
            ?? contexts.store.lastLoginUsername ?? target.phone
        let secret: String
        do { secret = try await password(phone, target) } catch {
            throw (error as? FeatureError) ?? (error is CancellationError ? .cancelled : .failed("password: \(error)"))
        }
        let result: LoginResult
        do { result = try await account.login(username: phone, password: secret).value } catch {
            throw FeatureError.api(error, context: "login")
        }
        lock.withLock {
            memory.tempToken = result.tempToken
            memory.phone = phone
        }
        let answer: SetUserResult
        do {
            answer = try await account.setUser(userId: target.userId, accountType: target.accountType, tempToken: result.tempToken).value
        } catch {
            throw FeatureError.api(error, context: "set-user for account \(target.userId)")
        }
        return try Self.probed(answer, target)
    }

    /// A probe's token, only when set-user answered for the account asked for: another's would show its
    /// data under the name asked for.
    static func probed(_ result: SetUserResult, _ target: Account) throws(FeatureError) -> String {
        guard result.user.userId == target.userId, result.user.accountType == target.accountType else {
            throw .otherAccountAnswered("set-user for account \(target.userId) (\(target.accountType)) answered with account \(result.user.userId) (\(result.user.accountType)): not used, its data would show under the account asked for")
        }
        return result.token
    }

    // MARK: Logout

    /// Seed 001 logout (`AppModel.logout`): token and snapshot cleared, every context reset, last phone
    /// and privacy flag kept.
    public func logout() throws(FeatureError) {
        if let failure = sessionGuard.reset() { throw .storage(failure) }
    }

    // MARK: Helpers

    /// One answer typed at the `choose 1-N` prompt.
    public enum AccountChoice: Sendable, Equatable {
        case chosen(Account)
        /// An empty answer: no account, the login is dropped.
        case cancel
        /// Not one of the accounts; the line says why (to ask again).
        case invalid(String)
    }

    /// Reads an answer to the account choice: a number from the list or a user id.
    public static func accountChoice(_ answer: String, in accounts: [Account]) -> AccountChoice {
        let text = answer.trimming(\.isBlank)
        if text.isEmpty { return .cancel }
        let range = "1-\(accounts.count)"
        if let chosen = try? resolve(text, in: accounts) { return .chosen(chosen) }
        // What was typed is never repeated: it may be a password typed one prompt too late.
        if Int(text) != nil { return .invalid("that number is not in the list — type a number \(range), or an empty line to cancel") }
        return .invalid("that is not a number from the list — type a number \(range), or an empty line to cancel")
    }

    /// A user id, else a 1-based index into `accounts`.
    /// `ID`, `ID:TYPE` or the list's 1-based `INDEX`. Scenic and store accounts are kept in separate
    /// tables (the scope prefix is `userId_accountType`, `StoreKey`), so one id can be both: then the
    /// bare id is ambiguous and `ID:TYPE` says which.
    public static func resolve(_ selector: String, in accounts: [Account]) throws(FeatureError) -> Account {
        let text = selector.trimming(\.isBlank)
        let available = accounts.enumerated().map { "\($0.offset + 1)=\($0.element.userId):\($0.element.accountType)" }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.count == 2, let n = Int(parts[0]) {
            if let match = accounts.first(where: { $0.userId == n && $0.accountType == parts[1] }) { return match }
            throw .accountNotFound(text, available: available)
        }
        if let n = Int(text) {
            let byId = accounts.filter { $0.userId == n }
            if byId.count == 1 { return byId[0] }
            if byId.count > 1 { throw .ambiguousAccount(text, choices: byId.map { "\(n):\($0.accountType)" }) }
            if n >= 1 && n <= accounts.count { return accounts[n - 1] }
        }
        throw .accountNotFound(text, available: available)
    }
}
