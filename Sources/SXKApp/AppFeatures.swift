import SXKAPI
import SXKFeatures

/// The feature facades of one `AppServices` (the app's `AppFeatureServices`): each gets the API
/// group and the contexts it needs, nothing global.
struct AppFeatures: Sendable {
    let auth: AuthSessionCoordinator
    let bootstrapper: SessionBootstrapper
    let scope: ScopeFeature
    let orders: OrdersFeature
    let statistics: StatisticsFeature
    let profile: ProfileFeature
    let home: HomeFeature

    init(services: AppServices) throws {
        let network = try services.network()
        let guard_ = services.sessionGuard
        auth = AuthSessionCoordinator(account: network.account, commerce: network.commerce, guard: guard_)
        bootstrapper = SessionBootstrapper(loader: auth.loader, guard: guard_)
        scope = ScopeFeature(loader: auth.loader, guard: guard_)
        orders = OrdersFeature(commerce: network.commerce, guard: guard_)
        statistics = StatisticsFeature(operation: network.operation, guard: guard_, clock: services.clock)
        profile = ProfileFeature(account: network.account, guard: guard_)
        home = HomeFeature(
            loader: auth.loader, operation: network.operation, guard: guard_, catalog: services.menuCatalog,
            clock: services.clock)
    }
}
