import Foundation
import SXKCore
import SXKAPI
import SXKSession

extension HomeFeature {
    /// Replays `HomeViewModel.initialize(api:)` and `evaluateDialogs(api:)` (seed 000 §4.2–4.4) on a
    /// copy in memory of the stored state: the calls the app would make are made (with `offline`, not
    /// made — the stored answers stand in), and what the app would write is returned as a key diff.
    /// Nothing is written unless `apply` is set; then exactly the diff is written and the session's
    /// contexts are re-read from it. It never validates or refreshes the session first
    /// (docs/app-behaviour.md#replays).
    public func initializeReplay(offline: Bool = false, apply: Bool = false) async throws(FeatureError) -> HomeTrace {
        let stored = contexts.store
        do { try stored.reload() } catch { throw .storage(error) }
        let scratchStore = stored.memoryCopy()
        let scratch = SessionContexts(session: AppSession(), account: AccountContext(), permission: PermissionContext(), store: scratchStore)
        let hadSnapshot = scratchStore.restoreContexts(account: scratch.account, permission: scratch.permission)
        let online = !offline && contexts.session.token != nil
        guard hadSnapshot || contexts.session.token != nil else { throw .notLoggedIn }
        let network = online
            ? HomeReplayRun.Network(
                loader: AccountContextLoader(account: loader.account, commerce: loader.commerce, contexts: scratch),
                operation: operation, sessionGuard: sessionGuard)
            : nil
        let run = HomeReplayRun(contexts: scratch, catalog: catalog, clock: clock, network: network)
        var trace = try await run.replay()
        trace.changes = KeyDiff.between(stored: stored.defaults, scratch: scratchStore.defaults)
        if apply {
            do { try KeyDiff.apply(trace.changes, to: stored) } catch { throw .storage(error) }
            // The live contexts follow what is now stored; this login's accounts and stores stay in memory.
            if contexts.account.hasAccount {
                let accounts = contexts.account.current.accounts
                stored.restoreContexts(account: contexts.account, permission: contexts.permission)
                contexts.account.setAccounts(accounts)
                contexts.account.setStores(scratch.account.current.stores)
            }
            trace.applied = true
        }
        return trace
    }

    static func title(_ dialog: HomeDialog) -> String {
        switch dialog {
        case .permission: return "permission"
        case .scenic: return "scenic"
        case .locationTimeout: return "location-timeout"
        }
    }
}

/// Numbers the calls of one replay in the order the app makes them.
final class CallOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    func take() -> Int { lock.withLock { next += 1; return next } }
}

/// One replay of the home's first appearance on scratch contexts (a copy of the stored state).
struct HomeReplayRun: Sendable {
    struct Network: Sendable {
        let loader: AccountContextLoader
        let operation: OperationAPI
        let sessionGuard: SessionGuard
    }

    let contexts: SessionContexts
    let catalog: MenuCatalog
    let clock: any WallClock
    /// nil: offline — no call is made, the stored answers stand in.
    let network: Network?
    let timer = CallTimer()
    let order = CallOrder()

    private var store: AppStore { contexts.store }
    private var scope: String { store.accountCachePrefix }

    func replay() async throws(FeatureError) -> HomeTrace {
        var steps: [HomeStep] = []
        steps.append(restoreLocationStep())
        steps.append(displayStateStep())
        steps.append(try await permissionStep())
        steps.append(commonMenusStep())
        steps.append(try await storeStep())
        let (checks, dialogStep) = try await evaluateDialogs()
        steps.append(dialogStep)
        let winner = checks.first { $0.show }
        let verdict = winner.map { "the app would show the \(HomeFeature.title($0.dialog)) dialog: \($0.reason)" }
            ?? "no dialog: " + checks.map { "\(HomeFeature.title($0.dialog)) — \($0.reason)" }.joined(separator: "; ")
        // The priority is documented; whether a dialog shows rests on inferred conditions.
        let decidedBy = winner?.rule ?? checks.first { $0.rule.basis == .inferred }?.rule ?? Rules.dialogPriority
        return HomeTrace(steps: steps, checks: checks, dialog: winner?.dialog, verdict: verdict, verdictRule: decidedBy,
                         offline: network == nil, changes: [], applied: false)
    }

