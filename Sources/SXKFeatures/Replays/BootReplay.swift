import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

/// Seed 000 §1 and §7 applied to one profile's stored state: which SDKs the app initialises at launch
/// and why, which root screen it shows, and the first screen's API calls in order with what each reads
/// from storage. A replay only: it sends nothing and writes nothing (the home steps say what they
/// would change). Home's conditions are judged on the stored snapshot, as the app sees it at launch.
public struct BootReplay: Sendable {
    public let store: AppStore
    public let catalog: MenuCatalog
    public let clock: any WallClock
    /// The token the server rejected in this process (`SessionGuard.rejectedToken`): when it is the
    /// stored one, the home's first call is answered by that rejection, as `home` answers it.
    public let rejectedToken: String?

    public init(store: AppStore, catalog: MenuCatalog, clock: any WallClock, rejectedToken: String? = nil) {
        self.store = store
        self.catalog = catalog
        self.clock = clock
        self.rejectedToken = rejectedToken
    }

    /// Seed 000 §1 step 4.
    public static let launchNote = "no backend call at launch (seed 000 §1: 此阶段不直接调用任何业务后端接口)"

    /// Replays the cold start. Fails only when a state file cannot be read. The main tab's home steps
    /// are the app model's offline home replay (`AppModel.homeOffline`), so boot, `home --offline` and
    /// `explain dialog` give one answer for one state.
    public func replay() async throws(FeatureError) -> BootTrace {
        let token: String?
        do {
            try store.reload()
            token = try store.token()
        } catch {
            throw .storage(error)
        }
        let privacy = read(StoreKey.privacyAgreementAccepted)
        let tokenRead = StoredRead(
            key: StoreKey.token, value: token.map { .string(Redaction.maskToken($0)) } ?? .null,
            text: token.map(Redaction.maskToken) ?? "nil")
        let accepted = store.privacyAgreementAccepted
        let hasToken = token != nil
        // The root screen is the app model's restore decision (the one the live session starts from).
        let scratch = AppModel.scratch(of: store)
        let restore = AppModel.restore(token: token, state: scratch.store, account: scratch.account, permission: scratch.permission)
        let toMainTab = restore.root == .mainTab

        let sdks = AppModel.launchSDKs(privacyAccepted: accepted, hasToken: hasToken, privacy: privacy, token: tokenRead)

        let root = RootDecision(
            screen: restore.root ?? .loginPage,
            reason: toMainTab
                ? "AppStore.isLoggedIn: the token is not empty (seed 000 §1: token 非空：进入 MainTabBarController)"
                : "AppStore.isLoggedIn is false: no token (seed 000 §1: token 为空：进入 LoginViewController)",
            reads: [tokenRead])

        if toMainTab {
            let home = try await AppModel.homeOffline(store: store, catalog: catalog, clock: clock, rejectedToken: rejectedToken)
            if home.sessionExpired { return rejected(sdks: sdks, root: root, tokenRead: tokenRead, home: home) }
            return mainTab(sdks: sdks, root: root, tokenRead: tokenRead, home: home)
        }
        return loginPage(sdks: sdks, root: root, tokenRead: tokenRead, privacy: privacy)
    }

    // MARK: Login page (seed 000 §3.1, §3.2, §7.1)

    private func loginPage(sdks: [SDKDecision], root: RootDecision, tokenRead: StoredRead, privacy: StoredRead) -> BootTrace {
        let phone = read(StoreKey.lastLoginUsername)
        var form = BootStep(name: "LoginViewController.setupUI -> LoginViewModel.applyStoredPreferences()", rule: Rules.loginForm, reads: [phone, privacy])
        form.notes = [
            "phone field: " + (store.lastLoginUsername.map { "filled with \($0)" } ?? "empty (no last login)"),
            "privacy checkbox: " + (store.privacyAgreementAccepted ? "ticked" : "not ticked (login needs it ticked)"),
            "local form state only, no backend call",
        ]
        let config = BootCall(
            order: 1, method: "GET", path: Endpoint.config.path,
            caller: "LoginViewController.viewDidAppear -> LoginViewModel.loadAppConfig(authAPI:) -> AuthAPI.getAppConfig()",
            condition: "always", reads: [tokenRead],
            stores: ["LoginViewModel.enableRegister (memory only, not AppStore)"])
        var appear = BootStep(name: "LoginViewController.viewDidAppear -> LoginViewModel.loadAppConfig(authAPI:)", rule: Rules.loginConfig, calls: [config])
        appear.notes = [
            "no token: the request carries no token header",
            "only enableRegister is used (shows or hides the code-login/register entry); a failure is ignored silently",
        ]
        var next = BootStep(name: "afterwards, when the user taps login (seed 000 §7.1; not part of the cold start)", rule: Rules.loginFlow)
        next.notes = [
            "POST \(Endpoint.login.path) -> POST \(Endpoint.setUser.path) -> AppStore login state and account context -> userDidLogin -> main tab",
            "with the privacy agreement accepted, AMap and Umeng are configured again after login (seed 000 §3.4)",
        ]
        return BootTrace(
            sdks: sdks, root: root, firstScreen: "login page", steps: [form, appear, next], checks: [],
            verdict: "login page; one call: GET \(Endpoint.config.path)")
    }

