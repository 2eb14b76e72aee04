import FoundationEssentials
import SXKAPI
import SXKSession

/// One row of `role`: a role of the role-permission list.
public struct RoleRow: Sendable, Equatable {
    public var code: String
    public var name: String
    public var scenicCount: Int
    public var permissionCount: Int
    public var isCurrent: Bool
}

/// One row of `scenic`: a scenic area of the current role.
public struct ScenicRow: Sendable, Equatable {
    public var scenic: ScenicRef
    public var isCurrent: Bool
}

/// One row of `store`: a store of the current scenic.
public struct StoreRow: Sendable, Equatable {
    public var store: Store
    public var isCurrent: Bool
}

/// What a scope switch changed, for the command to print.
public struct ScopeChange: Sendable, Equatable {
    public var roleCode: String?
    public var roleName: String?
    public var scenic: ScenicRef?
    public var storeId: Int?
    /// The store's name when the store list is known.
    public var storeName: String?
    /// Lines such as "store 101 cleared: not in scenic 2".
    public var notes: [String]
}

/// Role, scenic and store scope: lists with the current one marked, and switches that
/// re-derive permissions as `HomeViewModel.loadPermissions` does. Every switch is persisted through the
/// AppStore; a switch that fails (e.g. the store load) leaves the old scope as it was.
public struct ScopeFeature: Sendable {
    public let loader: AccountContextLoader
    public let sessionGuard: SessionGuard
    private var contexts: SessionContexts { sessionGuard.contexts }

    public init(loader: AccountContextLoader, guard sessionGuard: SessionGuard) {
        self.loader = loader
        self.sessionGuard = sessionGuard
    }

    // MARK: Roles

    /// The roles from role-permission (loaded once when no list is stored), current marked. A stored
    /// empty list is the server's last answer, as every other view reads it: not asked again.
    public func roles(refresh: Bool = false) async throws(FeatureError) -> [RoleRow] {
        if refresh || !contexts.permission.current.rolesLoaded {
            try sessionGuard.requireSession()
            try await reloadRoles()
        }
        // A stored list is shown as every view of the stored state shows it, with or without a session
        // (a token the server rejected earlier in this process included), as `permissions` does.
        let p = contexts.permission.current
        let current = p.currentRoleIndex
        return p.roles.enumerated().map { index, role in
            RoleRow(code: role.roleCode, name: role.roleName, scenicCount: role.scenicList.count,
                    permissionCount: role.permissions.count, isCurrent: index == current)
        }
    }

    /// GET role-permission into the permission context (re-deriving the current role) and the store.
    func reloadRoles() async throws(FeatureError) {
        let api = loader.account
        let roles = try await sessionGuard.run("role-permission") { try await api.rolePermissions().value }
        AppModel.loadPermissions(roles, into: contexts.permission)
        try contexts.persist()
    }

    /// Switches role: flat permissions and the role's scenic list re-derived; a scenic not in the new
    /// role's list gives way to the list's first (`AppModel.scenicAfterRoleSwitch`), and a store that
    /// went with it is cleared.
    public func selectRole(_ code: String) async throws(FeatureError) -> ScopeChange {
        try sessionGuard.requireSession()
        if !contexts.permission.current.rolesLoaded { try await reloadRoles() }
        let roles = contexts.permission.current.roles
        guard roles.contains(where: { $0.roleCode == code }) else {
            throw .unknownRole(code, valid: roles.map(\.roleCode))
        }
        let before = contexts.account.current
        let saved = snapshot()
        let left = contexts.permission.current.roleCode
        AppModel.selectRole(code, in: contexts.permission)
        var notes: [String] = []
        let roleScenics = contexts.permission.current.scenicList
        let next = AppModel.scenicAfterRoleSwitch(currentId: before.scenicId, currentName: before.scenicName, roleScenics: roleScenics)
        if next.id != before.scenicId, let old = before.scenicId {
            let oldName = before.scenicName.map { " " + $0 } ?? ""
            if let id = next.id {
                notes.append("scenic \(old)\(oldName) is not one of role \(code)'s: now scenic \(id)\(next.name.map { " " + $0 } ?? "")")
            } else {
                notes.append("scenic \(old)\(oldName) cleared: role \(code) has no scenic area")
            }
            contexts.account.setScenic(id: next.id, name: next.name)
            // A store of the new scenic stays, as `scenic ID` keeps it (the store list says whose it is).
            if let store = before.storeId {
                var stores = before.stores
                if stores.isEmpty, next.id != nil {
                    // A failure there changes nothing, as for `scenic ID`; a rejected token has reset the
                    // session meanwhile, and what it cleared stays cleared.
                    let resets = sessionGuard.resetCount
                    do { stores = try await fetchStores() } catch {
                        if sessionGuard.resetCount == resets {
                            contexts.account.replace(with: saved.account)
                            contexts.permission.replace(with: saved.permission)
                        }
                        throw error
                    }
                }
                if !AppModel.storesOfScenic(stores, scenicId: next.id).contains(where: { $0.storeId == store }) {
                    contexts.account.setStoreId(nil)
                    notes.append("store \(store) cleared with its scenic")
                }
            }
        }
        let display = loader.refreshLocalDisplayState()
        if let why = display.clearedBecause, before.scenicId != nil {
            notes.append("scenic \(before.scenicId.map(String.init) ?? "?") cleared: \(why)")
            if let store = before.storeId {
                contexts.account.setStoreId(nil)
                notes.append("store \(store) cleared with its scenic")
            }
        }
        try commit(restoringOnFailure: saved, previous: [(.role, left, code)])
        return change(notes)
    }

