import SXKSession

/// The session objects every facade works on (seed 001: AppSession, AccountContext, PermissionContext,
/// and the AppStore they persist to), built once by the composition root and passed in.
public struct SessionContexts: Sendable {
    public let session: AppSession
    public let account: AccountContext
    public let permission: PermissionContext
    public let store: AppStore

    public init(session: AppSession, account: AccountContext, permission: PermissionContext, store: AppStore) {
        self.session = session; self.account = account; self.permission = permission; self.store = store
    }

    /// Writes account, role, scopes and permission lists back to the snapshot in one save.
    /// `validated`: the server just confirmed the token (validation, login), see `AppStore.sessionValidatedAt`.
    /// `chosen`: a switch the user typed (`ScopeFeature`), its scope keys written even where memory held them already.
    func persist(validated: Bool = false, chosen: Bool = false) throws(FeatureError) {
        do { try store.persistContexts(account: account, permission: permission, validated: validated, chosen: chosen) } catch { throw .storage(error) }
    }
}