    /// A call the app makes here: made online, listed as not made offline.
    private func call<T>(_ method: String, _ path: String, offlineNote: String, _ body: @Sendable () async throws -> T) async throws(FeatureError) -> (ReplayCall, T?) {
        let n = order.take()
        guard let network else {
            return (ReplayCall(order: n, method: method, path: path, made: false, record: nil, note: offlineNote), nil)
        }
        let sink = CallSink()
        let timer = self.timer
        do {
            let value = try await network.sessionGuard.run(path) { try await timer.record(method, path, into: sink, body) }
            return (ReplayCall(order: n, method: method, path: path, made: true, record: sink.records.first, note: nil), value)
        } catch let error where error.isSessionExpired {
            throw error
        } catch {
            return (ReplayCall(order: n, method: method, path: path, made: true, record: sink.records.first, note: "\(error)"), nil)
        }
    }

    /// 1. `locationStateStore.restoreStateIfNeeded()`: the 2-hour rule, no network (seed 000 §6.3).
    private func restoreLocationStep() -> HomeStep {
        var step = HomeStep(name: "locationStateStore.restoreStateIfNeeded()", rule: Rules.locationRestore)
        step.reads = [
            "\(scope)_key_online_status = \(store.onlineStatus.map { String($0) } ?? "nil")",
            "\(scope)_key_last_location_report_time = \(store.lastLocationReportTime.map { LocalTime.human($0) } ?? "nil")",
            "\(scope)_key_location_reminder_minutes = \(store.locationReminderMinutes.map(String.init) ?? "nil")",
        ]
        do {
            let effects = try LocationStateStore(store: store, clock: clock).restore().effects(scope: scope)
            step.stores = effects.stores
            step.notes = [effects.note]
        } catch {
            step.notes = ["could not apply to the scratch copy: \(error)"]
        }
        return step
    }

    /// 2. `refreshLocalDisplayState()`: no valid scenic → id and name cleared (seed 000 §4.2).
    private func displayStateStep() -> HomeStep {
        let a = contexts.account.current
        let reason = AccountContextLoader.displayStateClearReason(scenicId: a.scenicId, scenicName: a.scenicName)
        var step = HomeStep(name: "refreshLocalDisplayState()", rule: reason == nil && a.scenicId == nil ? Rules.displayState : Rules.validScenic)
        step.reads = [
            "key_in_current_scenic_id = \(a.scenicId.map(String.init) ?? "nil")",
            "key_in_current_scenic_name = \(a.scenicName ?? "nil")",
            "key_in_role_code = \(contexts.permission.roleCode ?? "nil")",
        ]
        if let why = reason {
            contexts.account.setScenic(id: nil, name: nil)
            try? store.setCurrentScenic(id: nil, name: nil)
            step.stores = ["key_in_current_scenic_id removed", "key_in_current_scenic_name removed"]
            step.notes = ["scenic cleared: \(why)"]
        } else if let id = a.scenicId {
            step.notes = ["scenic \(id) \(a.scenicName ?? "") kept: a valid scenic (> 0); the role's list is not consulted here"]
        } else {
            step.notes = ["no scenic selected: nothing to clear"]
        }
        return step
    }

