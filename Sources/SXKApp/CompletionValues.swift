import SXKAPI
import SXKSession
import SXKShell

/// Values for the specs' named providers, read from the in-memory contexts only: the keystroke
/// path never touches the network or the disk.
struct CompletionValues {
    let services: AppServices

    func values(for provider: String, prefix: String) -> [CompletionCandidate] {
        let all: [CompletionCandidate]
        switch provider {
        case "role":
            let permission = services.contexts.permission.current
            let roles = permission.roles.isEmpty
                ? RoleCode.known.map { CompletionCandidate($0) }
                : permission.roles.map { CompletionCandidate($0.roleCode, description: $0.roleName) }
            all = roles
        case "scenic":
            // Ids and names are matched before candidates are built: lists can hold thousands.
            let list = services.contexts.permission.current.scenicList
            return Self.idsAndNames(list.lazy.map { (String($0.scenicId), $0.scenicName) }, prefix: prefix)
        case "store":
            let stores = services.contexts.account.current.storesInScenic
            return Self.idsAndNames(stores.lazy.map { (String($0.storeId), $0.storeName) }, prefix: prefix)
        case "account", "login-account":
            let accounts = services.contexts.account.current.accounts
            all = accounts.enumerated().map { CompletionCandidate(String($0.offset + 1), description: $0.element.accountDisplayName) }
                + accounts.map { CompletionCandidate(String($0.userId), description: "\($0.accountDisplayName) (\($0.roleCode))") }
        case "permission":
            all = services.contexts.permission.current.permissions.map { CompletionCandidate($0.uri, description: $0.name) }
        case "menu":
            let permissions = services.contexts.permission.current.permissions
            all = services.menuCatalog.visibleMenus(permissions: permissions).map { CompletionCandidate($0.uri, description: $0.title) }
        case "common-menu":
            let role = services.contexts.permission.roleCode ?? ""
            all = (services.storage.appStore.commonMenuURIs(roleCode: role) ?? []).map { CompletionCandidate($0) }
        case "endpoint":
            all = Endpoint.all.map { CompletionCandidate($0.path, description: $0.summary) }
        case "env":
            all = APIEnvironment.names.map { CompletionCandidate($0) }
        case "identity":
            return identities(prefix: prefix)
        default:
            all = []
        }
        guard !prefix.isEmpty else { return unique(all) }
        return unique(all.filter { $0.value.hasPrefix(prefix) })
    }

    /// Ids matching `prefix` (described by name), then names matching it (described by id).
    static func idsAndNames<S: Sequence>(_ pairs: S, prefix: String) -> [CompletionCandidate] where S.Element == (String, String) {
        var ids: [CompletionCandidate] = []
        var names: [CompletionCandidate] = []
        var seenNames = Set<String>()
        for (id, name) in pairs {
            if id.hasPrefix(prefix) { ids.append(CompletionCandidate(id, description: name)) }
            if name.hasPrefix(prefix), seenNames.insert(name).inserted { names.append(CompletionCandidate(name, description: id)) }
        }
        return ids + names
    }

    private func unique(_ candidates: [CompletionCandidate]) -> [CompletionCandidate] {
        var seen = Set<String>()
        return candidates.filter { seen.insert($0.value).inserted }
    }
}
