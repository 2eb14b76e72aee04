import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

/// The app's model: its rules over one state snapshot, asked by every view that judges app behaviour.
/// `home` (online and offline), `boot`, `explain dialog` and `context diff` all run the home's first
/// appearance through `HomeReplayRun` on a copy of the stored state, so one stored state gives one
/// answer whichever view asks (docs/app-behaviour.md). The live session's own writes use the same
/// rules: `scenicClearReason`, `storeLoadApplies` and `matchStore` below, `profileReload`,
/// `loadPermissions` and `selectRole` (which role entry applies; AppModel+Permissions.swift), and the lifecycle steps
/// (`completeLogin`, `logout`, `sessionExpired`, `restore`: AppModel+Lifecycle.swift; the stats and
/// orders first screens: AppModel+FirstScreens.swift). Every rule is listed once, with its basis and the
/// keys it writes, in `AppModel.rules` (AppModel+Rules.swift).
public enum AppModel {
    // MARK: The rules, each once

    /// Why `refreshLocalDisplayState` clears the current scenic, or nil when it stays (seed 000 §4.2:
    /// "无有效景区时清空"). Valid = an id > 0 (inferred: the seed does not define "有效"); a scenic outside
    /// the role's list is not cleared (the seed gives no such rule).
    public static func scenicClearReason(scenicId: Int?, scenicName: String?) -> String? {
        if validScenic(scenicId) != nil { return nil }
        if let id = scenicId { return "scenic id \(id) is not a valid scenic (valid = > 0)" }
        return scenicName != nil ? "a scenic name without a scenic id is not a valid scenic" : nil
    }

    /// What a replay without network (`boot`, `explain dialog`, `home --offline`) is judged on: the
    /// stored token accepted and the home's forced load answered as the stored list says (the offline
    /// stand-in); `home` asks the server.
    public static let offlineCondition = "judged without network: if the server accepts the stored token and answers as the stored role-permission list (`home` asks it)"

    /// The location reminder minutes as set: more than 0. The seed says "set"; that a stored 0 or less
    /// (what a cleared setting reads as) is not, is sxk's reading (`Rules.reminderUnset`).
    public static func reminderSet(_ minutes: Int?) -> Int? {
        guard let minutes, minutes > 0 else { return nil }
        return minutes
    }

    /// The stored scenic id as a valid scenic, nil for none: an id > 0 (**inferred**, as for
    /// `scenicClearReason`); the one test of it for the display state, the dialogs, the store load and
    /// a role's endpoints.
    public static func validScenic(_ storedId: Int?) -> Int? {
        guard let id = storedId, id > 0 else { return nil }
        return id
    }

    /// The stored store id as a store, nil for none: 0 (what `UserDefaults.integer(forKey:)` gives for a
    /// missing key) or less is no store (**inferred**: the seeds compare no store id with 0; the orders
    /// of a store admin need one above 0).
    public static func currentStore(_ storedId: Int?) -> Int? {
        guard let id = storedId, id > 0 else { return nil }
        return id
    }

    /// The scenic a switch to a role leaves current (**inferred**: the seeds describe no role switch):
    /// the current one when the role's list holds it, or one that is not valid (`scenicClearReason`
    /// judges that one); else the list's first, nil when the list is empty. `role CODE` and `compare
    /// --as role:CODE` both take it, so the scope the switch says is the one a request of that role uses.
    public static func scenicAfterRoleSwitch(currentId: Int?, currentName: String?, roleScenics: [ScenicRef]) -> (id: Int?, name: String?) {
        guard let id = validScenic(currentId), !roleScenics.contains(where: { $0.scenicId == id }) else { return (currentId, currentName) }
        return (roleScenics.first?.scenicId, roleScenics.first?.scenicName)
    }

    /// Why the next home's `loadPermissions` would not leave the current role the permissions stored
    /// for it now, or nil: the stored role-permission list (the server's last answer) has no entry for
    /// the role, so a load that answers the same derives none (`AppModel.derivePermissions`), or its
    /// entry holds other permissions than the stored flat list, which the load replaces with them.
    /// The flat permissions the next home's forced load leaves when the server answers as the stored
    /// role-permission list says (the offline stand-in, `Rules.offlineStandIn`): the role's entry's,
    /// none without one (`Rules.roleMatch`), the first entry's with no role; the stored flat list
    /// when no list is stored.
    public static func permissionsAtNextHome(_ state: PermissionContext.State) -> [PermissionItem] {
        // A stored list, an empty one too (the server's last answer), stands in; none, the flat list stays.
        guard state.rolesLoaded else { return state.permissions }
        var next = state
        AppModel.derivePermissions(&next)
        return next.permissions
    }

