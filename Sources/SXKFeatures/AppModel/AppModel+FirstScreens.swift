import FoundationEssentials
import SXKAPI
import SXKSession

/// One request a first screen makes: the endpoint, its arguments (scope included) and the label its
/// timing line shows.
public struct PlannedRequest<Value: Sendable>: Sendable {
    public var endpoint: TypedEndpoint<Value>
    public var arguments: Endpoint.Arguments
    public var label: String
}

/// The statistics tab's first screen: its plan and the two requests it makes.
public struct StatsFirstScreen: Sendable {
    public var plan: LifecyclePlan
    public var summary: PlannedRequest<Summary>
    public var daily: PlannedRequest<Page<Daily>>
}

/// The orders tab's first screen: its plan and its request.
public struct OrdersFirstScreen: Sendable {
    public var plan: LifecyclePlan
    public var orders: PlannedRequest<Page<Order>>
}

extension AppModel {
    /// `StatisticsViewModel.initStatistics` (seed 000 §5.2): the role's summary, then the daily list of the
    /// range (today by default), page 1; nothing is stored. sxk asks for the two together, neither
    /// depending on the other (inferred: docs/app-behaviour.md#stats).
    public static func statsFirstScreen(_ endpoints: RoleEndpoints, range: DateRange, pageSize: Int) -> StatsFirstScreen {
        let summary = statsSummary(endpoints, range: range)
        let daily = statsDailyPage(endpoints, range: range, page: 1, pageSize: pageSize)
        var plan = LifecyclePlan(name: "StatisticsViewModel.initStatistics(api:)", rule: Rule.statsFirstScreen,
                                 reads: [StoreKey.roleCode, endpoints.scopeId == nil ? StoreKey.userId : scopeKey(endpoints)],
                                 calls: [PlannedCall("GET", summary.endpoint.endpoint.path, group: 1, rule: Rule.statsFirstScreen),
                                         PlannedCall("GET", daily.label, group: 1, rule: Rule.statsTogether)])
        plan.then = [Rule.statsTogether]
        return StatsFirstScreen(plan: plan, summary: summary, daily: daily)
    }

    /// The role's statistics summary of `range`.
    static func statsSummary(_ endpoints: RoleEndpoints, range: DateRange) -> PlannedRequest<Summary> {
        PlannedRequest(endpoint: endpoints.summary,
                       arguments: endpoints.arguments(for: endpoints.summary, [.startDate: range.from, .endDate: range.to]),
                       label: endpoints.summary.endpoint.path)
    }

    /// One daily page of `range`: page 1 is the first screen's; `--all` asks for the next ones.
    static func statsDailyPage(_ endpoints: RoleEndpoints, range: DateRange, page: Int, pageSize: Int) -> PlannedRequest<Page<Daily>> {
        PlannedRequest(endpoint: endpoints.daily,
                       arguments: endpoints.arguments(for: endpoints.daily, [.startDate: range.from, .endDate: range.to, .page: page, .pageSize: pageSize]),
                       label: endpoints.daily.endpoint.path + "?page=\(page)")
    }

    /// `OrdersViewController.initializeList` (seed 000 §5.1): the role's order list, page 1; nothing is
    /// stored. Later pages and filters are the list's own paging (`ordersPage`).
    public static func ordersFirstScreen(_ endpoints: RoleEndpoints, pageSize: Int, filter: OrderFilter = OrderFilter()) -> OrdersFirstScreen {
        let orders = ordersPage(endpoints, page: 1, pageSize: pageSize, filter: filter)
        let plan = LifecyclePlan(name: "OrdersViewController.initializeList()", rule: Rule.ordersFirstScreen,
                                 reads: [StoreKey.roleCode, endpoints.scopeId == nil ? StoreKey.userId : scopeKey(endpoints)],
                                 calls: [PlannedCall("GET", orders.label, group: 1, rule: Rule.ordersFirstScreen)])
        return OrdersFirstScreen(plan: plan, orders: orders)
    }

    /// The request of one page (1-based) of the role's orders: page 1 is the first screen's, a later one
    /// the list's paging (`ordersPage`).
    public static func ordersRequest(_ endpoints: RoleEndpoints, page: Int, pageSize: Int, filter: OrderFilter) -> PlannedRequest<Page<Order>> {
        page == 1 ? ordersFirstScreen(endpoints, pageSize: pageSize, filter: filter).orders
            : ordersPage(endpoints, page: page, pageSize: pageSize, filter: filter)
    }

    /// One page of the role's orders with `filter`.
    static func ordersPage(_ endpoints: RoleEndpoints, page: Int, pageSize: Int, filter: OrderFilter) -> PlannedRequest<Page<Order>> {
        PlannedRequest(endpoint: endpoints.orders,
                       arguments: endpoints.arguments(for: endpoints.orders, [.page: page, .pageSize: pageSize, .status: filter.status, .keyword: filter.keyword]),
                       label: endpoints.orders.endpoint.path + "?page=\(page)")
    }

    private static func scopeKey(_ endpoints: RoleEndpoints) -> String {
        endpoints.isDeposit ? StoreKey.currentStoreId : StoreKey.currentScenicId
    }
}