    // MARK: Main tab, home first shown (seed 000 §4, §7.2)

    private func mainTab(sdks: [SDKDecision], root: RootDecision, tokenRead: StoredRead, home: HomeTrace) -> BootTrace {
        var order = 0
        let steps = localSteps(home) + permissionSteps(home, tokenRead: tokenRead, order: &order)
            + callSteps(home, tokenRead: tokenRead, order: &order)
        let calls = steps.flatMap(\.calls)
        let dialog: String
        switch home.dialogAnswer {
        case .string("undecided") where home.checks.first?.undecided == true: dialog = "undecided: the permission load's answer decides every dialog, and no role-permission list is stored"
        case .string("undecided"): dialog = "the location-timeout dialog only if the location detail answer calls for it (undecided)"
        case .string(let name): dialog = "the \(HomeFeature.title(HomeDialog(rawValue: name) ?? .permission)) dialog"
        default: dialog = "no dialog"
        }
        let verdict = "main tab, home: \(calls.count) call\(calls.count == 1 ? "" : "s") ("
            + calls.map { "\($0.method) \($0.path)" }.joined(separator: ", ") + "); then \(dialog)"
        var trace = BootTrace(sdks: sdks, root: root, firstScreen: "home", steps: steps, checks: home.checks, verdict: verdict)
        trace.changes = home.changes
        return trace
    }

    /// The main tab whose home's first call this process already saw rejected: the app leaves the
    /// home for the login page before anything else is asked.
    private func rejected(sdks: [SDKDecision], root: RootDecision, tokenRead: StoredRead, home: HomeTrace) -> BootTrace {
        var order = 0
        var steps = localSteps(home) + Array(permissionSteps(home, tokenRead: tokenRead, order: &order).prefix(1))
        if let last = home.steps.last {
            var expiry = BootStep(name: last.name, rule: last.rule)
            expiry.notes = last.reads + last.notes
            expiry.stores = last.stores
            steps.append(expiry)
        }
        var trace = BootTrace(sdks: sdks, root: root, firstScreen: "home", steps: steps, checks: [], verdict: "main tab, then " + home.verdict)
        trace.changes = home.changes
        trace.sessionExpired = true
        return trace
    }

    /// The engine's step of that name: its decision (notes, stores, skipped, basis) is boot's.
    private static func decided(_ name: String, by home: HomeTrace, _ step: inout BootStep) {
        guard let h = home.steps.first(where: { $0.name == name }) else { return }
        step.notes = h.notes
        step.stores = h.stores
        step.skipped = h.skipped
        step.rule = h.rule
    }

    /// Whether the engine's step of that name makes its call for this state.
    private static func made(_ name: String, by home: HomeTrace) -> Bool {
        home.steps.first { $0.name == name }?.calls.isEmpty == false
    }