    public static func permissionsChangedAtNextLoad(_ state: PermissionContext.State) -> String? {
        guard state.rolesLoaded else { return nil }
        guard let code = state.roleCode, !code.isEmpty else {
            // No role stored: the load takes the first entry's role, or leaves none from an empty list.
            var next = state
            let derivation = derivePermissions(&next)
            guard let first = derivation.matched else {
                return state.permissions.isEmpty ? nil : "no role stored and the stored role-permission list is empty: if the server answers the same, the next home's loadPermissions leaves no permissions and the permission dialog shows \(Rules.roleMatch.marker)"
            }
            return "no role stored: if the server answers as the stored role-permission list, the next home's loadPermissions takes its first entry's role, \(first.roleCode), with \(first.permissions.count == 1 ? "1 permission" : "\(first.permissions.count) permissions") \(Rules.roleMatch.marker)"
        }
        guard let entry = state.role(code) else {
            if state.roles.isEmpty {
                guard !state.permissions.isEmpty else { return nil }
                return "the stored role-permission list is empty: if the server answers the same, the next home's loadPermissions leaves role \(code) no permissions and no scenic list, and the permission dialog shows \(Rules.roleMatch.marker)"
            }
            let held = state.roles.map { shownCode($0.roleCode) }.joined(separator: ", ")
            return "role \(shownCode(code)) has no entry in the stored role-permission list (entries: \(held)): if the server answers the same, the next home's loadPermissions leaves it no permissions and no scenic list, and the permission dialog shows \(Rules.roleMatch.marker)"
        }
        let next = entry.permissions.map(\.uri)
        guard next != state.permissionURIs else { return nil }
        // Listed twice: which entry counts (the first) is sxk's reading, not the seed's.
        let entries = state.roles.filter { $0.roleCode == code }.count
        let which = entries > 1 ? "first entry (of \(entries))" : "entry"
        return "the stored permissions (\(state.permissions.count)) are not role \(code)'s \(which) in the stored role-permission list (\(next.count)): if the server answers the same, the next home's loadPermissions replaces them with that entry's \((entries > 1 ? Rules.roleMatch : Rules.offlineStandIn).marker)"
    }

    /// A role code as the messages comparing codes show it: as it is when it is ASCII letters, digits,
    /// `_` and `-`; else quoted, with spaces, invisible characters and letters of another script beside
    /// ASCII ones written `\u{…}`, so codes that only look alike (`storeAdmin` and ` storeAdmin`,
    /// a Cyrillic `і`) read apart.
    public static func shownCode(_ code: String) -> String {
        let plain: (Unicode.Scalar) -> Bool = { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
        guard !code.isEmpty, !code.unicodeScalars.allSatisfy(plain) else { return code }
        let mixed = code.unicodeScalars.contains { $0.isASCII && $0.properties.isAlphabetic }
        var shown = "'"
        for scalar in code.unicodeScalars {
            let hidden: Bool
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator, .format, .control, .nonspacingMark, .enclosingMark: hidden = true
            default: hidden = mixed && !scalar.isASCII
            }
            shown += hidden ? "\\u{" + String(scalar.value, radix: 16) + "}" : String(scalar)
        }
        return shown + "'"
    }

    /// The scenic areas `scenic` lists, switches to and Tab offers (and among which `compare --as
    /// scenic:NAME` matches a name, `ScopeFeature.scenic(matching:)`): those the next home's loadPermissions
    /// leaves the role when the stored role-permission list holds its entry (the offline stand-in, as
    /// `menus common` reads the permissions), so an imported scenic list the load replaces is not the
    /// basis of a switch; the stored list otherwise.
    public static func scenicsToChoose(_ state: PermissionContext.State) -> [ScenicRef] {
        guard state.rolesLoaded else { return state.scenicList }
        var next = state
        return derivePermissions(&next).matched != nil ? next.scenicList : state.scenicList
    }

    /// The stored scenic list of the current role when the next home's forced load would replace it:
    /// that load stores the matched role's entry's list (seed 000 §4.2), with the stored role-permission
    /// list standing in for its answer. Nil when they agree or no list is stored.

