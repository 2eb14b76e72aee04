import SXKFeatures
import SXKModels

/// One `--as` entry of `compare`: whose token, which role and which scope a request is sent with.
enum CompareIdentity: Equatable {
    /// The session as it is.
    case current
    /// Another account of this login (user id or list number), via set-user.
    case account(String)
    /// The account of this login whose role is CODE, else the current account switched to that role.
    case role(String)
    /// The session's token with the request's scenic parameter set to this scenic.
    case scenic(String)
    /// The session's token with the request's store parameter set to this store.
    case store(String)

    static let syntax = "account:ID, role:CODE, scenic:ID|NAME, store:ID|NAME or current"

    /// `role:photographer,role:storeAdmin` (each `--as` value may hold a comma list), in order, without repeats.
    /// One identity alone is compared with the current session, which becomes the baseline.
    static func parseList(_ values: [String]) throws -> [(label: String, identity: CompareIdentity)] {
        var out: [(label: String, identity: CompareIdentity)] = []
        for value in values {
            for raw in value.split(separator: ",") {
                let text = raw.trimming(\.isBlank)
                guard !text.isEmpty else { continue }
                let identity = try parse(text)
                if !out.contains(where: { $0.identity == identity }) { out.append((text, identity)) }
            }
        }
        guard !out.isEmpty else { throw AppError.usage("compare needs --as with at least one identity (\(syntax))") }
        if out.count == 1 && out[0].identity != .current { out.insert(("current", .current), at: 0) }
        return out
    }

    static func parse(_ text: String) throws -> CompareIdentity {
        if text == "current" || text == "me" { return .current }
        guard let colon = text.firstIndex(of: ":") else {
            throw AppError.usage("unknown identity '\(text)': use \(syntax)")
        }
        let kind = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimming(\.isBlank)
        guard !value.isEmpty else { throw AppError.usage("identity '\(text)' has no value after ':'") }
        switch kind {
        case "account": return .account(value)
        case "role": return .role(value)
        case "scenic": return .scenic(value)
        case "store": return .store(value)
        default: throw AppError.usage("unknown identity kind '\(kind)' in '\(text)': use \(syntax)")
        }
    }
}

/// An identity resolved against the session: the account and scope it stands for, and how its token
/// is obtained. Resolving reads the contexts; a store named with no store list held loads that list, as
/// `store NAME` does. Nothing else is sent and nothing else changes.
struct CompareTarget {
    var label: String
    var userId: Int?
    var accountType: String?
    var roleCode: String?
    var scenicId: Int?
    var scenicName: String?
    var storeId: Int?
    /// Another account of the login: its token comes from set-user (`probeToken`).
    var probeAccount: Account?
    /// `("scenicId", 2)` for scenic:2, `("storeId", 301)` for store:301.
    var override: (parameter: Endpoint.Parameter, value: Int)?

    /// `4001 photographer @3/301`
    var summary: String {
        var text = userId.map(String.init) ?? "?"
        if let roleCode { text += " " + roleCode }
        if let scenicId { text += " @\(scenicId)" }
        if let storeId { text += "/\(storeId)" }
        return text
    }

    /// `keptStores`: the store list the profile keeps (`StoreListCache`), for a name when this process
    /// holds none: compare loads no list, since a refused load would change the session.
    static func resolve(_ label: String, _ identity: CompareIdentity, contexts: SessionContexts, scope: ScopeFeature,
                        keptStores: @autoclosure () -> [Store]) async throws -> CompareTarget {
        let a = contexts.account.current
        let p = contexts.permission.current
        let current = CompareTarget(
            label: label, userId: a.userId, accountType: a.accountType, roleCode: p.roleCode, scenicId: a.scenicId,
            scenicName: a.scenicName, storeId: a.storeId)
        func isCurrent(_ account: Account) -> Bool { account.userId == a.userId && account.accountType == a.accountType }
        func of(_ account: Account) -> CompareTarget {
            if isCurrent(account) { return current }
            return CompareTarget(
                label: label, userId: account.userId, accountType: account.accountType, roleCode: account.roleCode,
                scenicId: account.scenicId, scenicName: account.scenicName, storeId: account.storeId, probeAccount: account)
        }
        switch identity {
        case .current:
            return current
        case .account(let selector):
            if a.accounts.isEmpty {
                if Int(selector) == a.userId { return current }
                throw AppError.usage("\(label): no account list in this profile — `login` first")
            }
            do { return of(try AuthSessionCoordinator.resolve(selector, in: a.accounts)) } catch {
                throw AppError.usage("\(label): \(error)")
            }
        case .role(let code):
            if p.roleCode == code { return current }
            // Another account whose role is CODE. The current account's own record says only the role it
            // logged in with; in another of its roles it goes through the role-permission entry below
            // (else `role:X` after `role Y` would resolve to the current role: both rows the same probe).
            let holders = a.accounts.filter { $0.roleCode == code && !isCurrent($0) }
            if holders.count == 1 { return of(holders[0]) }
            if holders.count > 1 {
                throw AppError.usage("\(label) matches accounts \(holders.map { String($0.userId) }.joined(separator: ", ")) — name one with account:ID")
            }
            guard let role = p.role(code) else {
                let held = Set(a.accounts.map(\.roleCode) + p.roles.map(\.roleCode)).sorted()
                throw AppError.usage("\(label): no account of this login holds role '\(code)' (roles here: \(held.isEmpty ? "none known" : held.joined(separator: ", ")))")
            }
            // The same account acting in another of its roles: same token, that role's endpoint and scenic.
            var target = current
            target.roleCode = code
            let scenic = AppModel.scenicAfterRoleSwitch(currentId: a.scenicId, currentName: a.scenicName, roleScenics: role.scenicList)
            target.scenicId = scenic.id
            target.scenicName = scenic.name
            return target
        case .scenic(let query):
            // An id is sent as typed; a name is matched as `scenic NAME` matches it.
            let id: Int
            if let n = Int(query) {
                id = n
            } else {
                do { id = try scope.scenic(matching: query).scenicId } catch { throw refusal(label, error) }
            }
            var target = current
            target.scenicId = id
            target.scenicName = AppModel.scenicsToChoose(p).first { $0.scenicId == id }?.scenicName
            target.override = (.scenicId, id)
            return target
        case .store(let query):
            // An id is sent as typed; a name is matched as `store NAME` matches it.
            let id: Int
            if let n = Int(query) {
                id = n
            } else {
                let stores = a.stores.isEmpty ? keptStores() : a.stores
                guard !stores.isEmpty else {
                    throw AppError.usage("\(label): no store list is held to match '\(query)' (`store` loads one) — give the store's id")
                }
                do { id = try ScopeFeature.store(matching: query, among: stores, scenicId: a.scenicId).storeId } catch { throw refusal(label, error) }
            }
            var target = current
            target.storeId = id
            target.override = (.storeId, id)
            return target
        }
    }

    /// A name the scope's matcher refuses is this identity's usage error, said as `scenic` and `store`
    /// say it; any other failure (the store list's load) stays what it is.
    private static func refusal(_ label: String, _ error: FeatureError) -> any Error {
        error.isUsage ? AppError.usage("\(label): \(error)") : error
    }
}
