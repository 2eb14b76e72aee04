import Foundation
import SXKCore
import SXKAPI
import SXKSession

extension HomeFeature {
    /// Replays `HomeViewModel.initialize(api:)` and `evaluateDialogs(api:)` step by step for the current
    /// account (seed 000 §4.2–4.4), really doing what the app does (location restore, permission load,
    /// store load, location detail) and recording each step. Without a token (an imported device
    /// profile) the network steps are skipped and the stored data is used. A session expiry resets the
    /// session and throws; other call failures are recorded and the replay goes on as the app would.
    public func initializeReplay() async throws(FeatureError) -> HomeTrace {
        let timer = CallTimer()
        let online = contexts.session.token != nil
        // Without a token the replay explains a stored (e.g. imported) account; with neither there is nothing to explain.
        guard online || contexts.account.userId != nil else { throw .notLoggedIn }
        var steps: [HomeStep] = []

        steps.append(try restoreLocationStep())
        steps.append(displayStateStep())
        steps.append(try await permissionStep(timer: timer, online: online))
        steps.append(try commonMenusStep())
        steps.append(try await storeStep(timer: timer, online: online))

        let (checks, dialogStep) = try await evaluateDialogs(timer: timer, online: online)
        steps.append(dialogStep)
        let winner = checks.first { $0.show }
        let verdict = winner.map { "the app would show the \(HomeFeature.title($0.dialog)) dialog: \($0.reason)" }
            ?? "no dialog: " + checks.map { "\(HomeFeature.title($0.dialog)) — \($0.reason)" }.joined(separator: "; ")
        return HomeTrace(steps: steps, checks: checks, dialog: winner?.dialog, verdict: verdict)
    }

    static func title(_ dialog: HomeDialog) -> String {
        switch dialog {
        case .permission: return "permission"
        case .scenic: return "scenic"
        case .locationTimeout: return "location-timeout"
        }
    }

    private var scope: String { contexts.store.accountCachePrefix }

    /// 1. `locationStateStore.restoreStateIfNeeded()`: the 2-hour rule, no network.
    private func restoreLocationStep() throws(FeatureError) -> HomeStep {
        let store = contexts.store
        var step = HomeStep(name: "locationStateStore.restoreStateIfNeeded()")
        let onlineText: String = store.onlineStatus.map { String($0) } ?? "nil"
        let lastText: String = store.lastLocationReportTime.map { WireDate.timestamp($0) } ?? "nil"
        let reminderText: String = store.locationReminderMinutes.map { String($0) } ?? "nil"
        let prefix = scope
        step.reads = [
            "\(prefix)_key_online_status = \(onlineText)",
            "\(prefix)_key_last_location_report_time = \(lastText)",
            "\(prefix)_key_location_reminder_minutes = \(reminderText)",
        ]
        let outcome: LocationStateStore.RestoreOutcome
        do { outcome = try locationStore.restore() } catch { throw .storage(error) }
        let effects = outcome.effects(scope: scope)
        step.stores = effects.stores
        step.notes = [effects.note]
        return step
    }

    /// 2. `refreshLocalDisplayState()`: current scenic and role; an invalid scenic is cleared.
    private func displayStateStep() -> HomeStep {
        let a = contexts.account.current
        var step = HomeStep(name: "refreshLocalDisplayState()")
        step.reads = [
            "key_in_current_scenic_id = \(a.scenicId.map(String.init) ?? "nil")",
            "key_in_current_scenic_name = \(a.scenicName ?? "nil")",
            "key_in_role_code = \(contexts.permission.roleCode ?? "nil")",
        ]
        let check = loader.refreshLocalDisplayState()
        if let why = check.clearedBecause {
            do {
                try contexts.store.setCurrentScenic(id: nil, name: nil)
                step.stores = ["key_in_current_scenic_id removed", "key_in_current_scenic_name removed"]
            } catch {
                step.notes.append("could not save: \(error)")
            }
            step.notes.append("scenic cleared: \(why)")
        } else if let id = check.scenicId {
            step.notes.append("scenic \(id) \(check.scenicName ?? "") kept")
        } else {
            step.notes.append("no scenic selected")
        }
        return step
    }