    // MARK: Scenic

    /// The current role's scenic areas, current marked.
    public func scenics() throws(FeatureError) -> [ScenicRow] {
        // The stored lists, as `permissions` reads them: a session, or a role-permission list stored.
        guard contexts.session.token != nil || contexts.permission.current.rolesLoaded else { throw .notLoggedIn }
        let current = contexts.account.current.scenicId
        return AppModel.scenicsToChoose(contexts.permission.current).map { ScenicRow(scenic: $0, isCurrent: $0.scenicId == current) }
    }

    /// The scenic area `query` names (id, exact name, then unique name prefix: `match`) among those
    /// `scenic` offers (`AppModel.scenicsToChoose`). The one matcher of `scenic NAME` and `compare --as
    /// scenic:NAME`; nothing changes.
    public func scenic(matching query: String) throws(FeatureError) -> ScenicRef {
        try ScopeFeature.match(
            query, in: AppModel.scenicsToChoose(contexts.permission.current), id: \.scenicId, name: \.scenicName,
            notFound: { FeatureError.scenicNotFound($0, available: $1) },
            ambiguous: { FeatureError.ambiguousScenic($0, matches: $1) })
    }

    /// Switches scenic by id or (unique prefix of) name (`scenic(matching:)`). A current store that does
    /// not belong to the new scenic is cleared; to know, the store list is loaded first when none is
    /// cached (a failure there changes nothing).
    public func selectScenic(_ query: String) async throws(FeatureError) -> ScopeChange {
        try sessionGuard.requireSession()
        let target = try scenic(matching: query)
        var notes: [String] = []
        let a = contexts.account.current
        var keepStore = a.storeId
        if let storeId = a.storeId {
            var stores = a.stores
            if stores.isEmpty { stores = try await fetchStores() }
            // Kept when it is one of the new scenic's stores, as `selectRole` and the home's match judge it.
            if !AppModel.storesOfScenic(stores, scenicId: target.scenicId).contains(where: { $0.storeId == storeId }) {
                keepStore = nil
                if let store = stores.first(where: { $0.storeId == storeId }) {
                    notes.append("store \(storeId) cleared: it belongs to scenic \(store.scenicId.map(String.init) ?? "?")")
                } else {
                    notes.append("store \(storeId) cleared: not in the store list")
                }
            }
        }
        let saved = snapshot()
        contexts.account.setScenic(id: target.scenicId, name: target.scenicName)
        contexts.account.setStoreId(keepStore)
        try commit(restoringOnFailure: saved, previous: [(.scenic, a.scenicId.map(String.init), String(target.scenicId)),
                                                         (.store, a.storeId.map(String.init), keepStore.map(String.init))])
        return change(notes)
    }

    // MARK: Store

    /// GET store/all (cached in memory, never persisted) filtered by the current scenic, current marked.
    public func stores(refresh: Bool = false) async throws(FeatureError) -> [StoreRow] {
        try sessionGuard.requireSession()
        if refresh || contexts.account.current.stores.isEmpty { _ = try await fetchStores() }
        let a = contexts.account.current
        return AppModel.storesToChoose(a.stores, scenicId: a.scenicId).map { StoreRow(store: $0, isCurrent: $0.storeId == a.storeId) }
    }

    /// The store `query` names (id, exact name, then unique name prefix: `match`) among those `store`
    /// offers (`AppModel.storesToChoose`), the store list loaded first when none is held. The one matcher
    /// of `store NAME` and `compare --as store:NAME`; nothing but that list changes.
    public func store(matching query: String) async throws(FeatureError) -> Store {
        try sessionGuard.requireSession()
        if contexts.account.current.stores.isEmpty { _ = try await fetchStores() }
        let a = contexts.account.current
        return try ScopeFeature.store(matching: query, among: a.stores, scenicId: a.scenicId)
    }