    public static func scenicListChangedAtNextLoad(_ state: PermissionContext.State, currentScenic: Int? = nil) -> String? {
        guard state.rolesLoaded else { return nil }
        var next = state
        let derivation = derivePermissions(&next)
        let ids = next.scenicList.map(\.scenicId)
        guard ids != state.scenicList.map(\.scenicId) else { return nil }
        guard derivation.matched != nil, let code = next.roleCode else {
            // No entry for the role (or no list at all): said as the permissions' note says it.
            let role = state.roleCode.map { "role \(shownCode($0))" } ?? "the role"
            if state.roles.isEmpty {
                return "the stored role-permission list is empty: if the server answers the same, the next home's loadPermissions leaves \(role) no scenic list \(Rules.roleMatch.marker)"
            }
            let held = state.roles.map { shownCode($0.roleCode) }.joined(separator: ", ")
            return "\(role) has no entry in the stored role-permission list (entries: \(held)): if the server answers the same, the next home's loadPermissions leaves it no scenic list \(Rules.roleMatch.marker)"
        }
        let listed = ids.isEmpty ? "none" : next.scenicList.map { "\($0.scenicId) \($0.scenicName)" }.joined(separator: ", ")
        // Listed twice: which entry counts (the first) is sxk's reading, as for the permissions.
        let entries = state.roles.filter { $0.roleCode == code }.count
        let which = entries > 1 ? "first entry (of \(entries))" : "entry"
        // "If the server answers the same" is the offline stand-in's assumption.
        let basis = !derivation.exactMatch || entries > 1 ? Rules.roleMatch : Rules.offlineStandIn
        var line = "the stored scenic list (\(state.scenicList.count)) is not role \(code)'s \(which) in the stored role-permission list: if the server answers the same, the next home's loadPermissions replaces it with \(listed) \(basis.marker)"
        if let current = currentScenic, validScenic(current) != nil, !ids.isEmpty, !ids.contains(current) {
            line += "; the current scenic \(current) is not among them"
        }
        return line
    }

    /// What the next home would change in what a view of the stored state shows: the scenic
    /// `refreshLocalDisplayState` clears, the permissions a load without the role's entry empties.
    /// Asked by `whoami`, `menus`, `permissions` and the prompt, so they say what `home`, `boot` and
    /// `explain` will do.
    public static func changesAtNextHome(account: AccountContext.State, permission: PermissionContext.State) -> [String] {
        var notes: [String] = []
        if let reason = scenicClearReason(scenicId: account.scenicId, scenicName: account.scenicName) {
            // Which dialog the home then shows is the dialog rules' to say (`explain dialog`), not this line's.
            notes.append("\(reason): the next home's refreshLocalDisplayState clears the current scenic \(Rules.validScenic.marker); `explain dialog` says which dialog then shows")
        }
        let permissionsNote = permissionsChangedAtNextLoad(permission)
        if let permissionsNote { notes.append(permissionsNote) }
        // Without an entry for the role, the permissions' note says so, scenic list included.
        var next = permission
        let entryFound = derivePermissions(&next).matched != nil
        if entryFound || permissionsNote == nil, let changed = scenicListChangedAtNextLoad(permission, currentScenic: account.scenicId) { notes.append(changed) }
        return notes
    }

    /// Seed 000 §4.3: the store list is asked for only for storeAdmin with currentScenicId > 0.
    public static func storeLoadApplies(role: String?, scenicId: Int?) -> Bool {
        role == RoleCode.storeAdmin && validScenic(scenicId) != nil
    }

    /// Whether the home's store-list step will ask (`storeLoadApplies`), known before the permission load
    /// it follows: judged on the stored role and on the scenic as `refreshLocalDisplayState` leaves it.
    /// Nothing in between changes either, but for one case: with no current role the permission load
    /// takes the first entry's, and then this says no and the step asks in its turn. So a list asked for
    /// on this answer beside the permission load is the call the app makes, one round trip early.
    public static func storeLoadExpected(role: String?, scenicId: Int?, scenicName: String?) -> Bool {
        storeLoadApplies(role: role, scenicId: scenicClearReason(scenicId: scenicId, scenicName: scenicName) == nil ? scenicId : nil)
    }

    /// `storeLoadExpected` on a stored state (the replays' copy of it).
    public static func storeLoadExpected(store: AppStore) -> Bool {
        storeLoadExpected(role: store.roleCode, scenicId: store.currentScenicId, scenicName: store.currentScenicName)
    }

    /// Seed 000 §4.3: the store of the current scenic whose id is the saved `currentStoreId` is the
    /// match; without one nothing is chosen (no store is invented).
    public static func matchStore(in stores: [Store], scenicId: Int?, savedStoreId: Int?) -> Store? {
        guard let saved = savedStoreId else { return nil }
        return storesOfScenic(stores, scenicId: scenicId).first { $0.storeId == saved }
    }

    /// Seed 000 §4.3: the stores of the current scenic area, those whose scenic id is it (the ones the
    /// home's match looks among).
    public static func storesOfScenic(_ stores: [Store], scenicId: Int?) -> [Store] {
        stores.filter { $0.scenicId == scenicId }
    }

    /// The stores a switch (`store`, its Tab, `compare --as store:NAME`: `ScopeFeature.store(matching:)`)
    /// offers: the current scenic's, the only ones the next home can match. **Inferred**: with no scenic
    /// (none stored, or 0 or less) the home loads no store list and matches none, so any store of the
    /// list may be chosen.
    public static func storesToChoose(_ stores: [Store], scenicId: Int?) -> [Store] {
        stores.filter { offersStore($0, scenicId: scenicId) }
    }

