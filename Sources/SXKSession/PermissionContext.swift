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
        /// one of its code (`AppModel.derivePermissions`); nil without a current role or an entry for it.
        public var currentRoleIndex: Int? {
            guard let code = roleCode, !code.isEmpty else { return nil }
            return roles.firstIndex { $0.roleCode == code }
        }
        public func role(_ code: String) -> RolePermission? { roles.first { $0.roleCode == code } }
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

    /// One change of the whole state under the lock: the permission load's and a role switch's
    /// derivation (`AppModel.loadPermissions`, `AppModel.selectRole`) read and write it as one step.
    public func update<Result>(_ body: (inout State) -> Result) -> Result {
        lock.withLock { body(&state) }
    }

    /// Logout: everything cleared.
    public func reset() {
        lock.withLock { state = State() }
    }
}
