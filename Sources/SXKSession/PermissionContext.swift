import Foundation
import SXKModels

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

        public init() {}

        public var permissionURIs: [String] { permissions.map(\.uri) }
        public func role(_ code: String) -> RolePermission? { roles.first { $0.roleCode == code } }
    }

    /// Which entry of the role-permission list the current role matched.
    public struct Derivation: Sendable, Equatable {
        /// The entry the flat permissions and scenic list came from; nil for an empty list.
        public var matched: RolePermission?
        /// False when no entry had the current role code and the first one was used.
        public var exactMatch: Bool
    }

    private let lock = NSLock()
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

    /// `HomeViewModel.loadPermissions`: the entry whose roleCode equals the current role, else the
    /// first; its scenic list and permissions become current, and its name when it matched (or when
    /// no name is known). The current role code is kept; it is taken from the entry only when empty.
    private func derive() -> Derivation {
        let code = state.roleCode ?? ""
        let exact = state.roles.first { $0.roleCode == code }
        guard let matched = exact ?? state.roles.first else {
            state.permissions = []
            state.scenicList = []
            return Derivation(matched: nil, exactMatch: false)
        }
        state.permissions = matched.permissions
        state.scenicList = matched.scenicList
        if code.isEmpty { state.roleCode = matched.roleCode }
        if exact != nil || code.isEmpty || (state.roleName ?? "").isEmpty { state.roleName = matched.roleName }
        return Derivation(matched: matched, exactMatch: exact != nil)
    }

    /// Logout: everything cleared.
    public func reset() {
        lock.withLock { state = State() }
    }
}
