import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

/// One link of an explanation: the key read (nil for a rule with no stored input), its value, the
/// rule applied, and the rule's basis.
public struct ExplainStep: Sendable, Equatable {
    public var key: String?
    public var value: String
    public var rule: String
    public var basis: RuleBasis

    public init(key: String?, value: String, rule: String, basis: RuleBasis) {
        self.key = key; self.value = value; self.rule = rule; self.basis = basis
    }

    public var json: JSONValue {
        basis.annotate(["key": key.map { .string($0) } ?? .null, "value": .string(value), "rule": .string(rule)])
    }

    /// `5001_store_key_in_permission = 3 permissions — rule [documented: seed 000 §4.2]`
    /// A value whose key names a secret is shown as `***`, as the JSON view shows it (`Redaction`).
    public var line: String {
        let shown = key.map { Redaction.shown(value, namedBy: $0) } ?? value
        return "\(key.map { "\($0) = \(shown)" } ?? shown) — \(rule) \(basis.marker)"
    }
}

/// What the app would show for one subject and the chain that leads there.
public struct Explanation: Sendable, Equatable {
    public var subject: String
    public var verdict: String
    /// The verdict's basis: inferred when any link that decided it is inferred.
    public var basis: Basis
    public var steps: [ExplainStep]

    public var json: JSONValue {
        ["subject": .string(subject), "verdict": .string(verdict), "basis": .string(basis.rawValue), "steps": .array(steps.map(\.json))]
    }
}

/// `explain`: the stored values and rules behind a menu, a dialog, the account scope or a key, read
/// from the profile as stored (nothing is called or written).
public struct ExplainFeature: Sendable {
    public let store: AppStore
    public let catalog: MenuCatalog
    public let clock: any WallClock
    /// The token the server rejected in this process (`SessionGuard.rejectedToken`): when it is the
    /// stored one, the home's first call is answered by that rejection, as `home` answers it.
    public var rejectedToken: String?

    public init(store: AppStore, catalog: MenuCatalog, clock: any WallClock) {
        self.store = store; self.catalog = catalog; self.clock = clock
    }

    private var scopePrefix: String { store.accountCachePrefix }
    private var stamp: String {
        // sxk's stamp of the last account snapshot write, not when this key was written.
        store.snapshotSavedAt.map { ", snapshot last saved \(LocalTime.human($0))" } ?? ""
    }

    /// The stored role code as a step shows it: a stored empty one is no role, said, not printed as nothing.
    private var storedRole: String {
        store.roleCode.map { $0.isEmpty ? "\"\" (empty: no role)" : AppModel.shownCode($0) } ?? "nil"
    }

    /// The current role's permissions, as a verdict names them.
    private var rolesPermissions: String {
        store.roleCode.flatMap { $0.isEmpty ? nil : "role \(AppModel.shownCode($0))'s permissions" } ?? "the permissions stored with no role"
    }

    private func verdictBasis(_ steps: [ExplainStep]) -> Basis {
        steps.contains { $0.basis.basis == .inferred } ? .inferred : .documented
    }

    // MARK: menu