    /// Whether `storesToChoose` offers `store` (one store at a time, for Tab over a long list).
    public static func offersStore(_ store: Store, scenicId: Int?) -> Bool {
        validScenic(scenicId) == nil || store.scenicId == scenicId
    }

    /// A scratch copy of `store` with contexts restored from it: what a replay runs on.
    static func scratch(of store: AppStore) -> SessionContexts {
        let copy = store.memoryCopy()
        let contexts = SessionContexts(session: AppSession(), account: AccountContext(), permission: PermissionContext(), store: copy)
        copy.restoreContexts(account: contexts.account, permission: contexts.permission)
        return contexts
    }

    /// The role's lists as the home's forced permission load leaves them offline, the stored
    /// role-permission list standing in for the answer; nil when no list is stored (the stored lists stay).
    public static func permissionsAfterOfflineLoad(store: AppStore) -> PermissionContext.State? {
        guard store.hasRolePermissionList else { return nil }
        let after = scratch(of: store)
        AppModel.loadPermissions(store.rolePermissionList(), into: after.permission)
        return after.permission.current
    }

    /// The home's first appearance offline on a copy of `store`: the stored role-permission list stands
    /// in for the forced permission load; the store list and the location detail are unknown. With
    /// `rejectedToken` (the token the server rejected in this process) equal to the stored token, the
    /// load is answered by that rejection instead, as the online home answers it.
    public static func homeOffline(store: AppStore, catalog: MenuCatalog, clock: any WallClock, rejectedToken: String? = nil) async throws(FeatureError) -> HomeTrace {
        let scratch = scratch(of: store)
        var run = HomeReplayRun(contexts: scratch, catalog: catalog, clock: clock, network: nil)
        let stored: String?
        do { stored = try store.token() } catch { throw .storage(error) }
        if let rejectedToken, stored == rejectedToken { run.knownRejection = HomeReplayRun.knownRejectionNote }
        var trace = try await run.replay()
        trace.changes = KeyDiff.between(stored: store, scratch: scratch.store)
        return trace
    }

    /// `ProfileViewModel.reload` (seed 000 §5.3): `AppStore.applyUserInfo` writes userName, realName,
    /// avatar and phone when sent and roleName only when the local one is empty; then the reload writes
    /// a non-empty roleName from the API whatever was there. Returns the fields written.
    public static func profileReload(_ info: UserInfo, into store: AppStore) throws(SessionError) -> [String] {
        var written: [String] = []
        if info.userName != nil { written.append("userName") }
        if info.realName != nil { written.append("realName") }
        if info.avatar != nil { written.append("avatar") }
        if info.phone != nil { written.append("phone") }
        let firstRuleWrites = AppStore.userInfoRoleName(sent: info.roleName, local: store.roleName) != nil
        try store.batch { () throws(SessionError) in
            try store.applyUserInfo(info)
            if let name = info.roleName, !name.isEmpty {
                try store.setRoleName(name)
                written.append(firstRuleWrites ? "roleName (was empty)" : "roleName (API value non-empty)")
            }
        }
        return written
    }

    /// What the profile tab's next reload would write with `info`, as a key diff against `store`.
    public static func profileReloadChanges(_ info: UserInfo, store: AppStore) -> [KeyChange] {
        let copy = store.memoryCopy()
        _ = try? profileReload(info, into: copy)
        return KeyDiff.between(stored: store.defaults, scratch: copy.defaults)
    }
}

/// One answer fetched before the replay needed it: the home asks for the store list beside the
/// role-permission list when `AppModel.storeLoadExpected` says it will, and `context diff` asks for
/// both beside userinfo, in one round trip.
public struct Prefetched<T: Sendable>: Sendable {
    public var record: CallRecord
    public var result: Result<T, FeatureError>

    public init(record: CallRecord, result: Result<T, FeatureError>) {
        self.record = record; self.result = result
    }

    /// One call timed on `timer`'s axis; its error (wrapped once) is its result, not thrown.
    static func fetch(_ timer: CallTimer, _ method: String, _ path: String, _ body: @Sendable () async throws -> T) async -> Prefetched<T> {
        let sink = CallSink()
        do {
            let value = try await timer.record(method, path, into: sink, body)
            return Prefetched(record: sink.records[0], result: .success(value))
        } catch {
            let record = sink.records.first ?? CallRecord(method: method, path: path, startMs: 0, endMs: 0, ok: false, error: "\(error)")
            return Prefetched(record: record, result: .failure(FeatureError.from(error, context: path)))
        }
    }
}

