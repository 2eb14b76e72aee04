import FoundationEssentials
import SXKCore

/// The "scope leak" fault: list answers carry rows of another scenic area or store, as a server with
/// a broken authorization filter would send. The shell's scope guard is tested against it.
final class ScopeLeakSwitch: @unchecked Sendable {
    private let lock = Lock()
    private var count = 0

    /// Rows per page taken from a foreign scope (0 = off).
    var rowsPerPage: Int {
        get { lock.withLock { count } }
        set { lock.withLock { count = max(0, newValue) } }
    }
}

extension SandboxAPI {
    /// Another scope of the same kind (photographer, scenic, store) in a different scenic area.
    func foreignScope(of scope: OrderScope) -> OrderScope? {
        let kind = scope.key.split(separator: ":").first.map(String.init) ?? ""
        return scopes.values
            .filter { $0.key.hasPrefix(kind + ":") && $0.scenicName != scope.scenicName }
            .min { $0.number < $1.number }
    }

    /// The page's first rows replaced by the same positions of a foreign scope, when the leak is on.
    func leakedOrders(_ orders: [GeneratedOrder], of scope: OrderScope) -> [JSONValue] {
        let rows = orders.map(scope.json)
        let leak = min(scopeLeak.rowsPerPage, rows.count)
        guard leak > 0, let foreign = foreignScope(of: scope) else { return rows }
        var out = rows
        for i in 0..<leak where orders[i].index < foreign.count {
            out[i] = foreign.json(foreign.order(orders[i].index))
        }
        return out
    }

    /// Daily rows carry no scope; leaked ones are tagged with the foreign scenic (and store).
    func leakedDaily(_ rows: [JSONValue], of scope: OrderScope) -> [JSONValue] {
        let leak = min(scopeLeak.rowsPerPage, rows.count)
        guard leak > 0, let foreign = foreignScope(of: scope) else { return rows }
        var out = rows
        for i in 0..<leak {
            guard var object = out[i].objectValue else { continue }
            if let scenic = SandboxDirectory.scenics.first(where: { $0.name == foreign.scenicName }) {
                object["scenicId"] = .int(scenic.id)
                object["scenicName"] = .string(scenic.name)
            }
            if let name = foreign.storeName, let store = SandboxDirectory.stores.first(where: { $0.name == name }) {
                object["storeId"] = .int(store.id)
                object["storeName"] = .string(store.name)
            }
            out[i] = .object(object)
        }
        return out
    }
}