    /// The tab bar, then the home's local steps: location restore and display state (no network).
    private func localSteps(_ home: HomeTrace) -> [BootStep] {
        let scope = store.accountCachePrefix
        var tabs = BootStep(name: "MainTabBarController.viewDidLoad -> configureTabs()", rule: Rules.mainTab)
        tabs.notes = [
            "five tab slots: home, orders, scan placeholder, statistics, profile; home is selected",
            "badgeViewModel.refreshPendingWriteOffCount() only sets pendingWriteOffCount = nil: no backend call",
            "the other tabs call their APIs when first shown, not now",
        ]
        // 1. locationStateStore.restoreStateIfNeeded()
        let restoring = reader("locationStateStore.restoreStateIfNeeded()", home)
        var location = BootStep(
            name: "HomeViewController.viewDidAppear -> HomeViewModel.initialize(api:) -> locationStateStore.restoreStateIfNeeded()",
            rule: Rules.locationRestore,
            reads: [
                restoring(StoreKey.scoped(StoreKey.onlineStatus, prefix: scope)),
                restoring(StoreKey.scoped(StoreKey.lastLocationReportTime, prefix: scope)),
                restoring(StoreKey.scoped(StoreKey.locationReminderMinutes, prefix: scope)),
            ])
        Self.decided("locationStateStore.restoreStateIfNeeded()", by: home, &location)
        // 2. refreshLocalDisplayState()
        let displaying = reader("refreshLocalDisplayState()", home)
        var display = BootStep(
            name: "refreshLocalDisplayState()", rule: Rules.validScenic,
            reads: [
                displaying(StoreKey.currentScenicId), displaying(StoreKey.currentScenicName), displaying(StoreKey.roleCode),
                displaying(StoreKey.scoped(StoreKey.currentRoleScenicList, prefix: scope)),
            ])
        Self.decided("refreshLocalDisplayState()", by: home, &display)
        return [tabs, location, display]
    }

    /// 3. The forced permission load (always called) and the common menus it leads to.
    private func permissionSteps(_ home: HomeTrace, tokenRead: StoredRead, order: inout Int) -> [BootStep] {
        let scope = store.accountCachePrefix
        order += 1
        let loading = reader("loadPermissions(api:force: true)", home)
        let rolePermission = BootCall(
            order: order, method: "GET", path: Endpoint.rolePermissions.path,
            caller: "HomeViewModel.loadPermissions(api:force: true) -> HomeAPI.rolePermissions()",
            condition: "always (forced)",
            reads: [tokenRead, loading(StoreKey.roleCode)],
            stores: [
                "\(scope)_\(StoreKey.rolePermissionList)", "\(scope)_\(StoreKey.currentRoleScenicList)",
                "\(scope)_\(StoreKey.permission)", "\(StoreKey.roleName) (when needed)",
            ])
        var permissionStep = BootStep(name: "loadPermissions(api:force: true)", rule: Rules.permissionLoad, calls: [rolePermission])
        Self.decided("loadPermissions(api:force: true)", by: home, &permissionStep)
        permissionStep.skipped = false
        permissionStep.notes.insert(home.sessionExpired ? "answered by the rejection this process saw"
            : store.hasRolePermissionList ? "judged with the stored role-permission list standing in for the answer"
            : "no role-permission list stored to stand in for the answer", at: 0)
        permissionStep.notes.append("stored before this launch: \(NumberText.count(store.permissionItems().count, "permission")), \(NumberText.count(store.roleScenicList().count, "scenic area")) for the role")
        // The home rebuilds its common menus from the permissions (seed §4.2, §6.2).
        let rebuilding = reader("rebuild common menus (HomeCommonMenuStore)", home)
        var menus = BootStep(name: "rebuild common menus (HomeCommonMenuStore)", rule: Rules.commonMenus,
                             reads: [rebuilding(StoreKey.scoped(StoreKey.permission, prefix: scope))])
        if case .string(let role) = rebuilding(StoreKey.roleCode).value, !role.isEmpty {
            menus.reads.append(rebuilding(StoreKey.commonMenuURIs(prefix: scope, roleCode: role)))
        }
        Self.decided("rebuild common menus (HomeCommonMenuStore)", by: home, &menus)
        return [permissionStep, menus]
    }

