import Foundation
import SXKFeatures
import SXKShell

/// The scope guard: list rows of another scenic area or store than the one asked for
/// are counted and reported once, on stderr, after the command's output.
extension AppCommands {
    func roleScope(_ endpoint: RoleEndpoints) -> ScopeExpectation? {
        ScopeGuard.expectation(for: endpoint, contexts: services.contexts)
    }
}

/// Rows outside the expected scope, counted across pages.
final class OutsideCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.withLock { count += n } }
    var value: Int { lock.withLock { count } }
}