    public func menu(_ uri: String) throws(FeatureError) -> Explanation {
        try reload()
        let role = store.roleCode ?? "nil"
        let permissionKey = StoreKey.scoped(StoreKey.permission, prefix: scopePrefix)
        let permissions = store.permissionItems()
        var steps = [
            ExplainStep(key: StoreKey.roleCode, value: storedRole, rule: "the current role", basis: Rules.storage),
            ExplainStep(key: permissionKey, value: "\(permissions.count) permissions\(stamp)",
                        rule: "the current role's flat permissions, saved by loadPermissions; menus come from them", basis: Rules.permissionLoad),
        ]
        let granted = permissions.first { $0.uri == uri }
        let verdict: String
        if let granted {
            let entry = catalog.entry(uri: uri)
            steps.append(ExplainStep(key: nil, value: entry.map { "title \($0.title)" } ?? "unknown to sxk's catalog (permission name \(granted.name))",
                                     rule: "menu titles are sxk's display aid; an unknown URI is still a menu", basis: Rules.menuTitles))
            verdict = "menu \(uri) shown: \(rolesPermissions) (\(permissionKey)\(stamp)) hold it"
        } else {
            let others = store.rolePermissionList().filter { $0.roleCode != role && $0.permissions.contains { $0.uri == uri } }.map(\.roleCode)
            if !others.isEmpty {
                steps.append(ExplainStep(key: StoreKey.scoped(StoreKey.rolePermissionList, prefix: scopePrefix), value: "held by role \(others.joined(separator: ", "))",
                                         rule: "other roles' permissions never apply to the current role", basis: Rules.roleMatch))
            }
            verdict = "menu \(uri) hidden: \(rolesPermissions) (\(permissionKey)\(stamp)) lack it"
        }
        // The home's forced permission load re-derives the role's permissions first (the app model,
        // the stored list standing in offline): say when the next home would judge otherwise.
        var nextHome = verdict
        if let after = AppModel.permissionsAfterOfflineLoad(store: store) {
            let derived = after.permissions
            let holds = derived.contains { $0.uri == uri }
            if holds != (granted != nil) {
                steps.append(ExplainStep(key: StoreKey.scoped(StoreKey.rolePermissionList, prefix: scopePrefix),
                    value: "\(derived.count) permissions for \(role.isEmpty ? "no role" : "role " + AppModel.shownCode(role)) after the load",
                    rule: "the next home's loadPermissions re-derives the flat permissions from this list (standing in for the answer offline): the menu would then be \(holds ? "shown" : "hidden")",
                    basis: after.roleCode == store.roleCode && derived.isEmpty ? Rules.roleMatch : Rules.offlineStandIn))
                nextHome = verdict + "; at the next home it would be \(holds ? "shown" : "hidden")"
            }
        }
        if role != "nil", !role.isEmpty {
            let commonKey = StoreKey.commonMenuURIs(prefix: scopePrefix, roleCode: role)
            let common = store.commonMenuURIs(roleCode: role)
            steps.append(ExplainStep(key: commonKey, value: common.map { $0.contains(uri) ? "holds it" : "does not hold it" } ?? "no record",
                                     rule: "the common menus of this scope and role", basis: Rules.commonMenus))
        }
        // No home without a usable token (as `boot` and `explain dialog` say): the permissions tell what a login would show.
        let token: String?
        do { token = try store.token() } catch { throw .storage(error) }
        if let absent = AppModel.homeNotShown(token: token, rejectedToken: rejectedToken) {
            steps.insert(ExplainStep(key: StoreKey.token, value: token.map(Redaction.maskToken) ?? "nil", rule: absent.reason, basis: absent.rule), at: 0)
            nextHome = "menu \(uri) not shown: \(absent.reason); after a login, \(nextHome)"
        }
        return Explanation(subject: "menu \(uri)", verdict: nextHome, basis: verdictBasis(steps), steps: steps)
    }

    // MARK: dialog

    /// The three home dialogs in priority order (or one), as the app model's offline home replay
    /// decides them: the same answer as `home --offline` and `boot` for this state.
    public func dialogs(_ only: HomeDialog? = nil) async throws(FeatureError) -> (dialog: JSONValue, explanations: [Explanation]) {
        let judged = try await judgedDialogs(only)
        return (judged.dialog, judged.explanations)
    }

