import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

/// One key a lifecycle step writes: its value (nil removes the key) and the rule it follows.
public struct KeyWrite: Sendable, Equatable {
    public var key: String
    public var value: JSONValue?
    public var rule: ModelRule

    public init(_ key: String, _ value: JSONValue?, _ rule: ModelRule) {
        self.key = key; self.value = value; self.rule = rule
    }

    /// `key = value` or `key removed` (the token never shown).
    public var line: String {
        if key == StoreKey.token { return value == nil ? "\(key) removed" : "\(key) = the formal token" }
        return value.map { "\(key) = \(KeyValueText.human($0, key: key))" } ?? "\(key) removed"
    }
}

/// One call a step needs, not yet made: the calls of one `group` go out together, groups in order.
public struct PlannedCall: Sendable, Equatable {
    public var method: String
    public var path: String
    public var group: Int
    /// When the call is made only on a condition, the condition.
    public var condition: String?
    public var rule: ModelRule

    public init(_ method: String, _ path: String, group: Int, condition: String? = nil, rule: ModelRule) {
        self.method = method; self.path = path; self.group = group; self.condition = condition; self.rule = rule
    }
}

/// What one lifecycle step of the app reads, needs to call, writes and decides, each with its rule.
/// `AppModel.apply` writes `writes` (and the token change); the rules in `then` write once the calls
/// have answered (the live session's context load, or a replay). A plan is computed from the stored
/// state alone, so the live session and every view get the same one.
public struct LifecyclePlan: Sendable, Equatable {
    /// The app's name for the step.
    public var name: String
    /// The step's own rule (its basis is the step's).
    public var rule: ModelRule
    /// The stored keys (and files) it reads.
    public var reads: [String]
    public var calls: [PlannedCall]
    /// What it writes now.
    public var writes: [KeyWrite]
    /// The token file's change, if any (kept out of every printed form).
    public var token: AppStore.TokenChange?
    /// True when the login's account list (sxk's `accounts.json`) goes too.
    public var clearsAccountList = false
    /// The rules whose writes follow the answers to `calls`.
    public var then: [ModelRule] = []
    /// The root screen the step leads to, where it decides one.
    public var root: RootScreen?
    /// The session phase the step enters, where it decides one.
    public var phase: SessionPhase?

    public init(name: String, rule: ModelRule, reads: [String] = [], calls: [PlannedCall] = [], writes: [KeyWrite] = [],
                token: AppStore.TokenChange? = nil) {
        self.name = name; self.rule = rule; self.reads = reads; self.calls = calls; self.writes = writes; self.token = token
    }

    /// Every rule the step follows: its own, its writes', its calls' and those that follow the calls.
    public var rules: [ModelRule] {
        var out: [ModelRule] = []
        for r in [rule] + writes.map(\.rule) + calls.map(\.rule) + then where !out.contains(r) { out.append(r) }
        return out
    }

    /// The key names (`ModelRule.keyName`) the step may write: what it writes now and what the rules
    /// that follow its calls write.
    public var declaredKeys: Set<String> {
        var keys = Set(writes.map { ModelRule.keyName($0.key) })
        if token != nil { keys.insert(StoreKey.token) }
        for r in then { keys.formUnion(r.keys) }
        return keys
    }

    /// The value the step writes to `key` (nil: removed, or not written).
    public func value(of key: String) -> JSONValue? { writes.last { $0.key == key }?.value ?? nil }
}

extension AppModel {
    /// Writes what `plan` writes now: the token file, the account list, then the keys in one save.
    /// `replacingOwnSession`: refused when another process logged in or out since this one's session began.
    public static func apply(_ plan: LifecyclePlan, to store: AppStore, replacingOwnSession: Bool = false) throws(SessionError) {
        try store.write(plan.writes.map { ($0.key, $0.value) }, token: plan.token, clearAccountList: plan.clearsAccountList,
                        replacingOwnSession: replacingOwnSession)
    }

    // MARK: completeLogin