    /// 3. `loadPermissions(api:force: true)`: GET role-permission; list, scenic list, flat permissions
    /// and (when matched) the role name saved (seed 000 §4.2). Offline the stored list is the answer.
    private func permissionStep() async throws(FeatureError) -> HomeStep {
        var step = HomeStep(name: "loadPermissions(api:force: true)", rule: Rules.permissionLoad)
        step.reads = ["key_in_role_code = \(contexts.permission.roleCode ?? "nil")"]
        let stored = store.hasRolePermissionList ? store.rolePermissionList() : nil
        let api = network?.loader.account
        let (record, answer) = try await call("GET", Endpoint.rolePermissions.path,
            offlineNote: stored == nil ? "offline: no stored role-permission list to stand in" : "offline: the stored role-permission list stands in") {
            try await api!.rolePermissions().value
        }
        step.calls = [record]
        guard let roles = answer ?? (network == nil ? stored : nil) else {
            step.skipped = network == nil
            step.notes = [network == nil ? "no answer and none stored: permissions unchanged" : "call failed: stored permissions kept"]
            return step
        }
        let derivation = contexts.permission.setRolePermissions(roles)
        let p = contexts.permission.current
        try? store.batch { () throws(SessionError) in
            try store.saveRolePermissionList(roles)
            try store.saveRoleScenicList(p.scenicList)
            try store.savePermissionItems(p.permissions)
            if derivation.matched != nil { try store.setRole(code: p.roleCode, name: p.roleName) }
        }
        step.stores = [
            "\(scope)_key_role_permission_list = \(roles.count) roles",
            "\(scope)_key_current_role_scenic_list = \(p.scenicList.count) scenic areas",
            "\(scope)_key_in_permission = \(p.permissions.count) permissions",
        ] + (derivation.matched != nil ? ["key_in_role_name = \(p.roleName ?? "nil")"] : [])
        if let matched = derivation.matched, derivation.exactMatch {
            step.notes = ["matched role \(matched.roleCode)"]
        } else {
            step.rule = Rules.roleMatch
            step.notes = [derivation.reason ?? "no entry matched"]
        }
        return step
    }

    /// The home rebuilds its common menus from the permissions (seed 000 §4.2, §6.2): with permissions
    /// and no record, at most 4 defaults — the first 4 of the permission list (inferred) — are written.
    private func commonMenusStep() -> HomeStep {
        var step = HomeStep(name: "rebuild common menus (HomeCommonMenuStore)", rule: Rules.commonMenus)
        let visible = catalog.visibleMenus(permissions: contexts.permission.current.permissions)
        step.reads = ["\(scope)_key_in_permission → \(visible.count) menus"]
        guard let role = contexts.permission.roleCode, !role.isEmpty else {
            step.skipped = true
            step.notes = ["no role: nothing to rebuild"]
            return step
        }
        let key = StoreKey.commonMenuURIs(prefix: scope, roleCode: role)
        let existing = store.commonMenuURIs(roleCode: role)
        step.reads.append("\(key) = \(existing.map { "\($0.count) URIs" } ?? "nil")")
        if let existing {
            step.notes = ["record kept: " + (existing.isEmpty ? "(none)" : existing.joined(separator: ", "))]
            return step
        }
        guard let uris = try? CommonMenuStore(store: store).commonURIs(roleCode: role, visibleURIs: visible.map(\.uri)), !uris.isEmpty else {
            step.notes = ["no permissions: nothing written"]
            return step
        }
        step.rule = Rules.commonMenuChoice
        step.stores = ["\(key) = first \(uris.count) of the permission list (default)"]
        step.notes = ["default: " + uris.joined(separator: ", ")]
        return step
    }