    /// `dialogs`, and whether the home judged them offline on the stored state (a token not rejected
    /// in this process): then their verdict holds if the server answers as stored (`AppModel.offlineCondition`).
    public func judgedDialogs(_ only: HomeDialog? = nil) async throws(FeatureError) -> (dialog: JSONValue, explanations: [Explanation], offline: Bool) {
        try reload()
        let permissionKey = StoreKey.scoped(StoreKey.permission, prefix: scopePrefix)
        let scenicListKey = StoreKey.scoped(StoreKey.currentRoleScenicList, prefix: scopePrefix)
        let reminderKey = StoreKey.scoped(StoreKey.locationReminderMinutes, prefix: scopePrefix)
        let listKey = StoreKey.scoped(StoreKey.rolePermissionList, prefix: scopePrefix)
        // No token: the launch opens the login page, and the home and its dialogs never run (as `boot`).
        let token: String?
        do { token = try store.token() } catch { throw .storage(error) }
        if AppModel.launchRoot(token: token) == .loginPage {
            let read = ExplainStep(key: StoreKey.token, value: "nil", rule: "no token: the app opens the login page, not the main tab", basis: Rules.root)
            let none = Explanation(subject: "dialog", verdict: "no dialog: without a token the app opens the login page and the home never runs",
                                   basis: verdictBasis([read]), steps: [read])
            return (.null, [none], false)
        }
        let trace = try await AppModel.homeOffline(store: store, catalog: catalog, clock: clock, rejectedToken: rejectedToken)
        if trace.sessionExpired {
            let read = ExplainStep(key: StoreKey.token, value: Redaction.maskToken(token ?? ""), rule: trace.steps.last?.reads.first ?? HomeReplayRun.knownRejectionNote, basis: Rules.sessionExpiry)
            let none = Explanation(subject: "dialog", verdict: "no dialog: \(trace.verdict)", basis: verdictBasis([read]), steps: [read])
            return (.null, [none], false)
        }
        // What the forced permission load leaves, with the stored list standing in for the answer.
        let derived = AppModel.permissionsAfterOfflineLoad(store: store)
        let derivedPermissions = derived?.permissions ?? store.permissionItems()
        let derivedScenics = derived?.scenicList ?? store.roleScenicList()
        let permissionNote = trace.steps.first { $0.name == "loadPermissions(api:force: true)" }
        let rawScenic = store.currentScenicId
        let role = store.roleCode ?? ""
        let reminder = store.locationReminderMinutes
        let priority = ExplainStep(key: nil, value: "permission → scenic → location timeout", rule: "dialog priority; the first that applies wins", basis: Rules.dialogPriority)
        let load = ExplainStep(
            key: listKey, value: store.hasRolePermissionList ? "\(store.rolePermissionList().count) roles\(stamp)" : "nil",
            rule: "the home's forced loadPermissions re-derives the role's lists first; offline the stored list stands in for the answer: "
                + (permissionNote?.notes.first ?? "no list stored, the stored permissions stay"),
            basis: permissionNote?.rule ?? Rules.permissionLoad)
        var out: [Explanation] = []
        for check in trace.checks where only == nil || only == check.dialog {
            var steps = [priority]
            switch check.dialog {
            case .permission:
                steps.append(load)
                // With no list stored the load's answer is not known offline: no count is made up.
                steps.append(ExplainStep(key: permissionKey, value: derived == nil ? "unknown after the load: no role-permission list stored to stand in (stored now: \(store.permissionItems().count))"
                                            : "\(derivedPermissions.count) permissions after the load (stored: \(store.permissionItems().count))",
                                         rule: "shown when the current role has no permissions", basis: Rules.permissionDialog))
            case .scenic:
                steps.append(load)
                steps.append(ExplainStep(key: scenicListKey, value: derived == nil ? "unknown after the load: no role-permission list stored" : "\(derivedScenics.count) scenic areas after the load",
                                         rule: "the role's scenic areas to choose from", basis: derived == nil ? Rules.offlineStandIn : Rules.permissionLoad))
                steps.append(ExplainStep(key: StoreKey.currentScenicId, value: rawScenic.map(String.init) ?? "nil",
                                         rule: "cleared first when not a valid scenic (> 0)", basis: Rules.validScenic))
                steps.append(ExplainStep(key: nil, value: check.reason, rule: "shown when the role has scenic areas and none is selected", basis: Rules.scenicDialog))
            case .locationTimeout:
                steps.append(ExplainStep(key: StoreKey.roleCode, value: role.isEmpty ? "nil" : role, rule: "not for the simplified-top roles (\(DialogRules.simplifiedTopRoles.sorted().joined(separator: ", ")))", basis: Rules.simplifiedTop))
                steps.append(ExplainStep(key: reminderKey, value: reminder.map(String.init) ?? "nil", rule: "the location detail call is made only with reminder minutes set", basis: Rules.locationCallCondition))
                // What decided this check, with its basis: the timeout rule itself, or what settled it before
                // that rule applies (a dialog first, the simplified top bar, the call's condition).
                let byTimeout = check.rule == Rules.locationTimeoutDecision
                steps.append(ExplainStep(key: nil, value: check.reason,
                                         rule: byTimeout ? "timeout when online and the last report is older than the reminder; the answer is never stored"
                                             : "settled before the timeout rule (online and the last report older than the reminder) applies",
                                         basis: check.rule))
            }
            let state = !check.evaluated ? "not evaluated" : check.show ? "shown" : check.undecided ? "undecided" : "not shown"
            out.append(Explanation(subject: "dialog \(check.dialog.rawValue)", verdict: "\(HomeFeature.title(check.dialog)) dialog \(state): \(check.reason)",
                                   basis: verdictBasis(steps), steps: steps))
        }
        return (trace.dialogAnswer, out, true)
    }

    // MARK: scope

    public func scope() throws(FeatureError) -> Explanation {
        try reload()
        let userId = store.userId
        let type = store.accountType
        var steps = [
            ExplainStep(key: StoreKey.userId, value: userId.map(String.init) ?? "nil", rule: "the account scope is userId_accountType, guest without a user id", basis: Rules.storage),
            ExplainStep(key: StoreKey.accountType, value: type ?? "nil", rule: "the account type is the scope's second part", basis: Rules.storage),
        ]
        if userId != nil, (type ?? "").isEmpty {
            steps.append(ExplainStep(key: nil, value: "guest", rule: "no account type: sxk uses the guest scope, never a guessed type", basis: Rules.missingAccountType))
        }
        steps.append(ExplainStep(key: nil, value: "\(scopePrefix)_<key>", rule: "scoped keys are joined to the scope with _", basis: Rules.scopeJoiner))
        let role = store.roleCode
        steps.append(ExplainStep(key: StoreKey.roleCode, value: storedRole, rule: "the current role", basis: Rules.storage))
        let scenic = store.currentScenicId
        let invalid = AppModel.scenicClearReason(scenicId: scenic, scenicName: store.currentScenicName)
        steps.append(ExplainStep(key: StoreKey.currentScenicId, value: scenic.map(String.init) ?? "nil",
                                 rule: invalid.map { "cleared at the next home: \($0)" } ?? "kept at the next home (valid = > 0)", basis: Rules.validScenic))
        steps.append(ExplainStep(key: StoreKey.currentStoreId, value: store.currentStoreId.map(String.init) ?? "nil",
                                 rule: "rewritten only when the store list holds it in the current scenic (storeAdmin)", basis: Rules.storeLoad))
        return Explanation(subject: "scope", verdict: "account scope \(scopePrefix), role \(role.map { $0.isEmpty ? "none (stored empty)" : AppModel.shownCode($0) } ?? "none"), scenic \(invalid == nil ? scenic.map(String.init) ?? "none" : "none"), store \(AppModel.currentStore(store.currentStoreId).map(String.init) ?? store.currentStoreId.map { "none (stored \($0))" } ?? "none")",
                           basis: verdictBasis(steps), steps: steps)
    }

