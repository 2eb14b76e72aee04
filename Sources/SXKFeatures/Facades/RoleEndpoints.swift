import SXKAPI
import SXKSession

/// The endpoints a role reads (the app's orders and statistics pages): its order list, statistics summary
/// and daily rows, with the scope id they send under the scope parameter each endpoint declares.
public enum RoleEndpoints: Sendable, Equatable {
    case photographer
    case scenicAdmin(scenicId: Int)
    case storeAdmin(storeId: Int)

    /// The endpoints of the session's role (or `requested`), refused when the account does not hold
    /// that role or the scope it needs is not selected. `feature` names the asker in the refusal.
    static func resolve(_ requested: String?, contexts: SessionContexts, feature: String) throws(FeatureError) -> (role: String, endpoints: RoleEndpoints) {
        let role = try RoleScope.resolve(requested, permission: contexts.permission.current)
        let a = contexts.account.current
        return (role, try of(role, scenicId: a.scenicId, storeId: a.storeId, feature: feature))
    }

    /// The endpoints of `role` in a scope: a scenic admin's needs a valid scenic, a store admin's a
    /// store (a stored 0 is none, `AppModel.currentStore`); the one rule for the session and for
    /// `compare`'s identities. `typed`: the id is one the user gave (`compare --as store:0`), sent as given.
    public static func of(_ role: String, scenicId: Int?, storeId: Int?, typed: Bool = false, feature: String) throws(FeatureError) -> RoleEndpoints {
        switch role {
        case RoleCode.photographer:
            return .photographer
        case RoleCode.scenicAdmin:
            guard let id = typed ? scenicId : AppModel.validScenic(scenicId) else { throw .noScenicSelected }
            return .scenicAdmin(scenicId: id)
        case RoleCode.storeAdmin:
            guard let id = typed ? storeId : AppModel.currentStore(storeId) else { throw .noStoreSelected }
            return .storeAdmin(storeId: id)
        default:
            throw .unsupportedRole(role, feature: feature)
        }
    }

    public var roleCode: String {
        switch self {
        case .photographer: return RoleCode.photographer
        case .scenicAdmin: return RoleCode.scenicAdmin
        case .storeAdmin: return RoleCode.storeAdmin
        }
    }

    public var orders: TypedEndpoint<Page<Order>> {
        switch self {
        case .photographer: return Endpoint.photographerOrders
        case .scenicAdmin: return Endpoint.scenicAdminOrders
        case .storeAdmin: return Endpoint.storeOrders
        }
    }

    public var summary: TypedEndpoint<Summary> {
        switch self {
        case .photographer: return Endpoint.photographerSummary
        case .scenicAdmin: return Endpoint.scenicAdminSummary
        case .storeAdmin: return Endpoint.storeSummary
        }
    }

    public var daily: TypedEndpoint<Page<Daily>> {
        switch self {
        case .photographer: return Endpoint.photographerDaily
        case .scenicAdmin: return Endpoint.scenicAdminDaily
        case .storeAdmin: return Endpoint.storeDaily
        }
    }

    /// The scenic area or store the role's endpoints are asked for (nil: the photographer's own).
    public var scopeId: Int? {
        switch self {
        case .photographer: return nil
        case .scenicAdmin(let id), .storeAdmin(let id): return id
        }
    }

    /// Store lists are deposit orders (extra columns).
    public var isDeposit: Bool { if case .storeAdmin = self { return true } else { return false } }

    /// `arguments` with the scope id added under `endpoint`'s scope parameter.
    public func arguments<Value>(for endpoint: TypedEndpoint<Value>, _ arguments: Endpoint.Arguments) -> Endpoint.Arguments {
        var all = arguments
        if let scopeId, let parameter = endpoint.endpoint.scopeParameter { all[parameter] = scopeId }
        return all
    }
}
