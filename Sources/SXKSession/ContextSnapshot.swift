import SXKCore
import FoundationEssentials
import SXKModels

/// Moves the in-memory contexts to and from the account snapshot in the AppStore (restore at start,
/// write-back after a change of account, role or scope).
extension AppStore {
    /// Fills the contexts from the stored snapshot as the app left it (no re-derivation, no network).
    /// The app reads the role and scenic keys whatever the user id (seed 000 §4.2
    /// `refreshLocalDisplayState`) and the scoped lists under `guest` without one (§6.1), so the
    /// contexts hold what the keys say even then. Returns whether there is an account snapshot (a user id).
    @discardableResult
    public func restoreContexts(account: AccountContext, permission: PermissionContext) -> Bool {
        var a = AccountContext.State()
        a.userId = userId
        a.accountType = accountType
        a.displayName = accountDisplayName
        a.userName = userName
        a.realName = realName
        a.avatar = avatar
        a.phone = phone
        a.scenicId = currentScenicId
        a.scenicName = currentScenicName
        a.storeId = currentStoreId
        account.replace(with: a)

        var p = PermissionContext.State()
        p.roleCode = roleCode
        p.roleName = roleName
        p.roles = rolePermissionList()
        p.permissions = permissionItems()
        p.scenicList = roleScenicList()
        p.rolesLoaded = hasRolePermissionList
        permission.replace(with: p)
        return hasAccountSnapshot
    }

    /// Writes the contexts back as one save: account fields, role, scopes, and the account-scoped
    /// permission lists (once a role-permission list was loaded or restored — an empty one is saved as
    /// empty, as the app saves what it received). `validated`: the contexts were just loaded from the
    /// server with the token, so the time of this save is also the session's last validation.
    /// `chosen`: a switch the user typed, whose scope keys (role, scenic, store and the role's lists) are
    /// written even where memory already held them, over another process's switch since this one read
    /// the file. The account's identity is not forced: a file another login or logout changed refuses
    /// the save (`DefaultsStore.save`), as it refuses any.
    public func persistContexts(account: AccountContext, permission: PermissionContext, validated: Bool = false, chosen: Bool = false) throws(SessionError) {
        let a = account.current
        let p = permission.current
        try batch { () throws(SessionError) in
            try write(a, p, validated: validated)
            guard chosen else { return }
            for key in scopeKeys(withLists: p.rolesLoaded) { defaults.set(key, defaults[key], evenIfUnchanged: true) }
        }
    }

    /// The keys a role, scenic or store switch decides: the role, the scenic, the store and, once
    /// loaded, the role's lists in this account's scope.
    func scopeKeys(withLists: Bool = true) -> [String] {
        let scope = [StoreKey.roleCode, StoreKey.roleName, StoreKey.currentScenicId, StoreKey.currentScenicName, StoreKey.currentStoreId]
        return withLists ? scope + [StoreKey.rolePermissionList, StoreKey.permission, StoreKey.currentRoleScenicList].map { scopedKey($0) } : scope
    }

    /// The switch keys, and what `-` goes back to, as memory holds them now and whether each waits to
    /// be saved, for `restoreScope`.
    public func scopeState() -> [(key: String, value: JSONValue?, pending: Bool)] {
        (scopeKeys() + [PreviousScope.role, .scenic, .store].map { previousKey($0) }).map { ($0, defaults[$0], defaults.isPending($0)) }
    }

    /// Puts back what `scopeState` read: a switch whose save failed leaves nothing pending that a
    /// later save would write over another process's state.
    public func restoreScope(_ state: [(key: String, value: JSONValue?, pending: Bool)]) {
        for entry in state { defaults.revert(entry.key, to: entry.value, pending: entry.pending) }
    }

    private func write(_ a: AccountContext.State, _ p: PermissionContext.State, validated: Bool) throws(SessionError) {
        if validated { touchValidated() }
        // The identity as read is not rewritten in another spelling (`"4001"`, `4001.0`, `null`): a
        // change of it is what lets a save go over a file another login changed (`DefaultsStore.save`).
        if defaults[StoreKey.userId]?.intValue != a.userId { defaults.set(StoreKey.userId, a.userId.map { .int($0) }) }
        if defaults[StoreKey.accountType]?.stringValue != a.accountType { defaults.set(StoreKey.accountType, a.accountType.map { .string($0) }) }
        defaults.set(StoreKey.accountDisplayName, a.displayName.map { .string($0) })
        defaults.set(StoreKey.userName, a.userName.map { .string($0) })
        defaults.set(StoreKey.realName, a.realName.map { .string($0) })
        defaults.set(StoreKey.avatar, a.avatar.map { .string($0) })
        defaults.set(StoreKey.phone, a.phone.map { .string($0) })
        try setRole(code: p.roleCode, name: p.roleName)
        try setCurrentScenic(id: a.scenicId, name: a.scenicName)
        try setCurrentStoreId(a.storeId)
        if p.rolesLoaded {
            try saveRolePermissionList(p.roles)
            try savePermissionItems(p.permissions)
            try saveRoleScenicList(p.scenicList)
        }
    }
}
