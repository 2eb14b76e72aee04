import FoundationEssentials
import SXKModels
import SXKCore

/// The app's `PermissionContext`: the role-permission list, the current role, and the current role's
/// flat permission items and scenic list.
public final class PermissionContext: @unchecked Sendable {
    /// A consistent copy of the permission context.
    public struct State: Sendable, Equatable {
        public var roles: [RolePermission] = []
        public var roleCode: String?
        public var roleName: String?
        public var permissions: [PermissionItem] = []
        public var scenicList: [ScenicRef] = []
        /// True once a role-permission list was loaded or restored (even an empty one), so an empty
        /// answer is saved as empty instead of leaving the previous lists on disk.
        public var rolesLoaded = false

        public init() {}

        public var permissionURIs: [String] { permissions.map(\.uri) }

        /// The entry of the role-permission list the current role's permissions come from: the first
        /// one of its code (`derive`); nil without a current role or an entry for it.
        public var currentRoleIndex: Int? {
            guard let code = roleCode, !code.isEmpty else { return nil }
            return roles.firstIndex { $0.roleCode == code }
        }
        public func role(_ code: String) -> RolePermission? { roles.first { $0.roleCode == code } }
    }

    /// Which entry of the role-permission list the current role matched.
    public struct Derivation: Sendable, Equatable {
        /// The entry the flat permissions and scenic list came from; nil for an empty list.
        public var matched: RolePermission?
        /// True when an entry had the current role code.
        public var exactMatch: Bool
        /// Why the flat permissions and scenic list are empty or came from an entry that is not the
        /// current role's; nil for an exact match.
        public var reason: String?
    }

    private let lock = Lock()
    private var state = State()

    public init() {}

    public var current: State { lock.withLock { state } }
    public var roleCode: String? { lock.withLock { state.roleCode } }
    public var permissionURIs: [String] { lock.withLock { state.permissionURIs } }

    /// Sets the current role without re-deriving (login from the chosen account, restore).
    public func setCurrentRole(code: String?, name: String?) {
        lock.withLock {
            state.roleCode = code
            state.roleName = name
        }
    }

    /// Replaces the whole state (restore from the snapshot, which stores the derived lists as the app did).
    public func replace(with newState: State) {
        lock.withLock { state = newState }
    }

    /// A freshly loaded role-permission list: stored, then the current role's lists re-derived.
    @discardableResult
    public func setRolePermissions(_ roles: [RolePermission]) -> Derivation {
        lock.withLock {
            state.roles = roles
            state.rolesLoaded = true
            return derive()
        }
    }

    /// Switches to `code` and re-derives the flat permissions and the scenic list.
    @discardableResult
    public func selectRole(_ code: String) -> Derivation {
        lock.withLock {
            if state.roleCode != code { state.roleName = nil }
            state.roleCode = code
            return derive()
        }
    }

    /// `HomeViewModel.loadPermissions` (seed 000 §4.2): the entry whose roleCode is the current role
    /// gives the flat permissions, the scenic list and the role name. When no entry matches, the lists
    /// are empty and `reason` says so — another role's permissions are never put under the current role
    /// (inferred: docs/app-behaviour.md#permissions). Only with no current role at all does the first
    /// entry become the role (inferred, same section).
    private func derive() -> Derivation { Self.derive(&state) }

    /// `derive` on a state of its own (a copy a view asks about: what the next load leaves).
    @discardableResult
    public static func derive(_ state: inout State) -> Derivation {
        let code = state.roleCode ?? ""
        if let index = state.currentRoleIndex {
            let exact = state.roles[index]
            state.permissions = exact.permissions
            state.scenicList = exact.scenicList
            state.roleName = exact.roleName.isEmpty ? state.roleName : exact.roleName
            return Derivation(matched: exact, exactMatch: true, reason: nil)
        }
        state.permissions = []
        state.scenicList = []
        if state.roles.isEmpty {
            return Derivation(matched: nil, exactMatch: false, reason: "the role-permission list is empty")
        }
        if code.isEmpty, let first = state.roles.first {
            state.roleCode = first.roleCode
            state.roleName = first.roleName.isEmpty ? nil : first.roleName
            state.permissions = first.permissions
            state.scenicList = first.scenicList
            return Derivation(matched: first, exactMatch: false, reason: "no current role: the first entry \(first.roleCode) became the role")
        }
        let held = state.roles.map(\.roleCode).joined(separator: ", ")
        return Derivation(matched: nil, exactMatch: false,
                          reason: "role \(code) has no entry in the role-permission list (entries: \(held)): no permissions, no scenic list")
    }

    /// Logout: everything cleared.
    public func reset() {
        lock.withLock { state = State() }
    }
}