/// Numbers the calls of one replay in the order the app makes them.
final class CallOrder: @unchecked Sendable {
    private let lock = Lock()
    private var next = 0
    func take() -> Int { lock.withLock { next += 1; return next } }
}

/// Set when the server rejected the token during a replay: the replay ends there, as the app leaves home.
final class ExpiryMark: @unchecked Sendable {
    private let lock = Lock()
    private var call: ReplayCall?
    func mark(_ call: ReplayCall) { lock.withLock { if self.call == nil { self.call = call } } }
    var expired: ReplayCall? { lock.withLock { call } }
}

/// One replay of the home's first appearance (seed 000 §4.2–4.4) on scratch contexts (a copy of the
/// stored state). Every rule the home applies is here, once.
struct HomeReplayRun: Sendable {
    struct Network: Sendable {
        let account: AccountAPI
        let commerce: CommerceAPI
        let operation: OperationAPI
    }

    let contexts: SessionContexts
    let catalog: MenuCatalog
    let clock: any WallClock
    /// nil: no call is made — the stored answers stand in where the app stores them.
    let network: Network?
    /// Answers already fetched; used instead of making that call.
    var prefetchedRoles: Prefetched<[RolePermission]>?
    var prefetchedStores: Prefetched<[Store]>?
    /// The axis of every call's times, the prefetched ones' too.
    let timer: CallTimer
    /// Set when the server rejected this token earlier in this process: the first call is answered by
    /// that rejection, not sent (the process never sends a rejected token again).
    var knownRejection: String?
    static let knownRejectionNote = "the server rejected this token earlier in this process"
    let order = CallOrder()
    let expiry = ExpiryMark()

    init(contexts: SessionContexts, catalog: MenuCatalog, clock: any WallClock, network: Network?, timer: CallTimer = CallTimer(),
         prefetchedRoles: Prefetched<[RolePermission]>? = nil, prefetchedStores: Prefetched<[Store]>? = nil) {
        self.contexts = contexts; self.catalog = catalog; self.clock = clock; self.network = network; self.timer = timer
        self.prefetchedRoles = prefetchedRoles; self.prefetchedStores = prefetchedStores
    }

    /// The replay as the home runs it online: its first call, the role-permission list, goes out with the
    /// store list beside it when the store step will ask (`AppModel.storeLoadExpected`), so the two take
    /// one round trip; each answer is used where the app asks for it, in the app's order.
    static func online(contexts: SessionContexts, catalog: MenuCatalog, clock: any WallClock, network: Network) async -> HomeReplayRun {
        let timer = CallTimer(), account = network.account
        let stores = storesBeside(contexts.store, commerce: network.commerce, timer: timer)
        let rolesAnswer = await withTaskCancellationHandler {
            await Prefetched.fetch(timer, "GET", Endpoint.rolePermissions.path) { try await account.rolePermissions().value }
        } onCancel: { stores?.cancel() }
        let storesAnswer = await storesAnswer(stores, after: rolesAnswer)
        return HomeReplayRun(contexts: contexts, catalog: catalog, clock: clock, network: network, timer: timer,
                             prefetchedRoles: rolesAnswer, prefetchedStores: storesAnswer)
    }

    /// The store list sent beside the role-permission list when the home's store step will ask
    /// (`AppModel.storeLoadExpected`): a task of its own, so it can be given up on its own.
    static func storesBeside(_ store: AppStore, commerce: CommerceAPI, timer: CallTimer) -> Task<Prefetched<[Store]>, Never>? {
        guard AppModel.storeLoadExpected(store: store) else { return nil }
        return Task { await Prefetched.fetch(timer, "GET", Endpoint.storeList.path) { try await commerce.storeList().value } }
    }

    /// The store list's answer once the role-permission list's is in. A rejected token ends the home
    /// at its permission step, before the app would ask for the stores: that call is cancelled, not
    /// waited for, and its answer (cancelled) is used by nothing.
    static func storesAnswer(_ stores: Task<Prefetched<[Store]>, Never>?, after roles: Prefetched<[RolePermission]>) async -> Prefetched<[Store]>? {
        guard let stores else { return nil }
        if case .failure(let error) = roles.result, error.isSessionExpired { stores.cancel() }
        return await withTaskCancellationHandler { await stores.value } onCancel: { stores.cancel() }
    }

    private var store: AppStore { contexts.store }
    private var scope: String { store.accountCachePrefix }
    private var offline: Bool { network == nil && prefetchedRoles == nil && knownRejection == nil }
    static let loadUnknownReason = "undecided: the forced permission load's answer decides, and no role-permission list is stored to stand in for it offline"
    /// Offline with no stored role-permission list: what the forced permission load leaves is unknown.
    private var loadUnknown: Bool { offline && !store.hasRolePermissionList }