    // MARK: key

    public func key(_ key: String) throws(FeatureError) -> Explanation {
        try reload()
        let value = key == StoreKey.token ? ((try? store.token()) ?? nil).map(Redaction.maskToken) ?? "nil"
            : store.defaults[key].map { KeyValueText.text($0) } ?? "nil"
        let kind = StoreKey.kind(of: key)
        // A key no seed names is read from storage all the same, but the seed's storage rule is not its basis.
        var unknown = false
        switch kind {
        case .unknown, .scopedUnmodelled: unknown = true
        default: break
        }
        var steps = [ExplainStep(key: key, value: value.count > 120 ? String(value.prefix(117)) + "…" : value, rule: "stored value",
                                 basis: unknown ? Rules.unmodelledKey : Rules.storage)]
        let name: String
        switch kind {
        case .nonScoped: name = key
        case .scoped(let prefix, let n):
            name = n
            steps.append(ExplainStep(key: nil, value: "scope \(prefix)", rule: prefix == scopePrefix ? "the current account's scope" : "another account's scope (kept at logout, read only by that account)", basis: Rules.scopeJoiner))
        case .commonMenus(let prefix, let role):
            name = "common_uris"
            steps.append(ExplainStep(key: nil, value: "scope \(prefix), role \(role)", rule: "common menus of that scope and role", basis: Rules.commonMenus))
        case .sxk:
            name = key
            if AppModel.writers[key] == nil {
                steps.append(ExplainStep(key: nil, value: "sxk's own", rule: "bookkeeping of sxk (what `-` goes back to, stamps), not the app's; `keys --all` lists it", basis: .inferred("storage")))
            }
        case .scopedUnmodelled(let prefix, let rest):
            steps.append(ExplainStep(key: nil, value: "scope \(prefix), name \(rest)",
                rule: "in an account's scope, so taken for the app's: seed 000 §6.1 lists settings of that scope (the queue-calling ones) without naming their keys",
                basis: .inferred("storage")))
            steps.append(ExplainStep(key: nil, value: "not modelled", rule: "sxk keeps it as imported and shows it, but no replay reads or writes it", basis: Rules.unmodelledKey))
            return Explanation(subject: "key \(key)", verdict: "\(key) is in account scope \(prefix) but not modelled by sxk", basis: .inferred, steps: steps)
        case .unknown:
            steps.append(ExplainStep(key: nil, value: "outside every account scope", rule: "not among the keys seed 000 §6.1 names, and not in an account's scope", basis: Rules.unmodelledKey))
            return Explanation(subject: "key \(key)", verdict: "\(key) is not a key sxk knows of the app's AppStore", basis: .inferred, steps: steps)
        }
        // Who writes (or how the app reads) the key: the app model's rules that declare it (`AppModel.rules`).
        for rule in AppModel.writers[name] ?? [] {
            steps.append(ExplainStep(key: nil, value: "\(rule.readsOnly ? "read by" : "written by") \(rule.function)", rule: rule.what, basis: rule.basis))
        }
        // A stored location status the next home drops is said as `home` and `boot` say it.
        var verdict = "\(key) = \(steps[0].value)"
        if let change = AppModel.locationRestoreChange(store: store, clock: clock, rejectedToken: rejectedToken), change.keys.contains(key) {
            steps.append(ExplainStep(key: nil, value: "removed \(change.when)", rule: "restoreStateIfNeeded: \(change.note)", basis: change.rule))
            verdict += " as stored; restoreStateIfNeeded removes it \(change.when) (\(change.note))"
        }
        return Explanation(subject: "key \(key)", verdict: verdict, basis: verdictBasis(steps), steps: steps)
    }

    private func reload() throws(FeatureError) {
        do { try store.reload() } catch { throw .storage(error) }
    }
}