    /// `AuthSessionHelper.completeLogin` (seed 000 §3.4; seed 001 登录和退出): the formal token, the last
    /// phone and the privacy flag, and the chosen account's fields; the phone that logged in when the
    /// account carries none (inferred). sxk then loads the account context and writes the home's
    /// default common menus (inferred: docs/app-behaviour.md#login) — `then` and `calls` say so. A login
    /// ends a device snapshot and is not validated until its context has loaded.
    public static func completeLogin(token: String, user: Account, phone: String, privacyAccepted: Bool, now: Date) -> LifecyclePlan {
        func text(_ s: String?) -> JSONValue? { s.map { .string($0) } }
        func int(_ n: Int?) -> JSONValue? { n.map { .int($0) } }
        let account = Rule.loginAccount
        var writes = [
            KeyWrite(StoreKey.lastLoginUsername, .string(phone), Rule.loginPreferences),
            KeyWrite(StoreKey.privacyAgreementAccepted, .bool(privacyAccepted), Rule.loginPreferences),
            KeyWrite(StoreKey.userId, .int(user.userId), account),
            KeyWrite(StoreKey.userName, .string(user.userName), account),
            KeyWrite(StoreKey.realName, text(user.realName), account),
            KeyWrite(StoreKey.avatar, text(user.avatar), account),
            user.phone.isEmpty ? KeyWrite(StoreKey.phone, .string(phone), Rule.loginPhone) : KeyWrite(StoreKey.phone, .string(user.phone), account),
            KeyWrite(StoreKey.accountType, .string(user.accountType), account),
            KeyWrite(StoreKey.accountDisplayName, .string(user.accountDisplayName), account),
            KeyWrite(StoreKey.roleCode, .string(user.roleCode), account),
            KeyWrite(StoreKey.roleName, .string(user.roleName), account),
            KeyWrite(StoreKey.currentScenicId, int(user.scenicId), account),
            KeyWrite(StoreKey.currentScenicName, text(user.scenicName), account),
            KeyWrite(StoreKey.currentStoreId, int(user.storeId), account),
        ]
        writes += [
            KeyWrite(StoreKey.snapshotSavedAt, AppStore.timeValue(now), Rule.snapshotStamp),
            KeyWrite(StoreKey.sessionValidatedAt, nil, Rule.validatedStamp),
            KeyWrite(StoreKey.importedFrom, nil, Rule.importedFrom),
            KeyWrite(StoreKey.importedAt, nil, Rule.importedAt),
        ]
        var plan = LifecyclePlan(name: "AuthSessionHelper.completeLogin(...)", rule: Rule.loginAccount,
                                 reads: ["the set-user answer: the formal token and the chosen account", "the login form: phone and privacy flag"],
                                 calls: contextLoadCalls(role: user.roleCode, scenicId: user.scenicId, scenicName: user.scenicName, rule: Rule.loginContextLoad),
                                 writes: writes, token: .set(token))
        plan.then = [Rule.loginContextLoad, Rule.permissionLoad, Rule.roleMatch, Rule.roleNameWhenNeeded, Rule.roleNameWrite,
                     Rule.displayState, Rule.validScenic, Rule.storeLoad, Rule.loginCommonMenus, Rule.commonMenus, Rule.commonMenuChoice,
                     Rule.validatedStamp, Rule.snapshotStamp]
        plan.phase = .loggedIn
        plan.root = .mainTab
        return plan
    }

    /// The context load's calls (seed 001 `AccountContextLoader`): userinfo ∥ role-permission, then the
    /// store list when seed 000 §4.3's condition holds on the scenic the display state leaves.
    static func contextLoadCalls(role: String?, scenicId: Int?, scenicName: String?, rule: ModelRule) -> [PlannedCall] {
        var calls = [
            PlannedCall("GET", Endpoint.userInfo.path, group: 1, rule: rule),
            PlannedCall("GET", Endpoint.rolePermissions.path, group: 1, rule: rule),
        ]
        let scenic = scenicClearReason(scenicId: scenicId, scenicName: scenicName) == nil ? scenicId : nil
        if storeLoadApplies(role: role, scenicId: scenic) {
            calls.append(PlannedCall("GET", Endpoint.storeList.path, group: 2, condition: "storeAdmin with a scenic > 0", rule: Rule.storeLoad))
        }
        return calls
    }

    // MARK: logout and expiry

    /// `AuthSessionCoordinator.logout` (seed 001 登录和退出): the token and the account snapshot go, the
    /// last phone, the privacy flag and every account-scoped key stay; sxk's account list goes too.
    public static func logout(state: AppStore) -> LifecyclePlan {
        clearing(name: "AuthSessionCoordinator.logout()", rule: Rule.logout, writes: Rule.logout, state: state)
    }

    /// `sessionDidExpire` (seed 000 §1, §2): the login state is cleared and the login page shown —
    /// the same keys as logout (inferred: the seed does not list them).
    public static func sessionExpired(state: AppStore) -> LifecyclePlan {
        clearing(name: "sessionDidExpire -> SceneDelegate: login state cleared", rule: Rule.sessionExpiry, writes: Rule.sessionExpired, state: state)
    }

