import SXKCore

/// What `role -`, `scenic -`, `store -` and `switch-account -` go back to: the value before the last
/// switch, kept in the profile's defaults.json with the rest of the snapshot (so it is written in the
/// same atomic save as the switch itself). Role, scenic and store are kept per account (under the
/// account prefix); the account is kept per profile.
public enum PreviousScope: String, Sendable, CaseIterable {
    case role, scenic, store, account

    /// sxk's own key (never one the app has).
    var key: String { "sxk_previous_" + rawValue }
}

extension AppStore {
    func previousKey(_ kind: PreviousScope) -> String {
        kind == .account ? kind.key : StoreKey.scoped(kind.key, prefix: accountCachePrefix)
    }

    /// The value before the last switch of `kind` (a role code, or an id as text).
    public func previous(_ kind: PreviousScope) -> String? {
        defaults[previousKey(kind)]?.stringValue
    }

    /// Records the value left by a switch in memory only: the switch's own save (`persistContexts`)
    /// writes it, so the switch and what it left are on disk together or not at all.
    public func stagePrevious(_ kind: PreviousScope, _ value: String?) {
        defaults.set(previousKey(kind), value.map { .string($0) })
    }
}
