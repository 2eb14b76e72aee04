import SXKAPI
import SXKFeatures
import SXKModels
import SXKSession
import SXKShell

/// Values for the specs' named providers, read from the in-memory contexts and, in a process that
/// has fetched no store list, the list the profile keeps (`stores.json`): the keystroke path never
/// touches the network.
struct CompletionValues {
    let services: AppServices
    /// Whether this shell runs (or, for a completion script, was started with) the sandbox: only
    /// then is `sandbox` an environment `env use` takes.
    var sandbox = false

    func values(for provider: String, prefix: String) -> [CompletionCandidate] {
        let all: [CompletionCandidate]
        switch provider {
        case "role":
            // What `role CODE` takes: the loaded list's codes (none for a stored empty list, which it
            // reads as the server's answer); the known codes only while no list is loaded.
            let permission = services.contexts.permission.current
            let roles = !permission.rolesLoaded
                ? RoleCode.known.map { CompletionCandidate($0) }
                : permission.roles.map { CompletionCandidate($0.roleCode, description: $0.roleName) }
            all = roles
        case "scenic":
            // Built once per list and matched by bytes: lists can hold thousands (see IdNameCompletion).
            let list = AppModel.scenicsToChoose(services.contexts.permission.current)
            return services.scenicCompletion.candidates(from: list, prefix: prefix) { (String($0.scenicId), $0.scenicName) }
        case "store":
            let account = services.contexts.account.current
            // A new process (the completion scripts) has fetched none: the list the last one kept.
            let stores = account.stores.isEmpty ? StoreListCache.read(services.storage) : account.stores
            return services.storeCompletion.candidates(from: stores, discriminator: account.scenicId, prefix: prefix) {
                AppModel.offersStore($0, scenicId: account.scenicId) ? (String($0.storeId), $0.storeName) : nil
            }
        case "account", "login-account":
            let accounts = services.contexts.account.current.accounts
            all = accounts.enumerated().map { CompletionCandidate(String($0.offset + 1), description: $0.element.accountDisplayName) }
                + accounts.map { CompletionCandidate(String($0.userId), description: "\($0.accountDisplayName) (\($0.roleCode))") }
        case "permission":
            all = services.contexts.permission.current.permissions.map { CompletionCandidate($0.uri, description: $0.name) }
        case "menu":
            // What `menus common add` takes: the menus of the basis its listing reads, less those listed.
            // Nothing with no role stored: add and remove are refused then.
            guard let scope = try? HomeFeature.commonScope(services.contexts.permission.current, catalog: services.menuCatalog), !scope.atNextHome else { return [] }
            let listed = Set(CommonMenuStore(store: services.storage.appStore).current(roleCode: scope.role, visibleURIs: scope.visible.map(\.uri)))
            all = scope.visible.filter { !listed.contains($0.uri) }.map { CompletionCandidate($0.uri, description: $0.title) }
        case "explain-menu", "stored-key":
            all = explainValues(for: provider)
        case "common-menu":
            // What `menus common remove` takes: the listing's menus, the default the home would write included.
            guard let scope = try? HomeFeature.commonScope(services.contexts.permission.current, catalog: services.menuCatalog), !scope.atNextHome else { return [] }
            all = CommonMenuStore(store: services.storage.appStore).current(roleCode: scope.role, visibleURIs: scope.visible.map(\.uri)).map { CompletionCandidate($0) }
        case "endpoint":
            all = Endpoint.all.map { CompletionCandidate($0.path, description: $0.summary) }
        case "get-endpoint", "post-endpoint":
            // `get` sends GET and `post` POST: offer only the paths that take that method.
            let method: Endpoint.Method = provider == "get-endpoint" ? .get : .post
            all = Endpoint.all.filter { $0.method == method }.map { CompletionCandidate($0.path, description: $0.summary) }
        case "watchable-command":
            // What `watch` takes: the app's commands it can repeat, not the shell's nor a login.
            all = CommandRegistry.all.filter { $0.watchable && !$0.spec.isHidden }.map { CompletionCandidate($0.spec.name, description: $0.spec.summary) }
        case "env":
            all = APIEnvironment.names.filter { sandbox || $0 != "sandbox" }.map { CompletionCandidate($0) }
        case "identity":
            return identities(prefix: prefix)
        case "order-status":
            return OrderStatus.candidates(prefix: prefix)
        default:
            all = []
        }
        guard !prefix.isEmpty else { return unique(all) }
        return unique(all.filter { $0.value.hasPrefix(prefix) })
    }

    private func unique(_ candidates: [CompletionCandidate]) -> [CompletionCandidate] {
        var seen = Set<String>()
        return candidates.filter { seen.insert($0.value).inserted }
    }
}
