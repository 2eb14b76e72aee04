import FoundationEssentials

/// The app's `HomeCommonMenuStore` (seed 000 §6.2): common-menu URIs per account scope and role,
/// under `{scope}_role_{roleCode}_common_uris`.
public final class CommonMenuStore: @unchecked Sendable {
    /// How many visible menus become the default when there is no record.
    public static let defaultCount = 4

    private let store: AppStore

    public init(store: AppStore) {
        self.store = store
    }

    /// The key for the current account scope and `roleCode`.
    public func key(roleCode: String) -> String {
        StoreKey.commonMenuURIs(prefix: store.accountCachePrefix, roleCode: roleCode)
    }

    /// The common menus of `roleCode`. With visible menus (permissions exist) and no record, the first
    /// four URIs become the default and are written (which four is inferred: the first of the permission
    /// list, in its order — docs/app-behaviour.md#menus).
    public func commonURIs(roleCode: String, visibleURIs: [String]) throws(SessionError) -> [String] {
        if let stored = store.commonMenuURIs(roleCode: roleCode) { return stored }
        guard !visibleURIs.isEmpty else { return [] }
        let defaults = Self.defaults(visibleURIs)
        try store.setCommonMenuURIs(defaults, roleCode: roleCode)
        return defaults
    }

    /// The record, or the default it would get, without writing anything.
    public func current(roleCode: String, visibleURIs: [String]) -> [String] {
        store.commonMenuURIs(roleCode: roleCode) ?? Self.defaults(visibleURIs)
    }

    /// The first `defaultCount` distinct visible URIs.
    static func defaults(_ visibleURIs: [String]) -> [String] {
        var defaults: [String] = []
        for uri in visibleURIs where !defaults.contains(uri) && defaults.count < CommonMenuStore.defaultCount {
            defaults.append(uri)
        }
        return defaults
    }

    /// Adds a visible URI at the end; refuses one that is not visible or already there.
    @discardableResult
    public func add(_ uri: String, roleCode: String, visibleURIs: [String]) throws(SessionError) -> [String] {
        guard visibleURIs.contains(uri) else { throw .rejected("'\(uri)' is not a visible menu for role \(roleCode)") }
        // Refused before anything is written (the default record included).
        var uris = current(roleCode: roleCode, visibleURIs: visibleURIs)
        guard !uris.contains(uri) else { throw .rejected("'\(uri)' is already a common menu") }
        uris.append(uri)
        try store.setCommonMenuURIs(uris, roleCode: roleCode)
        return uris
    }

    /// Removes a URI; refuses one that is not a common menu.
    @discardableResult
    public func remove(_ uri: String, roleCode: String, visibleURIs: [String]) throws(SessionError) -> [String] {
        var uris = current(roleCode: roleCode, visibleURIs: visibleURIs)
        guard let index = uris.firstIndex(of: uri) else { throw .rejected("'\(uri)' is not a common menu") }
        uris.remove(at: index)
        try store.setCommonMenuURIs(uris, roleCode: roleCode)
        return uris
    }
}
