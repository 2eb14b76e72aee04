import Foundation
import SXKCore
import SXKAPI
import SXKSession

/// One key of `context diff`: the stored value beside what the server says now.
public struct ContextDiffRow: Sendable, Equatable {
    public var key: String
    public var stored: String
    public var server: String
    public var same: Bool

    public var json: JSONValue {
        ["key": .string(key), "stored": .string(stored), "server": .string(server), "same": .bool(same)]
    }
}

/// The stored (or imported) state beside the server's current answers, and what the app would do
/// at its next start. Read-only: nothing is saved and no context changes.
public struct ContextDiff: Sendable, Equatable {
    public var rows: [ContextDiffRow]
    /// What the next start would do with these answers, each with its basis.
    public var nextStart: [ExplainStep]
    public var calls: [CallRecord]

    public var json: JSONValue {
        ["rows": .array(rows.map(\.json)), "nextStart": .array(nextStart.map(\.json)), "calls": .array(calls.map(\.json))]
    }
}

/// `context diff`: fresh userinfo, role-permission and (for storeAdmin) the store list, compared key
/// by key with the profile.
public struct ContextDiffFeature: Sendable {
    public let account: AccountAPI
    public let commerce: CommerceAPI
    public let sessionGuard: SessionGuard

    public init(account: AccountAPI, commerce: CommerceAPI, guard sessionGuard: SessionGuard) {
        self.account = account; self.commerce = commerce; self.sessionGuard = sessionGuard
    }

    public func diff() async throws(FeatureError) -> ContextDiff {
        try sessionGuard.requireSession()
        let store = sessionGuard.contexts.store
        do { try store.reload() } catch { throw .storage(error) }
        let timer = CallTimer(), sink = CallSink()
        let account = self.account, commerce = self.commerce
        let info = try await sessionGuard.run("userinfo") {
            try await timer.record("GET", Endpoint.userInfo.path, into: sink) { try await account.userInfo().value }
        }
        let roles = try await sessionGuard.run("role-permission") {
            try await timer.record("GET", Endpoint.rolePermissions.path, into: sink) { try await account.rolePermissions().value }
        }
        let role = store.roleCode ?? ""
        var stores: [Store]?
        if role == RoleCode.storeAdmin {
            stores = try await sessionGuard.run("store list") {
                try await timer.record("GET", Endpoint.storeList.path, into: sink) { try await commerce.storeList().value }
            }
        }
        var diff = ContextDiff(rows: [], nextStart: [], calls: sink.records)
        Self.compare(store: store, info: info, roles: roles, stores: stores, into: &diff)
        return diff
    }

    /// The key-by-key comparison and the next-start predictions (pure, for tests).
    static func compare(store: AppStore, info: UserInfo, roles: [RolePermission], stores: [Store]?, into diff: inout ContextDiff) {
        let scope = store.accountCachePrefix
        let role = store.roleCode ?? ""
        func row(_ key: String, _ stored: String?, _ server: String?) {
            let s = stored ?? "nil", v = server ?? "nil"
            diff.rows.append(ContextDiffRow(key: key, stored: s, server: v, same: s == v))
        }
        row(StoreKey.userName, store.userName, info.userName)
        row(StoreKey.realName, store.realName, info.realName)
        row(StoreKey.phone, store.phone, info.phone)
        row(StoreKey.roleName, store.roleName, info.roleName)
        let storedRoles = store.rolePermissionList()
        row(StoreKey.scoped(StoreKey.rolePermissionList, prefix: scope), storedRoles.map(\.roleCode).joined(separator: ","), roles.map(\.roleCode).joined(separator: ","))
        let entry = roles.first { $0.roleCode == role }
        let storedURIs = store.permissionItems().map(\.uri)
        let serverURIs = entry?.permissions.map(\.uri) ?? []
        row(StoreKey.scoped(StoreKey.permission, prefix: scope), storedURIs.joined(separator: ","), serverURIs.joined(separator: ","))
        let storedScenics = store.roleScenicList().map(\.scenicId)
        let serverScenics = entry?.scenicList.map(\.scenicId) ?? []
        row(StoreKey.scoped(StoreKey.currentRoleScenicList, prefix: scope), storedScenics.map(String.init).joined(separator: ","), serverScenics.map(String.init).joined(separator: ","))

        if entry == nil {
            diff.nextStart.append(ExplainStep(key: StoreKey.roleCode, value: role.isEmpty ? "nil" : role,
                rule: "no entry for role \(role) in the server's list → no permissions and no scenic list at the next home (never another role's)", basis: Rules.roleMatch))
            diff.nextStart.append(ExplainStep(key: nil, value: "permission dialog", rule: "follows: the role has no permissions", basis: Rules.permissionDialog))
        } else {
            let added = serverURIs.filter { !storedURIs.contains($0) }, removed = storedURIs.filter { !serverURIs.contains($0) }
            if !added.isEmpty || !removed.isEmpty {
                diff.nextStart.append(ExplainStep(key: StoreKey.scoped(StoreKey.permission, prefix: scope),
                    value: (added.map { "+" + $0 } + removed.map { "-" + $0 }).joined(separator: " "),
                    rule: "loadPermissions saves the fresh list at the next home; menus follow it", basis: Rules.permissionLoad))
            }
        }
        if let scenic = store.currentScenicId {
            if AccountContextLoader.displayStateClearReason(scenicId: scenic, scenicName: store.currentScenicName) != nil {
                diff.nextStart.append(ExplainStep(key: StoreKey.currentScenicId, value: String(scenic),
                    rule: "not a valid scenic → cleared at the next home" + (serverScenics.isEmpty ? "" : "; scenic dialog follows"), basis: Rules.validScenic))
            } else if entry != nil, !serverScenics.contains(scenic) {
                diff.nextStart.append(ExplainStep(key: StoreKey.currentScenicId, value: String(scenic),
                    rule: "currentScenicId \(scenic) no longer in \(role)'s list → kept by refreshLocalDisplayState (it clears only an invalid scenic); requests keep scenic \(scenic)", basis: Rules.validScenic))
            }
        } else if !serverScenics.isEmpty, entry?.permissions.isEmpty == false {
            diff.nextStart.append(ExplainStep(key: StoreKey.currentScenicId, value: "nil", rule: "no scenic selected and the role has \(serverScenics.count) → scenic dialog", basis: Rules.scenicDialog))
        }
        if let stores {
            let inScenic = stores.filter { $0.scenicId == store.currentScenicId }
            let saved = store.currentStoreId
            let matched = saved.map { id in inScenic.contains { $0.storeId == id } } ?? false
            row(StoreKey.currentStoreId, saved.map(String.init), inScenic.map { String($0.storeId) }.joined(separator: ","))
            diff.nextStart.append(ExplainStep(key: StoreKey.currentStoreId, value: saved.map(String.init) ?? "nil",
                rule: matched ? "matched among the scenic's stores → written again at the next home" : "no store of the scenic has it → nothing written, no store chosen", basis: Rules.storeLoad))
        }
        if let name = info.roleName, !name.isEmpty, name != store.roleName {
            diff.nextStart.append(ExplainStep(key: StoreKey.roleName, value: name,
                rule: "written when the profile tab reloads (the API's roleName is non-empty)", basis: Rules.profileReload))
        }
    }
}