    private static func clearing(name: String, rule: ModelRule, writes keysRule: ModelRule, state: AppStore) -> LifecyclePlan {
        let own: [String: ModelRule] = [
            StoreKey.snapshotSavedAt: Rule.snapshotStamp, StoreKey.sessionValidatedAt: Rule.validatedStamp,
            StoreKey.importedFrom: Rule.importedFrom, StoreKey.importedAt: Rule.importedAt,
        ]
        let writes = StoreKey.accountSnapshot.map { KeyWrite($0, nil, own[$0] ?? keysRule) }
        var plan = LifecyclePlan(name: name, rule: rule, reads: [StoreKey.token] + StoreKey.accountSnapshot.filter { state.defaults[$0] != nil },
                                 writes: writes, token: .remove)
        plan.clearsAccountList = true
        plan.phase = .loggedOut
        plan.root = .loginPage
        return plan
    }

    // MARK: restore

    /// The keys `restore` reads besides the token: the account snapshot and the current scope's lists.
    public static func restoreReads(state: AppStore) -> [String] {
        let scope = state.accountCachePrefix
        return [StoreKey.token] + AppModel.accountFields
            + [StoreKey.rolePermissionList, StoreKey.permission, StoreKey.currentRoleScenicList].map { StoreKey.scoped($0, prefix: scope) }
            + ["accounts.json (sxk's account list of the last login)"]
    }

    /// The cold start's restore: no token → the login page, the contexts empty, phase loggedOut; a
    /// token → the main tab with no backend call before it (seed 000 §1, §7.2) and the contexts filled
    /// from the account snapshot, phase restoring (seed 001 启动流程 steps 4–6), plus the last login's
    /// account list when it holds the restored account. Nothing is written. The validation seed 001
    /// makes next (userinfo ∥ role-permission, then scenic and store) is in `calls`; sxk makes it at
    /// the first command that needs the server (inferred: docs/app-behaviour.md#cold-start).
    /// The screen a launch shows (seed 000 §1: token 非空：进入 MainTabBarController；token 为空：进入
    /// LoginViewController): the one rule behind `restore`, `boot`, `explain dialog` and `home`, so no
    /// view runs the home for a state the app would open on the login page.
    public static func launchRoot(token: String?) -> RootScreen {
        token == nil ? .loginPage : .mainTab
    }

    /// Why the home, and so its menus and dialogs, is not shown on this state, with the rule's basis; nil
    /// when the launch opens the main tab with a token the server has not rejected in this process.
    public static func homeNotShown(token: String?, rejectedToken: String?) -> (reason: String, rule: RuleBasis)? {
        if launchRoot(token: token) == .loginPage {
            return ("no token: the app opens the login page, so the home never runs", Rules.root)
        }
        if let token, token == rejectedToken {
            return ("the server rejected the stored token in this process: the app goes back to the login page", Rules.sessionExpiry)
        }
        return nil
    }

    public static func restore(token: String?, state: AppStore, account: AccountContext, permission: PermissionContext) -> LifecyclePlan {
        var plan = LifecyclePlan(name: "SessionBootstrapper.restore", rule: Rule.restoreRoot, reads: restoreReads(state: state))
        guard launchRoot(token: token) == .mainTab else {
            account.reset()
            permission.reset()
            plan.root = .loginPage
            plan.phase = .loggedOut
            return plan
        }
        state.restoreContexts(account: account, permission: permission)
        if let list = try? state.accountList.read(), list.accounts.contains(where: { $0.userId == account.userId }) {
            account.setAccounts(list.accounts)
        }
        plan.root = .mainTab
        plan.phase = .restoring
        plan.calls = contextLoadCalls(role: state.roleCode, scenicId: state.currentScenicId, scenicName: state.currentScenicName, rule: Rule.restoreSnapshot)
            .map { call in
                var call = call
                // Not `joined`: the standard library's generic join looks across every conformance record of
                // the binary the first time, and every start restores.
                let when = "at the first command that needs the server"
                call.condition = call.condition.map { $0 + ", " + when } ?? when
                return call
            }
        plan.then = [Rule.restoreSnapshot, Rule.restoreLazy]
        return plan
    }
}

extension AppStore {
    /// The writes of `AppModel.completeLogin` (the context load and the menus aside): a stored login
    /// in one call, for a caller with a set-user answer in hand.
    public func saveLogin(token: String, account: Account, phone: String, privacyAccepted: Bool) throws(SessionError) {
        let plan = AppModel.completeLogin(token: token, user: account, phone: phone, privacyAccepted: privacyAccepted, now: wallClock.now())
        try AppModel.apply(plan, to: self)
    }

    /// The writes of `AppModel.logout`: the token, the account snapshot and the account list go.
    public func clearAccountSnapshot() throws(SessionError) {
        try AppModel.apply(AppModel.logout(state: self), to: self)
    }
}
