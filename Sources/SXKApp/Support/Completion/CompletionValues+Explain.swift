import SXKShell

extension CompletionValues {
    /// `explain menu`: every URI of the cached permission list (all roles, so hidden menus can be
    /// explained too); `explain key`: the keys the profile holds now (in memory, no disk read).
    func explainValues(for provider: String) -> [CompletionCandidate] {
        switch provider {
        case "explain-menu":
            let permission = services.contexts.permission.current
            return (permission.permissions + permission.roles.flatMap(\.permissions)).map { CompletionCandidate($0.uri, description: $0.name) }
        default:
            return services.storage.appStore.defaults.entries.map { CompletionCandidate($0.key) }
        }
    }
}