    /// 3. `loadPermissions(api:force: true)`: GET role-permission; list, scenic list, flat permissions, role name saved.
    private func permissionStep(timer: CallTimer, online: Bool) async throws(FeatureError) -> HomeStep {
        var step = HomeStep(name: "loadPermissions(api:force: true)")
        step.reads = ["key_in_role_code = \(contexts.permission.roleCode ?? "nil")"]
        guard online else {
            step.skipped = true
            step.notes = ["no token: stored permissions used (\(contexts.permission.current.permissions.count) items)"]
            return step
        }
        let sink = CallSink()
        let api = loader.account
        do throws(FeatureError) {
            let roles = try await sessionGuard.run("role-permission") {
                try await timer.record("GET", Endpoint.rolePermissions.path, into: sink) { try await api.rolePermissions().value }
            }
            let derivation = contexts.permission.setRolePermissions(roles)
            let p = contexts.permission.current
            do throws(SessionError) {
                try contexts.store.batch { () throws(SessionError) in
                    try contexts.store.saveRolePermissionList(roles)
                    try contexts.store.saveRoleScenicList(p.scenicList)
                    try contexts.store.savePermissionItems(p.permissions)
                    try contexts.store.setRole(code: p.roleCode, name: p.roleName)
                }
            } catch {
                throw FeatureError.storage(error)
            }
            step.stores = [
                "\(scope)_key_role_permission_list = \(roles.count) roles",
                "\(scope)_key_current_role_scenic_list = \(p.scenicList.count) scenic areas",
                "\(scope)_key_in_permission = \(p.permissions.count) permissions",
                "key_in_role_name = \(p.roleName ?? "nil")",
            ]
            if let matched = derivation.matched {
                step.notes.append(derivation.exactMatch
                    ? "matched role \(matched.roleCode)"
                    : "role \(contexts.permission.roleCode ?? "?") not in the list: first entry \(matched.roleCode) used")
            } else {
                step.notes.append("role-permission list is empty")
            }
        } catch let error where error.isSessionExpired {
            throw error
        } catch {
            step.notes.append("failed: \(error); stored permissions kept")
        }
        step.calls = sink.records
        // A scenic that the fresh scenic list no longer holds is cleared, as the display state would.
        if let why = loader.refreshLocalDisplayState().clearedBecause {
            try? contexts.store.setCurrentScenic(id: nil, name: nil)
            step.notes.append("scenic cleared: \(why)")
        }
        return step
    }

    /// The home rebuilds its common menus from the stored permissions (seed §4.2, §6.2).
    private func commonMenusStep() throws(FeatureError) -> HomeStep {
        var step = HomeStep(name: "rebuild common menus (HomeCommonMenuStore)")
        let visible = visibleMenus()
        step.reads = ["\(scope)_key_in_permission → \(visible.count) visible menus"]
        guard let role = contexts.permission.roleCode, !role.isEmpty else {
            step.skipped = true
            step.notes = ["no role: nothing to rebuild"]
            return step
        }
        let existed = contexts.store.commonMenuURIs(roleCode: role) != nil
        let menus = try commonMenus()
        step.reads.append("\(menus.key) = \(existed ? "\(menus.uris.count) URIs" : "nil")")
        if menus.defaulted { step.stores = ["\(menus.key) = first \(menus.uris.count) visible menus (default)"] }
        step.notes = ["common menus: " + (menus.menus.isEmpty ? "(none)" : menus.menus.map(\.title).joined(separator: ", "))]
        return step
    }

    /// 4. `loadStoreListIfNeeded(api:)`: only storeAdmin with currentScenicId > 0.
    private func storeStep(timer: CallTimer, online: Bool) async throws(FeatureError) -> HomeStep {
        var step = HomeStep(name: "loadStoreListIfNeeded(api:)")
        let a = contexts.account.current
        let role = contexts.permission.roleCode ?? "nil"
        step.reads = ["key_in_role_code = \(role)", "key_in_current_scenic_id = \(a.scenicId.map(String.init) ?? "nil")",
                      "key_in_current_store_id = \(a.storeId.map(String.init) ?? "nil")"]
        guard loader.storeLoadApplies else {
            step.skipped = true
            step.notes = [role != RoleCode.storeAdmin ? "role \(role) is not storeAdmin" : "no current scenic (> 0)"]
            return step
        }
        guard online else {
            step.skipped = true
            step.notes = ["no token: store list not loaded"]
            return step
        }
        let sink = CallSink()
        let loader = self.loader
        do throws(FeatureError) {
            let match = try await sessionGuard.run("store list") { try await loader.loadStoreIfNeeded(timer: timer, sink: sink) }
            if let matched = match?.matched {
                do { try contexts.store.setCurrentStoreId(matched.storeId) } catch { throw FeatureError.storage(error) }
                step.stores = ["key_in_current_store_id = \(matched.storeId)"]
                step.notes = ["store \(matched.storeId) \(matched.storeName) matched (\(match?.how ?? "")) among \(match?.storesInScenic ?? 0) stores of the scenic"]
            } else {
                step.notes = ["no store of scenic \(a.scenicId ?? 0) in the list: nothing matched"]
            }
        } catch let error where error.isSessionExpired {
            throw error
        } catch {
            step.notes = ["failed: \(error)"]
        }
        step.calls = sink.records
        return step
    }

