import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

/// One key of `context diff`: the stored value beside what the server says now.
public struct ContextDiffRow: Sendable, Equatable {
    public var key: String
    public var stored: String
    public var server: String
    public var same: Bool

    public var json: JSONValue {
        ["key": .string(key), "stored": .string(stored), "server": .string(server), "same": .bool(same)]
    }
}

/// The stored (or imported) state beside the server's current answers, and what the app would do
/// at its next start. Read-only: nothing is saved and no context changes.
public struct ContextDiff: Sendable, Equatable {
    public var rows: [ContextDiffRow]
    /// What the next start would do with these answers, each with its basis: every key the home's
    /// first appearance would write (the app model's replay with these answers), then the dialog.
    public var nextStart: [ExplainStep]
    public var calls: [CallRecord]
    /// The replay of the next start's home with these answers (its key diff and dialog).
    public var home: HomeTrace
    /// How the server rejected the token (`code 100401: …`, `HTTP 401`, or earlier in this process), or nil.
    public var rejection: String?

    /// Why no row compares, or nil when some do: a rejected token is an answer, but nothing of the
    /// account comes with it.
    public var whyNoRows: String? {
        guard rows.isEmpty else { return nil }
        guard let rejection else { return "no server answer to compare with the stored state" }
        return "the server rejected the token (\(rejection)): nothing of the account could be fetched to compare with the stored state"
    }

    public var json: JSONValue {
        [
            "dialog": home.dialogAnswer, "sessionExpired": .bool(home.sessionExpired), "rejected": rejection.map { .string($0) } ?? .null,
            "rows": .array(rows.map(\.json)), "nextStart": .array(nextStart.map(\.json)), "calls": .array(calls.map(\.json)),
            "changes": .array(home.changes.map(\.json)),
        ]
    }
}

/// `context diff`: fresh userinfo, role-permission and (when seed 000 §4.3's condition holds) the store
/// list in one round trip, compared key by key with the profile; then the app model replays the next
/// start's home with those answers (the location detail is asked only when its condition holds).
/// A rejected token is a step of that replay: nothing is reset or saved.
public struct ContextDiffFeature: Sendable {
    public let account: AccountAPI
    public let commerce: CommerceAPI
    public let operation: OperationAPI
    public let sessionGuard: SessionGuard
    public let catalog: MenuCatalog
    public let clock: any WallClock

    public init(account: AccountAPI, commerce: CommerceAPI, operation: OperationAPI, guard sessionGuard: SessionGuard,
                catalog: MenuCatalog, clock: any WallClock) {
        self.account = account; self.commerce = commerce; self.operation = operation; self.sessionGuard = sessionGuard
        self.catalog = catalog; self.clock = clock
    }

    public func diff() async throws(FeatureError) -> ContextDiff {
        let store = sessionGuard.contexts.store
        let sent = sessionGuard.contexts.session.token
        if sent == nil {
            // The stored token was rejected earlier in this process: not sent again; the next start's
            // home is answered by that rejection, as `home` answers it.
            do { try store.reload() } catch { throw .storage(error) }
            if sessionGuard.rejectedToken != nil { return try await knownRejection(store) }
            // A device's state without a token is the app's login page, said as `home` says it.
            let storedToken: String?
            do { storedToken = try store.token() } catch { throw .storage(error) }
            if store.isDeviceSnapshot, AppModel.launchRoot(token: storedToken) == .loginPage { throw .loginPageFirst }
        }
        try sessionGuard.requireSession()
        do { try store.reload() } catch { throw .storage(error) }
        let timer = CallTimer()
        // The store list is asked for only when the next start's home would ask (seed 000 §4.3).
        let stores = HomeReplayRun.storesBeside(store, commerce: commerce, timer: timer)
        // A failure other than a rejected token ends the diff: the first one in request order, with
        // what is still in flight cancelled, as one call after another would have ended there.
        let answers: (Prefetched<UserInfo>, Prefetched<[RolePermission]>)
        do {
            answers = try await withTaskCancellationHandler { try await pair(timer, stores: stores) } onCancel: { stores?.cancel() }
        } catch {
            throw (error as? FeatureError) ?? .cancelled
        }
        let (infoAnswer, rolesAnswer) = answers
        let storesAnswer = await HomeReplayRun.storesAnswer(stores, after: rolesAnswer)
        // A store list that failed is the replay's to say, as `home` says it (its step, the dialog without
        // a store match, exit 1): no dialog waits on the store list, so the diff goes on.
        let scratch = AppModel.scratch(of: store)
        let run = HomeReplayRun(
            contexts: scratch, catalog: catalog, clock: clock,
            network: HomeReplayRun.Network(account: account, commerce: commerce, operation: operation), timer: timer,
            prefetchedRoles: rolesAnswer, prefetchedStores: storesAnswer)
        var home = try await run.replay()
        home.changes = KeyDiff.between(stored: store, scratch: scratch.store)
        // This process does not send a token the server rejected again (nothing stored changes).
        var rejected = home.sessionExpired
        if case .failure(let error) = infoAnswer.result, error.isSessionExpired { rejected = true }
        if rejected, let sent { sessionGuard.replayRejected(token: sent) }
        let calls = [infoAnswer.record, rolesAnswer.record] + (storesAnswer.map { [$0.record] } ?? [])
            + home.calls.compactMap(\.record).filter { $0.path.hasPrefix(Endpoint.locationDetail.path) }
        var diff = ContextDiff(rows: [], nextStart: [], calls: calls, home: home)
        diff.rejection = Self.rejection(infoAnswer.result) ?? Self.rejection(rolesAnswer.result)
        Self.compare(store: store, afterHome: scratch.store, role: scratch.permission.roleCode, info: try? infoAnswer.result.get(),
                     roles: try? rolesAnswer.result.get(), stores: try? storesAnswer?.result.get(), into: &diff)
        return diff
    }

