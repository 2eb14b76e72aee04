import SXKCore
import SXKModels
import SXKSession

/// Which entry of the role-permission list the current role matched (`AppModel.derivePermissions`).
public struct PermissionDerivation: Sendable, Equatable {
    /// The entry the flat permissions and scenic list came from; nil for an empty list.
    public var matched: RolePermission?
    /// True when an entry had the current role code.
    public var exactMatch: Bool
    /// Why the flat permissions and scenic list are empty or came from an entry that is not the
    /// current role's; nil for an exact match.
    public var reason: String?
}

extension AppModel {
    /// `HomeViewModel.loadPermissions` (seed 000 §4.2): the entry whose roleCode is the current role
    /// gives the flat permissions, the scenic list and the role name. When no entry matches, the lists
    /// are empty and `reason` says so — another role's permissions are never put under the current role
    /// (inferred: docs/app-behaviour.md#permissions). Only with no current role at all does the first
    /// entry become the role (inferred, same section). On a state of its own too: a copy a view asks
    /// about (what the next load leaves).
    @discardableResult
    public static func derivePermissions(_ state: inout PermissionContext.State) -> PermissionDerivation {
        let code = state.roleCode ?? ""
        if let index = state.currentRoleIndex {
            let exact = state.roles[index]
            state.permissions = exact.permissions
            state.scenicList = exact.scenicList
            state.roleName = exact.roleName.isEmpty ? state.roleName : exact.roleName
            return PermissionDerivation(matched: exact, exactMatch: true, reason: nil)
        }
        state.permissions = []
        state.scenicList = []
        if state.roles.isEmpty {
            return PermissionDerivation(matched: nil, exactMatch: false, reason: "the role-permission list is empty")
        }
        if code.isEmpty, let first = state.roles.first {
            state.roleCode = first.roleCode
            state.roleName = first.roleName.isEmpty ? nil : first.roleName
            state.permissions = first.permissions
            state.scenicList = first.scenicList
            return PermissionDerivation(matched: first, exactMatch: false, reason: "no current role: the first entry \(first.roleCode) became the role")
        }
        let held = state.roles.map(\.roleCode).joined(separator: ", ")
        return PermissionDerivation(matched: nil, exactMatch: false,
                                    reason: "role \(code) has no entry in the role-permission list (entries: \(held)): no permissions, no scenic list")
    }

    /// A loaded role-permission list (an empty one too) into `context`, the current role's lists
    /// re-derived in the same step.
    @discardableResult
    public static func loadPermissions(_ roles: [RolePermission], into context: PermissionContext) -> PermissionDerivation {
        context.update { state in
            state.roles = roles
            state.rolesLoaded = true
            return derivePermissions(&state)
        }
    }

    /// A switch to role `code` in `context`: the flat permissions and the scenic list re-derived; the
    /// previous role's name is not kept under the new code.
    @discardableResult
    public static func selectRole(_ code: String, in context: PermissionContext) -> PermissionDerivation {
        context.update { state in
            if state.roleCode != code { state.roleName = nil }
            state.roleCode = code
            return derivePermissions(&state)
        }
    }
}