    /// The matcher of `store(matching:)` on a list given (no network): the stores `AppModel.storesToChoose`
    /// offers for `scenicId`, by id, exact name, then unique prefix (`compare --as store:NAME`, which
    /// changes no session and so loads no list).
    public static func store(matching query: String, among stores: [Store], scenicId: Int?) throws(FeatureError) -> Store {
        try match(
            query, in: AppModel.storesToChoose(stores, scenicId: scenicId), id: \.storeId, name: \.storeName,
            notFound: { FeatureError.storeNotFound($0, available: $1) },
            ambiguous: { FeatureError.ambiguousStore($0, matches: $1) })
    }

    /// Switches store by id or (unique prefix of) name among the current scenic's stores (`store(matching:)`).
    public func selectStore(_ query: String) async throws(FeatureError) -> ScopeChange {
        let target = try await store(matching: query)
        let saved = snapshot()
        let left = contexts.account.current.storeId
        contexts.account.setStoreId(target.storeId)
        try commit(restoringOnFailure: saved, previous: [(.store, left.map(String.init), String(target.storeId))])
        return change([], storeName: target.storeName)
    }

    /// Account and permission state before a switch, to put back when the switch cannot be saved.
    private func snapshot() -> (account: AccountContext.State, permission: PermissionContext.State) {
        (contexts.account.current, contexts.permission.current)
    }

    /// Saves a switch. When the save fails (disk full, read-only state dir) the contexts go back to
    /// `saved` and the switch's keys to what memory held before it, pending only where they were, so
    /// the failed switch changes nothing now and is not written later by some other save.
    /// `previous`: what the switch left (recorded for `-` when it differs from what it chose), saved
    /// in the same write.
    private func commit(
        restoringOnFailure saved: (account: AccountContext.State, permission: PermissionContext.State),
        previous: [(kind: PreviousScope, left: String?, chosen: String?)] = []
    ) throws(FeatureError) {
        let store = contexts.store
        let before = store.scopeState()
        for previous in previous {
            if let left = previous.left, left != previous.chosen { store.stagePrevious(previous.kind, left) }
        }
        do {
            // Written whole: a switch to what memory already held still puts it on disk, over another process's change.
            try contexts.persist(chosen: true)
        } catch {
            contexts.account.replace(with: saved.account)
            contexts.permission.replace(with: saved.permission)
            // The keys as they were, `-`'s too, pending only where they were: no later save writes the failed switch.
            store.restoreScope(before)
            throw error
        }
    }

    /// The role code, scenic id or store id before the last switch, for `role -` and the like.
    public func previous(_ kind: PreviousScope) throws(FeatureError) -> String {
        try sessionGuard.requireSession()
        guard let value = contexts.store.previous(kind) else { throw .noPrevious(kind.rawValue) }
        return value
    }

    func fetchStores() async throws(FeatureError) -> [Store] {
        let api = loader.commerce
        let stores = try await sessionGuard.run("store list") { try await api.storeList().value }
        contexts.account.setStores(stores)
        return stores
    }

    private func change(_ notes: [String], storeName: String? = nil) -> ScopeChange {
        let a = contexts.account.current
        let p = contexts.permission.current
        let name = storeName ?? a.storeId.flatMap { id in a.stores.first { $0.storeId == id }?.storeName }
        return ScopeChange(
            roleCode: p.roleCode, roleName: p.roleName,
            scenic: a.scenicId.map { ScenicRef(scenicId: $0, scenicName: a.scenicName ?? "") },
            storeId: a.storeId, storeName: name, notes: notes)
    }

    /// Id first, then exact name, then unique name prefix.
    static func match<T>(
        _ query: String, in items: [T], id: KeyPath<T, Int>, name: KeyPath<T, String>,
        notFound: (String, [String]) -> FeatureError, ambiguous: (String, [String]) -> FeatureError
    ) throws(FeatureError) -> T {
        let q = query.trimming(\.isBlank)
        let label: (T) -> String = { "\($0[keyPath: id]) \($0[keyPath: name])" }
        if let n = Int(q), let hit = items.first(where: { $0[keyPath: id] == n }) { return hit }
        if !q.isEmpty, let exact = items.first(where: { $0[keyPath: name] == q }) { return exact }
        let prefixed = q.isEmpty ? [] : items.filter { $0[keyPath: name].hasPrefix(q) }
        if prefixed.count == 1 { return prefixed[0] }
        if prefixed.count > 1 { throw ambiguous(q, prefixed.map(label)) }
        throw notFound(q, items.map(label))
    }
}