    func replay() async throws(FeatureError) -> HomeTrace {
        var steps: [HomeStep] = []
        // Each step's `writes` is what it changed on the scratch copy, so a view names the step that
        // really wrote a key rather than guessing from key names (`HomeTrace.writer(of:)`).
        var before = store.memoryCopy()
        func record(_ step: HomeStep) {
            var step = step
            step.writes = KeyDiff.between(stored: before, scratch: store).map(\.key)
            step.readState = Dictionary(before.defaults.entries, uniquingKeysWith: { $1 })
            steps.append(step)
            before = store.memoryCopy()
        }
        record(restoreLocationStep())
        record(displayStateStep())
        record(try await permissionStep())
        if let call = expiry.expired { return expired(steps, call) }
        record(commonMenusStep())
        record(try await storeStep())
        if let call = expiry.expired { return expired(steps, call) }
        let (checks, dialogStep) = try await evaluateDialogs()
        record(dialogStep)
        if let call = expiry.expired { return expired(steps, call) }
        let winner = checks.first { $0.show }
        let undecided = winner == nil && checks.contains { $0.undecided }
        let verdict = loadUnknown ? Self.loadUnknownReason
            : winner.map { "the app would show the \(HomeFeature.title($0.dialog)) dialog: \($0.reason)" }
            ?? (undecided ? "undecided: " : "no dialog: ")
                + checks.map { "\(HomeFeature.title($0.dialog)) — \($0.reason)" }.joined(separator: "; ")
        // The priority is documented; whether a dialog shows rests on inferred conditions.
        let decidedBy = winner?.rule ?? checks.first { $0.rule.basis == .inferred }?.rule ?? Rules.dialogPriority
        return HomeTrace(steps: steps, checks: checks, dialog: winner?.dialog, verdict: verdict, verdictRule: decidedBy,
                         offline: offline, changes: [], applied: false)
    }

    /// The server rejected the token: the app broadcasts `sessionDidExpire`, clears the login state and
    /// goes back to the login page, so no home dialog is evaluated. The scratch copy is cleared as the
    /// app would clear it; the stored state is not touched (the diff shows it; `--apply` writes it).
    private func expired(_ steps: [HomeStep], _ call: ReplayCall) -> HomeTrace {
        var steps = steps
        var step = HomeStep(name: "sessionDidExpire -> SceneDelegate: login state cleared, back to the login page", rule: Rules.sessionExpiry)
        step.reads = [call.made ? "the answer to #\(call.order) \(call.method) \(call.path): \(call.note ?? "session expired")"
                                : "#\(call.order) \(call.method) \(call.path): \(call.note ?? "")"]
        // What is cleared is the app model's expiry (`AppModel.sessionExpired`), said key by key.
        let plan = AppModel.sessionExpired(state: store)
        let cleared = plan.writes.filter { store.defaults[$0.key] != nil && StoreKey.kind(of: $0.key) != .sxk }
        step.stores = ["\(StoreKey.token) removed"] + cleared.map(\.line)
        step.notes = ["the home is left before its dialogs are evaluated: no dialog",
                      "cleared: the keys logout clears (the seed says \"the login state\") \(AppModel.Rule.sessionExpired.basis.marker)",
                      "kept: the last phone, the privacy flag and the account-scoped keys \(AppModel.Rule.sessionExpired.basis.marker)"]
        if prefetchedStores != nil, !steps.contains(where: { $0.calls.contains { $0.path == Endpoint.storeList.path } }) {
            step.notes.append("sxk asked for the store list beside the role-permission list (the stored role and scenic said the home would): the app, leaving the home, never asks, and that answer is not used")
        }
        let before = store.memoryCopy()
        try? AppModel.apply(plan, to: store)
        step.writes = KeyDiff.between(stored: before, scratch: store).map(\.key)
        // The seed says "the login state"; which keys that is, is sxk's reading.
        step.writesRule = AppModel.Rule.sessionExpired.basis
        contexts.account.reset()
        contexts.permission.reset()
        steps.append(step)
        let when = call.made ? "" : " (earlier in this process; not sent again)"
        return HomeTrace(steps: steps, checks: [], dialog: nil,
                         verdict: "the server rejected the token\(when): the app clears the login state and shows the login page; no home dialog",
                         verdictRule: Rules.sessionExpiry, offline: false, changes: [], applied: false, sessionExpired: true)
    }