    /// The diff when this process already saw the server reject the stored token: no call, no row,
    /// and the next start as the rejection leaves it.
    private func knownRejection(_ store: AppStore) async throws(FeatureError) -> ContextDiff {
        let scratch = AppModel.scratch(of: store)
        var run = HomeReplayRun(contexts: scratch, catalog: catalog, clock: clock, network: nil)
        run.knownRejection = HomeReplayRun.knownRejectionNote
        var home = try await run.replay()
        home.changes = KeyDiff.between(stored: store, scratch: scratch.store)
        var diff = ContextDiff(rows: [], nextStart: [], calls: [], home: home)
        diff.rejection = "earlier in this process; not sent again"
        Self.compare(store: store, afterHome: scratch.store, role: nil, info: nil, roles: nil, stores: nil, into: &diff)
        return diff
    }

    /// The server's reason when `result` is a rejected token (its text made safe for a terminal).
    static func rejection<T>(_ result: Result<T, FeatureError>) -> String? {
        guard case .failure(let error) = result, error.isSessionExpired else { return nil }
        if case .sessionExpired(let cause, _)? = error.apiError { return TerminalText.sanitize(cause.description) }
        return "session expired"
    }

    /// userinfo ∥ role-permission, read in request order: a failure other than a rejected token ends
    /// the diff there, the store list cancelled and `roles` with it (leaving this scope cancels it).
    private func pair(_ timer: CallTimer, stores: Task<Prefetched<[Store]>, Never>?) async throws(FeatureError)
        -> (Prefetched<UserInfo>, Prefetched<[RolePermission]>) {
        let account = self.account
        async let roles = Prefetched.fetch(timer, "GET", Endpoint.rolePermissions.path) { try await account.rolePermissions().value }
        let info = await Prefetched.fetch(timer, "GET", Endpoint.userInfo.path) { try await account.userInfo().value }
        if case .failure(let error) = info.result, !error.isSessionExpired { stores?.cancel(); throw error }
        let answer = await roles
        if case .failure(let error) = answer.result, !error.isSessionExpired { stores?.cancel(); throw error }
        return (info, answer)
    }