    /// 4. `loadStoreListIfNeeded(api:)`: only storeAdmin with currentScenicId > 0; writes only a match (seed 000 §4.3).
    private func storeStep() async throws(FeatureError) -> HomeStep {
        var step = HomeStep(name: "loadStoreListIfNeeded(api:)", rule: Rules.storeLoad)
        let a = contexts.account.current
        let role = contexts.permission.roleCode ?? "nil"
        step.reads = ["key_in_role_code = \(role)", "key_in_current_scenic_id = \(a.scenicId.map(String.init) ?? "nil")",
                      "key_in_current_store_id = \(a.storeId.map(String.init) ?? "nil")"]
        guard role == RoleCode.storeAdmin, (a.scenicId ?? 0) > 0 else {
            step.skipped = true
            step.notes = [role != RoleCode.storeAdmin ? "role \(role) is not storeAdmin: no request" : "no current scenic (> 0): no request"]
            return step
        }
        let api = network?.loader.commerce
        let (record, answer) = try await call("GET", Endpoint.storeList.path,
            offlineNote: "offline: the store list is never stored (seed 000 §4.3), so the match is unknown") {
            try await api!.storeList().value
        }
        step.calls = [record]
        guard let stores = answer else {
            step.notes = ["no store list: key_in_current_store_id unchanged"]
            return step
        }
        contexts.account.setStores(stores)
        let inScenic = stores.filter { $0.scenicId == a.scenicId }
        if let saved = a.storeId, let match = inScenic.first(where: { $0.storeId == saved }) {
            contexts.account.setStoreId(match.storeId)
            try? store.setCurrentStoreId(match.storeId)
            step.stores = ["key_in_current_store_id = \(match.storeId)"]
            step.notes = ["store \(match.storeId) \(match.storeName) matched among \(inScenic.count) stores of scenic \(a.scenicId ?? 0)"]
        } else {
            step.notes = ["no store of scenic \(a.scenicId ?? 0) has the saved id \(a.storeId.map(String.init) ?? "nil"): nothing written, no store chosen"]
        }
        return step
    }

    /// 5. `evaluateDialogs(api:)`: permission → scenic → location timeout (priority and the location
    /// call's condition: seed 000 §4.4; the dialogs' own conditions: inferred).
    private func evaluateDialogs() async throws(FeatureError) -> ([DialogCheck], HomeStep) {
        var step = HomeStep(name: "evaluateDialogs(api:)", rule: Rules.dialogPriority)
        let p = contexts.permission.current
        let a = contexts.account.current
        let reminder = store.locationReminderMinutes
        step.reads = [
            "\(scope)_key_in_permission = \(p.permissions.count) permissions",
            "\(scope)_key_current_role_scenic_list = \(p.scenicList.count) scenic areas",
            "key_in_current_scenic_id = \(a.scenicId.map(String.init) ?? "nil")",
            "key_in_role_code = \(p.roleCode ?? "nil")",
            "\(scope)_key_location_reminder_minutes = \(reminder.map(String.init) ?? "nil")",
        ]
        var checks = DialogRules.localChecks(permissions: p.permissions, scenicList: p.scenicList, scenicId: a.scenicId)
        let needPermission = checks[0].show, needScenic = checks[1].show
        var location: DialogCheck
        if let settled = HomeFeature.locationTimeoutSettledLocally(
            needPermission: needPermission, needScenic: needScenic, role: p.roleCode ?? "", reminder: reminder) {
            location = settled
        } else if let staffId = a.userId, let minutes = reminder {
            location = DialogCheck(dialog: .locationTimeout, show: false, reason: "", evaluated: true, rule: Rules.locationTimeoutDecision)
            let api = network?.operation
            let (record, answer) = try await call("GET", Endpoint.locationDetail.path + "?staff_id=\(staffId)",
                offlineNote: "offline: the location detail answer is never stored (seed 000 §4.4)") {
                try await api!.locationDetail(staffId: staffId).value
            }
            step.calls = [record]
            if let detail = answer {
                (location.show, location.reason) = DialogRules.decideTimeout(detail, reminderMinutes: minutes, storedLast: store.lastLocationReportTime, now: clock.now())
            } else {
                location.reason = network == nil ? "undecided: the location detail call is not made offline" : "location detail failed: \(record.note ?? "")"
            }
        } else {
            location = DialogCheck(dialog: .locationTimeout, show: false, reason: "no user id: location detail not called", evaluated: true, rule: Rules.locationCallCondition)
        }
        checks.append(location)
        step.notes = checks.map { "\(HomeFeature.title($0.dialog)): \(!$0.evaluated ? "not evaluated" : $0.show ? "show" : "no") — \($0.reason) \($0.rule.marker)" }
        return (checks, step)
    }
}
