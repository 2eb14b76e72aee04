import SXKAPI
import SXKCore
import SXKSession

/// The scope a list answer must stay inside: the scenic areas (and store) the request was made for.
/// A row outside it means the server's authorization filter let another scope's data through.
public struct ScopeExpectation: Sendable, Equatable {
    /// Scenic areas a row may belong to (empty: not checked).
    public var scenics: [ScenicRef]
    /// The store a row must belong to (nil: not checked).
    public var storeId: Int?
    public var storeName: String?

    public init(scenics: [ScenicRef], storeId: Int? = nil, storeName: String? = nil) {
        self.scenics = scenics; self.storeId = storeId; self.storeName = storeName
    }

    /// `store 101 断桥摄影店`, `scenic 1 西湖景区`, `scenics 1 西湖景区, 2 灵隐寺`.
    public var label: String {
        if let storeId { return "store \(storeId)" + (storeName.map { " \($0)" } ?? "") }
        let names = scenics.map { "\($0.scenicId)" + ($0.scenicName.isEmpty ? "" : " \($0.scenicName)") }
        return (scenics.count == 1 ? "scenic " : "scenics ") + names.joined(separator: ", ")
    }

    /// Whether a row (an order, a daily row) lies outside. Ids are compared when the row has them,
    /// names otherwise; a row that names no scope at all is not judged.
    public func isOutside(_ row: JSONValue) -> Bool {
        guard let o = row.objectValue else { return false }
        if let storeId {
            if let id = o.int("storeId") {
                if id != storeId { return true }
            } else if let expected = storeName, !expected.isEmpty, let name = o.string("storeName"), !name.isEmpty, name != expected {
                return true
            }
        }
        guard !scenics.isEmpty else { return false }
        if let id = o.int("scenicId") { return !scenics.contains { $0.scenicId == id } }
        let names = scenics.map(\.scenicName).filter { !$0.isEmpty }
        if !names.isEmpty, let name = o.string("scenicName"), !name.isEmpty { return !names.contains(name) }
        return false
    }

    /// How many of `rows` lie outside.
    public func countOutside(_ rows: [JSONValue]) -> Int { rows.reduce(0) { $0 + (isOutside($1) ? 1 : 0) } }

    /// The one warning line (without the `warning:` prefix), nil when every row is inside.
    public func warning(outside count: Int) -> String? {
        guard count > 0 else { return nil }
        return "\(count) row\(count == 1 ? "" : "s") outside the current scope (\(label)): server-side authorization bug?"
    }
}

/// Builds the expectation of a list request from the session's contexts (the scope guard).
public enum ScopeGuard {
    /// For a role's order list or statistics daily rows (daily rows are checked only where they say
    /// which scope they belong to): the photographer role's scenic areas, the scenic sent, or the store sent.
    public static func expectation(for endpoint: RoleEndpoints, contexts: SessionContexts) -> ScopeExpectation? {
        switch endpoint {
        case .photographer: return photographer(contexts)
        case .scenicAdmin(let id): return scenic(id, contexts)
        case .storeAdmin(let id): return store(id, contexts)
        }
    }

    static func photographer(_ contexts: SessionContexts) -> ScopeExpectation? {
        let p = contexts.permission.current
        let list = p.role(RoleCode.photographer)?.scenicList ?? (p.roleCode == RoleCode.photographer ? p.scenicList : [])
        return list.isEmpty ? nil : ScopeExpectation(scenics: list)
    }

    static func scenic(_ id: Int, _ contexts: SessionContexts) -> ScopeExpectation {
        ScopeExpectation(scenics: [ScenicRef(scenicId: id, scenicName: scenicName(id, contexts))])
    }

    static func store(_ id: Int, _ contexts: SessionContexts) -> ScopeExpectation {
        let a = contexts.account.current
        let known = a.stores.first { $0.storeId == id }
        var scenics: [ScenicRef] = []
        if let scenicId = known?.scenicId ?? a.scenicId {
            scenics = [ScenicRef(scenicId: scenicId, scenicName: scenicName(scenicId, contexts))]
        }
        return ScopeExpectation(scenics: scenics, storeId: id, storeName: known?.storeName)
    }

    /// The name the session knows for a scenic id (current scenic, then any role's list), else empty.
    static func scenicName(_ id: Int, _ contexts: SessionContexts) -> String {
        let a = contexts.account.current
        if a.scenicId == id, let name = a.scenicName, !name.isEmpty { return name }
        let p = contexts.permission.current
        for ref in p.scenicList + p.roles.flatMap(\.scenicList) where ref.scenicId == id && !ref.scenicName.isEmpty {
            return ref.scenicName
        }
        return ""
    }
}