    /// 5. `evaluateDialogs(api:)`: permission → scenic → location timeout, first that applies wins.
    private func evaluateDialogs(timer: CallTimer, online: Bool) async throws(FeatureError) -> ([DialogCheck], HomeStep) {
        var step = HomeStep(name: "evaluateDialogs(api:)")
        let p = contexts.permission.current
        let a = contexts.account.current
        let reminder = contexts.store.locationReminderMinutes
        step.reads = [
            "\(scope)_key_in_permission = \(p.permissions.count) permissions",
            "\(scope)_key_current_role_scenic_list = \(p.scenicList.count) scenic areas",
            "key_in_current_scenic_id = \(a.scenicId.map(String.init) ?? "nil")",
            "key_in_role_code = \(p.roleCode ?? "nil")",
            "\(scope)_key_location_reminder_minutes = \(reminder.map(String.init) ?? "nil")",
        ]
        var checks: [DialogCheck] = []

        let needPermission = p.permissions.isEmpty
        checks.append(DialogCheck(dialog: .permission, show: needPermission,
            reason: needPermission ? "the role has no permissions" : "\(p.permissions.count) permissions", evaluated: true))

        let hasScenic = (a.scenicId ?? 0) > 0
        let roleNeedsScenic = !p.scenicList.isEmpty
        let needScenic = !needPermission && roleNeedsScenic && !hasScenic
        checks.append(DialogCheck(dialog: .scenic, show: needScenic, reason: needPermission
            ? "not evaluated: permission dialog first"
            : !roleNeedsScenic ? "the role has no scenic areas to choose"
            : hasScenic ? "scenic \(a.scenicId ?? 0) selected" : "the role has \(p.scenicList.count) scenic areas and none is selected",
            evaluated: !needPermission))

        var location = DialogCheck(dialog: .locationTimeout, show: false, reason: "", evaluated: false)
        if let settled = HomeFeature.locationTimeoutSettledLocally(
            needPermission: needPermission, needScenic: needScenic, role: p.roleCode ?? "", reminder: reminder) {
            location = settled
        } else if !online {
            location.evaluated = true
            location.reason = "no token: location detail not called"
        } else if let staffId = a.userId, let minutes = reminder {
            location.evaluated = true
            let sink = CallSink()
            let api = operation
            do throws(FeatureError) {
                let detail = try await sessionGuard.run("location detail") {
                    try await timer.record("GET", Endpoint.locationDetail.path + "?staff_id=\(staffId)", into: sink) {
                        try await api.locationDetail(staffId: staffId).value
                    }
                }
                (location.show, location.reason) = decideTimeout(detail, reminderMinutes: minutes)
            } catch let error where error.isSessionExpired {
                throw error
            } catch {
                location.reason = "location detail failed: \(error)"
            }
            step.calls = sink.records
        } else {
            location.evaluated = true
            location.reason = "no user id: location detail not called"
        }
        checks.append(location)
        step.notes = checks.map { "\(HomeFeature.title($0.dialog)): \($0.show ? "show" : "no") — \($0.reason)" }
        return (checks, step)
    }

    /// Timeout when the staff member is online and the last report (the server's, else the local one)
    /// is missing or older than the reminder minutes. Offline staff get no reminder.
    func decideTimeout(_ detail: LocationDetail, reminderMinutes: Int) -> (Bool, String) {
        guard detail.online else { return (false, "staff is offline on the server") }
        let serverTime = detail.lastReportTime.flatMap(WireDate.parseTimestamp)
        guard let last = serverTime ?? contexts.store.lastLocationReportTime else {
            return (true, "online with no location report on record")
        }
        let age = clock.now().timeIntervalSince(last)
        let text = "last report \(WireDate.timestamp(last)) (\(HomeFeature.duration(age)) ago)"
        // In seconds as a Double: minutes imported from a device (or a hand-edited file) may be any Int.
        if age > TimeInterval(reminderMinutes) * 60 {
            return (true, "\(text) is older than the \(reminderMinutes)-minute reminder")
        }
        return (false, "\(text) is within the \(reminderMinutes)-minute reminder")
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds.rounded(.down)))
        if s >= 3600 { return "\(s / 3600)h\(String(format: "%02d", (s % 3600) / 60))m" }
        if s >= 60 { return "\(s / 60)m\(String(format: "%02d", s % 60))s" }
        return "\(s)s"
    }
}
