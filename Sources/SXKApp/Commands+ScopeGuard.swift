import SXKAPI
import SXKFeatures
import SXKShell

/// The scope guard (issue 9 §3): list rows of another scenic area or store than the one asked for
/// are counted and reported once, on stderr, after the command's output.
extension AppCommands {
    func roleScope(_ endpoint: RoleEndpoints) -> ScopeExpectation? {
        ScopeGuard.expectation(for: endpoint, contexts: services.contexts)
    }
}
