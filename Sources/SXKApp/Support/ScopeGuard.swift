import FoundationEssentials
import SXKFeatures
import SXKShell
import SXKCore

/// The scope guard: list rows of another scenic area or store than the one asked for
/// are counted and reported once, on stderr, after the command's output.
extension AppCommands {
    func roleScope(_ endpoint: RoleEndpoints) -> ScopeExpectation? {
        ScopeGuard.expectation(for: endpoint, contexts: services.contexts)
    }
}

/// Rows outside the expected scope, counted across pages.
final class OutsideCounter: @unchecked Sendable {
    private let lock = Lock()
    private var count = 0
    func add(_ n: Int) { lock.withLock { count += n } }
    var value: Int { lock.withLock { count } }
}
