import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

/// The common menus of the current account scope and role.
public struct CommonMenus: Sendable, Equatable {
    /// `{scope}_role_{roleCode}_common_uris`.
    public var key: String
    public var uris: [String]
    /// The catalog entries of `uris` (a URI the catalog does not know is titled by itself).
    public var menus: [MenuEntry]
    /// True when no record existed and the first visible menus were written as the default.
    public var defaulted: Bool
    /// True when no role is stored and these are the role the next home's load takes (the first entry's).
    public var roleAtNextHome = false
    /// The role these are listed for.
    public var role = ""
    /// True when a record is stored under `key` (an empty one too).
    public var recorded = false
}

/// Seed 001 `homeFeatureServices`: home menus, the `HomeViewModel.initialize` replay (seed 000 §4.2–4.4)
/// and the location state (§6.3). Works on the contexts alone where the app does, so an imported
/// device profile without a token can still be explained.
public struct HomeFeature: Sendable {
    public let loader: AccountContextLoader
    public let operation: OperationAPI
    public let sessionGuard: SessionGuard
    public let catalog: MenuCatalog
    public let clock: any WallClock
    var contexts: SessionContexts { sessionGuard.contexts }
    var locationStore: LocationStateStore { LocationStateStore(store: contexts.store, clock: clock) }
    var commonStore: CommonMenuStore { CommonMenuStore(store: contexts.store) }

    public init(loader: AccountContextLoader, operation: OperationAPI, guard sessionGuard: SessionGuard, catalog: MenuCatalog, clock: any WallClock) {
        self.loader = loader
        self.operation = operation
        self.sessionGuard = sessionGuard
        self.catalog = catalog
        self.clock = clock
    }

    // MARK: Menus

    /// Visible home menus for the current role's permissions, in catalog order.
    public func visibleMenus() -> [MenuEntry] {
        catalog.visibleMenus(permissions: contexts.permission.current.permissions)
    }

    /// The common menus (`HomeCommonMenuStore`): the record, or the first 4 visible menus the home
    /// would write as default. Listing writes nothing (the home writes the default, `home --apply`).
    public func commonMenus() throws(FeatureError) -> CommonMenus {
        let scope = try commonScope()
        let recorded = contexts.store.commonMenuURIs(roleCode: scope.role) != nil
        let uris = commonStore.current(roleCode: scope.role, visibleURIs: scope.visible.map(\.uri))
        var menus = describe(uris, role: scope.role, defaulted: !recorded && !uris.isEmpty, visible: scope.visible)
        menus.roleAtNextHome = scope.atNextHome
        menus.recorded = recorded
        return menus
    }

    /// The menus `menus common add` can add: those visible to the role the common menus are listed for.
    public func commonMenuChoices() throws(FeatureError) -> [MenuEntry] { try commonScope().visible }

    /// The role `menus common add` and `remove` write under; refused when no role is stored.
    public func commonMenusRole() throws(FeatureError) -> String { try commonScopeToChange().role }

    public func addCommonMenu(_ uri: String) throws(FeatureError) -> CommonMenus {
        let scope = try commonScopeToChange()
        let uris: [String]
        do { uris = try commonStore.add(uri, roleCode: scope.role, visibleURIs: scope.visible.map(\.uri)) } catch { throw .storage(error) }
        return describe(uris, role: scope.role, defaulted: false, visible: scope.visible)
    }

    public func removeCommonMenu(_ uri: String) throws(FeatureError) -> CommonMenus {
        let scope = try commonScopeToChange()
        let uris: [String]
        do { uris = try commonStore.remove(uri, roleCode: scope.role, visibleURIs: scope.visible.map(\.uri)) } catch { throw .storage(error) }
        return describe(uris, role: scope.role, defaulted: false, visible: scope.visible)
    }

    /// The role whose common menus are listed, added to and removed from, and the menus visible to it.
    /// The home builds its common menus after its permission load, so both are what that load leaves
    /// with the stored lists standing in for its answer (`AppModel.permissionsAtNextHome`): one basis
    /// for the listing and the changes, so a menu listed is one that can be removed and a menu refused
    /// as already there is listed. With no role stored, the role that load takes (the first entry's).
    private func commonScope() throws(FeatureError) -> (role: String, visible: [MenuEntry], atNextHome: Bool) {
        try Self.commonScope(contexts.permission.current, catalog: catalog)
    }

    /// `commonScope` of a permission state, for completion, which reads the contexts alone.
    public static func commonScope(_ permission: PermissionContext.State, catalog: MenuCatalog) throws(FeatureError) -> (role: String, visible: [MenuEntry], atNextHome: Bool) {
        let visible = catalog.visibleMenus(permissions: AppModel.permissionsAtNextHome(permission))
        if let role = permission.roleCode, !role.isEmpty { return (role, visible, false) }
        var next = permission
        guard next.rolesLoaded, AppModel.derivePermissions(&next).matched != nil, let taken = next.roleCode else { throw .noRole }
        return (taken, visible, true)
    }

