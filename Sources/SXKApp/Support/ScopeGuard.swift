import SXKAPI
import SXKFeatures
import SXKShell

/// The scope guard (issue 9 §3): list rows of another scenic area or store than the one asked for
/// are counted and reported once, on stderr, after the command's output.
extension AppCommands {
    func orderScope(_ endpoint: OrdersEndpoint) -> ScopeExpectation? {
        ScopeGuard.expectation(for: endpoint, contexts: services.contexts)
    }

    func statsScope(_ endpoint: StatsEndpoint) -> ScopeExpectation? {
        ScopeGuard.expectation(for: endpoint, contexts: services.contexts)
    }

    /// `warning: 3 rows outside the current scope (scenic 1 西湖景区): server-side authorization bug?`
    func warnOutOfScope(_ count: Int, _ expectation: ScopeExpectation?) {
        guard let expectation, let line = expectation.warning(outside: count) else { return }
        io.stdout.flush()  // after the rows it is about, on a terminal too
        io.warning(line)
    }
}
