import Foundation
import SXKTestSupport
import XCTest
import SXKCore
import SXKAPI
import SXKSession
import SXKSandbox
@testable import SXKFeatures

/// One sandbox on an ephemeral loopback port, one temp state dir, and the facades wired as the app would.
final class Harness: @unchecked Sendable {
    static let password = SandboxDemo.password

    let sandbox: SandboxServer
    let baseURL: URL
    let stateDir: String
    let clock: FixedClock?
    let warnings = Lines()
    let expiries = Lines()
    private(set) var storage: ProfileStorage!
    private(set) var contexts: SessionContexts!
    private(set) var network: NetworkBundle!
    private(set) var sessionGuard: SessionGuard!
    private(set) var auth: AuthSessionCoordinator!
    private(set) var bootstrapper: SessionBootstrapper!
    private(set) var scope: ScopeFeature!
    private(set) var orders: OrdersFeature!
    private(set) var home: HomeFeature!
    private(set) var stats: StatisticsFeature!
    private(set) var profile: ProfileFeature!

    /// The catalog the tests use: every sandbox permission as a menu, in the sandbox's order.
    static let catalog = MenuCatalog(SandboxCatalog.permissions.map { MenuEntry(uri: $0.uri, title: $0.name, group: $0.group) })

    /// `spelling` nil: the one the running test class asks for (`BothSpellingsTestCase`).
    init(
        config: SandboxConfig = SandboxConfig(ordersPerRole: 120), clock: FixedClock? = nil, stateDir: String? = nil,
        spelling: SandboxSpelling? = nil
    ) throws {
        var config = config
        config.spelling = spelling ?? SpellingUnderTest.current
        sandbox = SandboxServer(config: config)
        baseURL = try sandbox.start()
        self.clock = clock
        if let stateDir {
            self.stateDir = stateDir
        } else {
            let dir = NSTemporaryDirectory() + "sxk-features-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            self.stateDir = dir
        }
        try open()
    }

    /// (Re)builds storage, contexts and facades over the same state dir: a fresh "process".
    func open() throws {
        let paths = try StatePaths(root: stateDir + "/state", profile: "sandbox", configDir: stateDir + "/config")
        let warnings = self.warnings
        storage = try ProfileStorage(paths: paths, warn: { warnings.append($0) }, clock: clock ?? SystemClock())
        let session = AppSession()
        contexts = SessionContexts(session: session, account: AccountContext(), permission: PermissionContext(), store: storage.appStore)
        let expiries = self.expiries
        network = try NetworkBundle(
            configuration: APIConfiguration(environment: .sandbox(baseURL), timeout: 10),
            transport: CurlTransport(),
            observer: ClosureObserver(onSessionExpired: { expiries.append("\($0.request)") }),
            tokenProvider: { session.token })
        sessionGuard = SessionGuard(contexts: contexts)
        auth = AuthSessionCoordinator(account: network.account, commerce: network.commerce, guard: sessionGuard)
        bootstrapper = SessionBootstrapper(loader: auth.loader, guard: sessionGuard)
        scope = ScopeFeature(loader: auth.loader, guard: sessionGuard)
        orders = OrdersFeature(commerce: network.commerce, guard: sessionGuard)
        let wall: any WallClock = clock ?? SystemClock()
        home = HomeFeature(loader: auth.loader, operation: network.operation, guard: sessionGuard, catalog: Harness.catalog, clock: wall)
        stats = StatisticsFeature(operation: network.operation, guard: sessionGuard, clock: wall)
        profile = ProfileFeature(account: network.account, guard: sessionGuard)
    }

    deinit {
        sandbox.stop()
        try? FileManager.default.removeItem(atPath: stateDir)
    }

    /// Logs in; with several accounts picks `choice`.
    @discardableResult
    func login(_ phone: String, choice: String? = nil) async throws -> LoginOutcome {
        let step = try await auth.login(phone: phone, password: Harness.password, privacyAccepted: true, choice: choice)
        guard case .completed(let outcome) = step else {
            XCTFail("login of \(phone) asked for a choice")
            throw FeatureError.noAccounts
        }
        return outcome
    }

    /// Requests the sandbox logged, by path.
    func requests(_ path: String? = nil) -> [SandboxRequestRecord] {
        sandbox.requestLog().filter { path == nil || $0.path == path }
    }
}

/// A thread-safe list of lines.
final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ line: String) { lock.withLock { items.append(line) } }
    var all: [String] { lock.withLock { items } }
}

/// Asserts that `body` throws a `FeatureError` matching `check`.
func assertThrowsFeature<T>(
    _ body: () async throws -> T, file: StaticString = #filePath, line: UInt = #line, _ check: (FeatureError) -> Bool
) async {
    do {
        _ = try await body()
        XCTFail("expected an error", file: file, line: line)
    } catch let error as FeatureError {
        XCTAssertTrue(check(error), "unexpected error: \(error)", file: file, line: line)
    } catch {
        XCTFail("unexpected error type: \(error)", file: file, line: line)
    }
}