    /// 4–5. The store load and the dialogs, each with its call when the engine makes it.
    private func callSteps(_ home: HomeTrace, tokenRead: StoredRead, order: inout Int) -> [BootStep] {
        let scope = store.accountCachePrefix
        let storing = reader("loadStoreListIfNeeded(api:)", home)
        var storeStep = BootStep(
            name: "loadStoreListIfNeeded(api:)", rule: Rules.storeLoad,
            reads: [storing(StoreKey.roleCode), storing(StoreKey.currentScenicId), storing(StoreKey.currentStoreId)])
        Self.decided("loadStoreListIfNeeded(api:)", by: home, &storeStep)
        if Self.made("loadStoreListIfNeeded(api:)", by: home) {
            order += 1
            storeStep.calls = [BootCall(
                order: order, method: "GET", path: Endpoint.storeList.path,
                caller: "HomeViewModel.loadStoreListIfNeeded(api:) -> HomeAPI.storeList()",
                condition: "role is storeAdmin and currentScenicId > 0",
                reads: [tokenRead, storing(StoreKey.roleCode), storing(StoreKey.currentScenicId), storing(StoreKey.currentStoreId)],
                stores: ["\(StoreKey.currentStoreId) (the matched store)", "store list: HomeViewModel.storeItem, memory only"])]
        }
        let reminderKey = StoreKey.scoped(StoreKey.locationReminderMinutes, prefix: scope)
        let evaluating = reader("evaluateDialogs(api:)", home)
        var dialogStep = BootStep(
            name: "evaluateDialogsWithDelay() -> HomeViewModel.evaluateDialogs(api:)", rule: Rules.dialogPriority,
            reads: [
                evaluating(StoreKey.scoped(StoreKey.permission, prefix: scope)),
                evaluating(StoreKey.scoped(StoreKey.currentRoleScenicList, prefix: scope)),
                evaluating(StoreKey.currentScenicId), evaluating(StoreKey.roleCode), evaluating(reminderKey),
            ])
        Self.decided("evaluateDialogs(api:)", by: home, &dialogStep)
        if Self.made("evaluateDialogs(api:)", by: home), let staffId = store.userId {
            order += 1
            dialogStep.calls = [BootCall(
                order: order, method: "GET", path: Endpoint.locationDetail.endpoint.shownPath([.staffId: staffId]),
                caller: "HomeViewModel.evaluateDialogs(api:) -> checkLocationTimeout(api:) -> HomeAPI.locationDetail(staffId:)",
                condition: "no permission or scenic dialog, not the simplified top role, reminder minutes set",
                reads: [tokenRead, evaluating(StoreKey.userId), evaluating(reminderKey),
                        evaluating(StoreKey.scoped(StoreKey.lastLocationReportTime, prefix: scope))],
                stores: ["HomeViewModel.showLocationTimeoutDialog (memory only, not AppStore)"])]
        }
        return [storeStep, dialogStep]
    }

    // MARK: Reading stored values

    /// The reads of the home's step of that name: each key as the replay's steps before it left it
    /// (`HomeStep.readState`), so a value an earlier step changed is shown changed; as stored when the
    /// engine did not run that step.
    private func reader(_ name: String, _ home: HomeTrace) -> (String) -> StoredRead {
        guard let state = home.steps.first(where: { $0.name == name })?.readState else { return { read($0) } }
        return { read($0, value: state[$0]) }
    }

    /// One stored key as a launch step reads it (lists summarised by their length).
    func read(_ key: String) -> StoredRead { read(key, value: store.defaults[key]) }

    private func read(_ key: String, value: JSONValue?) -> StoredRead {
        guard let value, value != .null else { return StoredRead(key: key, value: .null, text: "nil") }
        if let items = value.arrayValue {
            let noun: String
            switch StoreKey.kind(of: key) {
            case .scoped(_, StoreKey.permission): noun = "permission"
            case .scoped(_, StoreKey.rolePermissionList): noun = "role"
            case .scoped(_, StoreKey.currentRoleScenicList): noun = "scenic area"
            case .commonMenus: noun = "URI"
            default: noun = "item"
            }
            return StoredRead(key: key, value: ["count": .int(items.count)], text: NumberText.count(items.count, noun))
        }
        if StoreKey.valueType(of: key) == .time, let seconds = value.doubleValue {
            return StoredRead(key: key, value: value, text: LocalTime.human(Date(timeIntervalSince1970: seconds)))
        }
        switch value {
        case .string(let s): return StoredRead(key: key, value: value, text: s)
        case .number(let n): return StoredRead(key: key, value: value, text: n)
        case .bool(let b): return StoredRead(key: key, value: value, text: String(b))
        default: return StoredRead(key: key, value: value, text: JSONWriter.string(value))
        }
    }
}