    /// As `commonScope`, for a change: the role must be stored, since the key written names it; the one
    /// the next home would take is inferred and is not written under without being chosen.
    private func commonScopeToChange() throws(FeatureError) -> (role: String, visible: [MenuEntry]) {
        let scope = try commonScope()
        if scope.atNextHome { throw .commonMenusNeedRole(next: scope.role) }
        return (scope.role, scope.visible)
    }

    private func describe(_ uris: [String], role: String, defaulted: Bool, visible given: [MenuEntry]? = nil) -> CommonMenus {
        let visible = given ?? visibleMenus()
        let menus = uris.map { uri in
            visible.first { $0.uri == uri } ?? catalog.entry(uri: uri) ?? MenuEntry(uri: uri, title: uri, group: "")
        }
        var common = CommonMenus(key: commonStore.key(roleCode: role), uris: uris, menus: menus, defaulted: defaulted)
        common.role = role
        common.recorded = !defaulted
        return common
    }

    // MARK: Location

    /// Online status, last report, reminder and the countdown to the 2-hour limit (no network), as
    /// the app shows them once its home's `restoreStateIfNeeded` has run: the rule `home` and `boot`
    /// apply, so a status past the 2-hour limit reads as dropped here too. Nothing is written.
    public func locationState() -> LocationStateStore.State { locationStore.state }

    /// What that restore removes from the stored keys of `state`, and why (nil: nothing).
    public func locationRestoreChange(_ state: LocationStateStore.State) -> LocationRestoreChange? {
        AppModel.locationRestoreChange(state.restore, store: contexts.store, rejectedToken: sessionGuard.rejectedToken)
    }

    /// The switches write the account's own keys: they need its session (logged out, the app shows
    /// the login page and no location control; sxk would write the `guest` scope's keys).
    public func goOnline() throws(FeatureError) -> LocationStateStore.State {
        try sessionGuard.requireSession()
        do { try locationStore.goOnline() } catch { throw .storage(error) }
        return locationStore.state
    }

    public func goOffline() throws(FeatureError) -> LocationStateStore.State {
        try sessionGuard.requireSession()
        do { try locationStore.goOffline() } catch { throw .storage(error) }
        return locationStore.state
    }

    public func report() throws(FeatureError) -> LocationStateStore.State {
        try sessionGuard.requireSession()
        do { try locationStore.report() } catch { throw .storage(error) }
        return locationStore.state
    }

    /// Sets the reminder minutes (`LocationStateStore.reminderMinutes`; 0 turns it off).
    public func remind(minutes: Int) throws(FeatureError) -> LocationStateStore.State {
        guard minutes == 0 || LocationStateStore.reminderMinutes.contains(minutes) else { throw .invalidReminderMinutes(minutes) }
        try sessionGuard.requireSession()
        do { try locationStore.remind(minutes: minutes) } catch { throw .storage(error) }
        return locationStore.state
    }

    /// GET photog/loacation/detail?staff_id=<current user id>. Not stored (seed §4.4).
    public func locationDetail() async throws(FeatureError) -> APIResult<LocationDetail> {
        try sessionGuard.requireSession()
        guard let staffId = contexts.account.userId else { throw .notLoggedIn }
        let api = operation
        return try await sessionGuard.run("location detail") { try await api.locationDetail(staffId: staffId) }
    }
}

extension LocationStateStore.State {
    /// For `location --json`: times in ISO 8601 with their offset (README "Times"), durations in whole seconds.
    public var json: JSONValue {
        [
            "online": .bool(isOnline),
            "lastReportTime": lastReportTime.map { .string(LocalTime.iso($0)) } ?? .null,
            "reminderMinutes": reminderMinutes.map { .int($0) } ?? .null,
            "elapsedSeconds": elapsedSeconds.flatMap(LocalTime.wholeSeconds).map { .int($0) } ?? .null,
            "countdownSeconds": countdownSeconds.flatMap(LocalTime.wholeSeconds).map { .int($0) } ?? .null,
            // Why the values above may differ from the stored ones: the restore's decision.
            "restore": Rules.locationRestore.annotate(["outcome": .string(restore.name), "note": .string(restore.effects(scope: "").note)]),
            "stored": [
                "online": storedOnline.map { .bool($0) } ?? .null,
                "lastReportTime": storedLastReportTime.map { .string(LocalTime.iso($0)) } ?? .null,
            ],
        ]
    }
}

extension LocationStateStore.RestoreOutcome {
    /// The outcome's name in `location --json`.
    var name: String {
        switch self {
        case .stopped: return "stopped"
        case .clearedNoReport: return "clearedNoReport"
        case .clearedExpired: return "clearedExpired"
        case .resumed: return "resumed"
        }
    }
}