    /// The key-by-key comparison, and the next start's writes and dialog from the replay (pure, for tests).
    /// `role` is the role the replay's permission load leaves (the stored one, or the entry it takes
    /// when none is stored): the server's lists compared are that role's, as the next start uses them.
    /// `afterHome`: the state as the replayed home leaves it, from which the profile tab's reload goes on.
    static func compare(store: AppStore, afterHome: AppStore, role: String?, info: UserInfo?, roles: [RolePermission]?, stores: [Store]?, into diff: inout ContextDiff) {
        let scope = store.accountCachePrefix
        let role = role ?? store.roleCode ?? ""
        func row(_ key: String, _ stored: String?, _ server: String?, same: Bool? = nil) {
            let s = stored ?? "nil", v = server ?? "nil"
            diff.rows.append(ContextDiffRow(key: key, stored: s, server: v, same: same ?? (s == v)))
        }
        if let info {
            // Whose token this is: a token of another account shows here, not only as other names.
            if let id = info.userId { row(StoreKey.userId, store.userId.map(String.init), String(id)) }
            row(StoreKey.userName, store.userName, info.userName)
            row(StoreKey.realName, store.realName, info.realName)
            row(StoreKey.phone, store.phone, info.phone)
            row(StoreKey.roleName, store.roleName, info.roleName)
        }
        if let roles {
            let storedRoles = store.rolePermissionList()
            // Same only when the whole list is: the same roles with other permissions or scenic
            // areas are a change the next load writes.
            let storedCodes = storedRoles.map(\.roleCode).joined(separator: ","), serverCodes = roles.map(\.roleCode).joined(separator: ",")
            let sameList = storedRoles == roles
            row(StoreKey.scoped(StoreKey.rolePermissionList, prefix: scope), storedCodes,
                serverCodes + (!sameList && storedCodes == serverCodes ? " (their permissions or scenic areas differ)" : ""), same: sameList)
            let entry = roles.first { $0.roleCode == role }
            row(StoreKey.scoped(StoreKey.permission, prefix: scope), store.permissionItems().map(\.uri).joined(separator: ","),
                (entry?.permissions.map(\.uri) ?? []).joined(separator: ","))
            row(StoreKey.scoped(StoreKey.currentRoleScenicList, prefix: scope), store.roleScenicList().map { String($0.scenicId) }.joined(separator: ","),
                (entry?.scenicList.map { String($0.scenicId) } ?? []).joined(separator: ","))
        }
        if let stores {
            // The verdict is the match rule's: the saved id among the current scenic's stores.
            let inScenic = AppModel.storesOfScenic(stores, scenicId: store.currentScenicId).map { String($0.storeId) }.joined(separator: ",")
            let saved = store.currentStoreId
            let matched = AppModel.matchStore(in: stores, scenicId: store.currentScenicId, savedStoreId: saved) != nil
            // No saved store (none, or 0 or less: `AppModel.currentStore`): nothing to match and nothing
            // written, so nothing differs, whether the key is absent or holds 0.
            let none = AppModel.currentStore(saved) == nil
            let server = matched ? "\(saved ?? 0) (matched among \(inScenic))"
                : none ? "no store saved\(saved.map { " (\($0) is none)" } ?? ""): nothing to match among \(inScenic.isEmpty ? "none" : inScenic)"
                : "no match among \(inScenic.isEmpty ? "none" : inScenic)"
            row(StoreKey.currentStoreId, saved.map(String.init), server, same: matched || none)
        }
        for change in diff.home.changes {
            // The step the engine recorded as writing the key: after a rejected token the location
            // restore's removals are still step 1's (logout and expiry keep account-scoped keys).
            let writer = diff.home.writer(of: change.key)
            // The token's value is never shown: its change is said with the mask in place, so the
            // row keeps its arrow (a row naming a secret is masked whole otherwise).
            let secret = change.key == StoreKey.token
            // Said as `home` and `boot` say values: a time as local time beside the stored number.
            let before = change.before.map { secret ? "***" : KeyValueText.human($0, key: change.key) } ?? "nil"
            let after = change.after.map { secret ? "***" : KeyValueText.human($0, key: change.key) } ?? "nil"
            // Which keys an expiry clears is sxk's reading (the step's `writesRule`); a key no step
            // wrote is not claimed for a documented rule.
            let basis = writer.map { $0.writesRule ?? $0.rule } ?? .inferred("replays")
            diff.nextStart.append(ExplainStep(key: change.key, value: "\(before) → \(after)",
                rule: "written by \(writer?.name ?? "the home's first appearance")", basis: basis))
        }
        diff.nextStart.append(ExplainStep(key: nil, value: "dialog: \(diff.home.dialogAnswer.stringValue ?? "none")",
                                          rule: diff.home.verdict, basis: diff.home.verdictRule))
        // Not the home's: what the profile tab writes when it is next shown, with this userinfo.
        if let info {
            // From the state the home leaves: a key it wrote already is not said again with a stale "before".
            for change in AppModel.profileReloadChanges(info, store: afterHome) {
                let before = change.before.map { JSONWriter.string($0) } ?? "nil", after = change.after.map { JSONWriter.string($0) } ?? "nil"
                diff.nextStart.append(ExplainStep(key: change.key, value: "\(before) → \(after)",
                    rule: "written when the profile tab is next shown (ProfileViewModel.reload), not by the home", basis: Rules.profileReload))
            }
        }
    }

}
