import SXKFeatures
import SXKModels
import SXKShell

/// `compare --as` values: `current`, the login's accounts and roles, the role's scenic areas and the
/// scenic's stores, as `kind:value`; after a comma only the last entry is completed.
extension CompletionValues {
    func identities(prefix: String) -> [CompletionCandidate] {
        let head = prefix.lastIndex(of: ",").map { String(prefix[...$0]) } ?? ""
        let word = String(prefix.dropFirst(head.count))
        let a = services.contexts.account.current
        let p = services.contexts.permission.current
        var all: [CompletionCandidate] = [CompletionCandidate("current", description: "the session as it is")]
        for account in a.accounts {
            all.append(CompletionCandidate("account:\(account.userId)", description: "\(account.accountDisplayName) (\(account.roleCode))"))
        }
        var roles: [String] = []
        for code in a.accounts.map(\.roleCode) + p.roles.map(\.roleCode) where !roles.contains(code) { roles.append(code) }
        if roles.isEmpty { roles = RoleCode.known }
        all += roles.map { CompletionCandidate("role:\($0)") }
        all += AppModel.scenicsToChoose(p).map { CompletionCandidate("scenic:\($0.scenicId)", description: $0.scenicName) }
        // As `store <Tab>`: a new process (the completion scripts) has fetched none, so the list the last one kept.
        let stores = a.stores.isEmpty ? StoreListCache.read(services.storage) : a.stores
        all += AppModel.storesToChoose(stores, scenicId: a.scenicId).map { CompletionCandidate("store:\($0.storeId)", description: $0.storeName) }
        let taken = Set(head.split(separator: ",").map(String.init))
        return all.filter { $0.value.hasPrefix(word) && !taken.contains($0.value) }
            .map { CompletionCandidate(head + $0.value, description: $0.description) }
    }
}