    /// A call the app makes here: the prefetched answer, else made online, else listed as not made.
    /// A failure is the call's outcome (the replay goes on as the app would); a session-expired answer
    /// marks the replay as ended. Only a cancellation is thrown.
    private func call<T: Sendable>(
        _ method: String, _ path: String, offlineNote: String, prefetched: Prefetched<T>? = nil,
        _ body: @Sendable (Network) async throws -> T
    ) async throws(FeatureError) -> (ReplayCall, T?) {
        let n = order.take()
        if let knownRejection {
            let answered = ReplayCall(order: n, method: method, path: path, made: false, record: nil, note: knownRejection)
            expiry.mark(answered)
            return (answered, nil)
        }
        if let prefetched {
            switch prefetched.result {
            case .success(let value):
                return (ReplayCall(order: n, method: method, path: path, made: true, record: prefetched.record, note: nil), value)
            case .failure(let error):
                if error.isCancelled { throw error }
                var made = ReplayCall(order: n, method: method, path: path, made: true, record: prefetched.record, note: "\(error)")
                if error.isSessionExpired { expiry.mark(made) } else { made.failureStatus = Self.failureStatus(error) }
                return (made, nil)
            }
        }
        guard let network else {
            return (ReplayCall(order: n, method: method, path: path, made: false, record: nil, note: offlineNote), nil)
        }
        let sink = CallSink()
        let timer = self.timer
        do {
            let value = try await timer.record(method, path, into: sink) { try await body(network) }
            return (ReplayCall(order: n, method: method, path: path, made: true, record: sink.records.first, note: nil), value)
        } catch {
            let wrapped = FeatureError.from(error, context: path)
            if wrapped.isCancelled { throw wrapped }
            var made = ReplayCall(order: n, method: method, path: path, made: true, record: sink.records.first, note: "\(wrapped)")
            if wrapped.isSessionExpired { expiry.mark(made) } else { made.failureStatus = Self.failureStatus(wrapped) }
            return (made, nil)
        }
    }

