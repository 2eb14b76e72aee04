import FoundationEssentials
import SXKCore

/// Role lists set through the control API (`POST /__sandbox/roles`) in place of an account's fixed
/// ones, so a test can change what `role-permission` answers for a user between two calls.
final class RoleOverrides: @unchecked Sendable {
    private let lock = Lock()
    private var byUser: [Int: [SandboxRole]] = [:]

    func roles(for account: SandboxAccount) -> [SandboxRole] {
        lock.withLock { byUser[account.userId] } ?? account.roles
    }

    /// nil restores the account's own roles.
    func set(_ roles: [SandboxRole]?, userId: Int) {
        lock.withLock { byUser[userId] = roles }
    }
}