    /// A failed call's exit status: 4 when no answer came, 1 for an error answer.
    static func failureStatus(_ error: FeatureError) -> Int32 { error.apiError?.kind == .network ? 4 : 1 }

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
            step.stores = effects.keys.map { "\($0) removed" }
            step.notes = [effects.note]
        } catch {
            step.notes = ["could not apply to the scratch copy: \(error)"]
        }
        return step
    }

    /// 2. `refreshLocalDisplayState()`: no valid scenic → id and name cleared (seed 000 §4.2; what
    /// "valid" means is inferred).
    private func displayStateStep() -> HomeStep {
        let a = contexts.account.current
        let reason = AppModel.scenicClearReason(scenicId: a.scenicId, scenicName: a.scenicName)
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
    /// and the role name "when needed" saved (seed 000 §4.2). Offline the stored list is the answer.
    private func permissionStep() async throws(FeatureError) -> HomeStep {
        var step = HomeStep(name: "loadPermissions(api:force: true)", rule: Rules.permissionLoad)
        step.reads = ["key_in_role_code = \(contexts.permission.roleCode ?? "nil")"]
        let stored = store.hasRolePermissionList ? store.rolePermissionList() : nil
        let (record, answer) = try await call("GET", Endpoint.rolePermissions.path,
            offlineNote: stored == nil ? "offline: no stored role-permission list to stand in" : "offline: the stored role-permission list stands in",
            prefetched: prefetchedRoles) { try await $0.account.rolePermissions().value }
        step.calls = [record]
        guard let roles = answer ?? (offline ? stored : nil) else {
            step.skipped = offline
            step.notes = [offline ? "no answer and none stored: what the load leaves is unknown, so the dialogs are undecided"
                : expiry.expired != nil ? "the server rejected the token" : "call failed: stored permissions kept"]
            // What a failed load leaves is sxk's reading (the seed does not say); offline with no list
            // to stand in, what the load answers is not known at all.
            if offline { step.rule = Rules.offlineStandIn } else if expiry.expired == nil { step.rule = Rules.failedPermissionLoad }
            return step
        }
        let derivation = AppModel.loadPermissions(roles, into: contexts.permission)
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
        ] + (derivation.matched != nil && !derivation.exactMatch ? ["key_in_role_code = \(p.roleCode ?? "nil")"] : [])
          + (derivation.matched != nil ? ["key_in_role_name = \(p.roleName ?? "nil")"] : [])
        // Offline the stored list is taken for the server's answer: sxk's choice, not the app's.
        if answer == nil { step.rule = Rules.offlineStandIn }
        if let matched = derivation.matched, derivation.exactMatch {
            step.notes = ["matched role \(matched.roleCode)",
                          "key_in_role_name: the seed writes it \"when needed\" (必要时); sxk writes it when the current role's entry matched \(Rules.roleNameWrite.marker)"]
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
        guard !loadUnknown else {
            step.skipped = true
            step.rule = Rules.offlineStandIn
            step.notes = ["the permissions the load leaves are unknown offline (no stored role-permission list): nothing judged"]
            return step
        }
        guard let role = contexts.permission.roleCode, !role.isEmpty else {
            step.skipped = true
            step.notes = ["no role: nothing to rebuild"]
            return step
        }
        let key = StoreKey.commonMenuURIs(prefix: scope, roleCode: role)
        let existing = store.commonMenuURIs(roleCode: role)
        step.reads.append("\(key) = \(existing.map { "\($0.count) URIs" } ?? "nil")")
        if let existing {
            if existing.isEmpty {
                step.rule = Rules.emptyCommonMenusRecord
                step.notes = ["record kept: an empty list, which counts as a record: no default written"]
            } else {
                step.notes = ["record kept: " + existing.joined(separator: ", ")]
            }
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
        guard AppModel.storeLoadApplies(role: role, scenicId: a.scenicId) else {
            step.skipped = true
            step.notes = [role != RoleCode.storeAdmin ? "role \(role) is not storeAdmin: no request" : "no current scenic (> 0): no request"]
            return step
        }
        let (record, answer) = try await call("GET", Endpoint.storeList.path,
            offlineNote: "offline: the store list is never stored (seed 000 §4.3), so the match is unknown",
            prefetched: prefetchedStores) { try await $0.commerce.storeList().value }
        step.calls = [record]
        // Said whatever the answer: sxk's timing, not the app's order (which the call numbers keep).
        let early = prefetchedStores == nil ? [] : ["sent beside the role-permission list, not after it: the stored role and scenic already said this step asks (sxk's overlap; the app asks once that answer is in)"]
        guard let stores = answer else {
            step.notes = ["no store list: key_in_current_store_id unchanged"] + early
            return step
        }
        contexts.account.setStores(stores)
        let inScenic = AppModel.storesOfScenic(stores, scenicId: a.scenicId)
        if let match = AppModel.matchStore(in: stores, scenicId: a.scenicId, savedStoreId: a.storeId) {
            contexts.account.setStoreId(match.storeId)
            try? store.setCurrentStoreId(match.storeId)
            step.stores = ["key_in_current_store_id = \(match.storeId)"]
            step.notes = ["store \(match.storeId) \(match.storeName) matched among \(inScenic.count) stores of scenic \(a.scenicId ?? 0)"] + early
        } else {
            step.notes = ["no store of scenic \(a.scenicId ?? 0) has the saved id \(a.storeId.map(String.init) ?? "nil"): nothing written, no store chosen"] + early
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
        if loadUnknown {
            // The forced load always asks the server; with no stored answer to stand in, every dialog
            // rests on what it answers.
            let checks = HomeDialog.allCases.map { dialog in
                var check = DialogCheck(dialog: dialog, show: false, reason: Self.loadUnknownReason, evaluated: true, rule: Rules.offlineStandIn)
                check.undecided = true
                return check
            }
            step.notes = checks.map { "\(HomeFeature.title($0.dialog)): \($0.state) — \($0.reason) \($0.rule.marker)" }
            return (checks, step)
        }
        var checks = DialogRules.localChecks(permissions: p.permissions, scenicList: p.scenicList, scenicId: a.scenicId)
        let needPermission = checks[0].show, needScenic = checks[1].show
        var location: DialogCheck
        if let settled = DialogRules.locationTimeoutSettledLocally(
            needPermission: needPermission, needScenic: needScenic, role: p.roleCode ?? "", reminder: reminder) {
            location = settled
        } else if let staffId = a.userId, let minutes = reminder {
            location = DialogCheck(dialog: .locationTimeout, show: false, reason: "", evaluated: true, rule: Rules.locationTimeoutDecision)
            let (record, answer) = try await call("GET", Endpoint.locationDetail.endpoint.shownPath([.staffId: staffId]),
                offlineNote: "offline: the location detail answer is never stored (seed 000 §4.4)") {
                try await $0.operation.locationDetail(staffId: staffId).value
            }
            step.calls = [record]
            step.notes.append("\(Endpoint.Parameter.staffId) = \(StoreKey.userId) \(staffId) \(Rules.staffId.marker)")
            if let detail = answer {
                (location.show, location.reason) = DialogRules.decideTimeout(detail, reminderMinutes: minutes, storedLast: store.lastLocationReportTime, now: clock.now())
            } else if !record.made {
                location.undecided = true
                location.reason = "undecided: the location detail answer decides, and the call is not made offline"
            } else {
                location.undecided = true
                location.reason = "undecided: location detail failed: \(record.note ?? "")"
            }
        } else {
            location = DialogCheck(dialog: .locationTimeout, show: false, reason: "no user id: location detail not called", evaluated: true, rule: Rules.locationNeedsUserId)
        }
        checks.append(location)
        step.notes = checks.map { "\(HomeFeature.title($0.dialog)): \($0.state) — \($0.reason) \($0.rule.marker)" } + step.notes
        return (checks, step)
    }
}
