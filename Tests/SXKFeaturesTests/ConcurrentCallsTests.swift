import Foundation
import XCTest
import SXKAPI
import SXKCore
import SXKSandbox
@testable import SXKFeatures

/// Calls that do not depend on each other are in flight together. Proved by what the sandbox saw
/// (each request's arrival and answer), not by how long anything took: with the sandbox holding
/// every request for a while, calls sent one after another can never overlap. The hold is long
/// (a quarter second or more) so a loaded machine starting a task late still overlaps.
final class ConcurrentCallsTests: XCTestCase {
    private static let config = "/api/app/config"
    private static let login = "/api/app/v9/login"
    private static let userInfo = "/api/yf-handset-app/userinfo"
    private static let realName = "/api/yf-handset-app/photog/real-name/info"
    private static let bankCard = "/api/yf-handset-app/photog/wallet/bank-card/info"
    private static let orders = "/api/yf-handset-app/photog/order/listv2"

    private static let summary = "/api/yf-handset-app/photog/analyse/user"
    private static let daily = "/api/yf-handset-app/photog/analyse/user/daily"

    private static let rolePermission = "/api/yf-handset-app/role-permission"
    private static let storeList = "/api/app/store/all"

    private func record(_ h: Harness, _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> SandboxRequestRecord {
        try XCTUnwrap(h.requests(path).last, "no \(path) request", file: file, line: line)
    }

    /// A photographer logged in (answers held `latencyMs`), its stored token, and an empty request log.
    private func photographer(latencyMs: Int) async throws -> (Harness, String) {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: latencyMs))
        _ = try await h.login("13800000001")
        let token = try XCTUnwrap(try h.contexts.store.token())
        h.sandbox.resetRequestLog()
        return (h, token)
    }

    /// Waits (up to 5 s) until `condition` holds, then lets the task settle into its wait for what is
    /// still held (0.1 s); fails with `what` and the requests seen when it never holds.
    private func waitUntilHeld(_ h: Harness, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                               _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(5)
        while !condition() && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        XCTAssertTrue(condition(), "\(what): \(h.requests().map(\.path))", file: file, line: line)
        try await Task.sleep(nanoseconds: 100_000_000)
    }

    /// Cancels `task` (Ctrl-C) and checks that it ends at once, cancelled, without waiting for answers.
    private func assertCancelsAtOnce<T>(_ task: Task<T, any Error>, _ why: String, file: StaticString = #filePath, line: UInt = #line) async {
        let cancelled = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled call returned", file: file, line: line)
        } catch let error as FeatureError {
            XCTAssertTrue(error == .cancelled || error.apiError?.kind == .cancelled, "\(error)", file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1.5, why, file: file, line: line)
    }

    /// Nothing reset: still logged in, with `token` stored.
    private func assertSessionStands(_ h: Harness, token: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(h.sessionGuard.resetCount, 0, file: file, line: line)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn, file: file, line: line)
        XCTAssertEqual(try h.contexts.store.token(), token, file: file, line: line)
    }

    /// `body` fails with an error whose text starts with `prefix`, a rejected token or not as `expired` says.
    private func assertFails<T>(_ prefix: String, expired: Bool, file: StaticString = #filePath, line: UInt = #line,
                                _ body: () async throws -> T) async {
        do {
            _ = try await body()
            XCTFail("expected a failure of \(prefix)", file: file, line: line)
        } catch {
            XCTAssertTrue("\(error)".hasPrefix(prefix), "the failure reported is not \(prefix)'s: \(error)", file: file, line: line)
            XCTAssertEqual((error as? FeatureError)?.isSessionExpired ?? false, expired, "\(error)", file: file, line: line)
        }
    }

    /// One reset for the rejected token, and nothing stored.
    private func assertResetOnce(_ h: Harness, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(h.sessionGuard.resetCount, 1, file: file, line: line)
        XCTAssertEqual(h.expiries.all.count, 1, file: file, line: line)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut, file: file, line: line)
        XCTAssertNil(try h.contexts.store.token(), file: file, line: line)
    }

    // MARK: login

    func testLoginPageSendsTheConfigBesideTheLogin() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        let step = try await h.auth.loginFromLoginPage(phone: "13800000001", password: Harness.password, privacyAccepted: true)
        guard case .completed(let outcome) = step else { return XCTFail("expected one account") }
        XCTAssertEqual(outcome.account.userId, 1001)
        let config = try record(h, Self.config), login = try record(h, Self.login)
        XCTAssertTrue(config.overlaps(login), "config and v9/login were not in flight together")
        // What it answered is kept, as when it went first.
        XCTAssertNotNil(h.auth.enableRegister)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
    }

    func testLoginFailureWithTheConfigInFlightIsTheLoginsAndTheConfigStillCounts() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 500))
        do {
            _ = try await h.auth.loginFromLoginPage(phone: "13800000001", password: "wrong-password", privacyAccepted: true)
            XCTFail("a wrong password logged in")
        } catch {
            XCTAssertTrue("\(error)".contains("login"), "\(error)")
        }
        let config = try record(h, Self.config), login = try record(h, Self.login)
        XCTAssertTrue(config.overlaps(login), "config and v9/login were not in flight together")
        // The config was waited for, not dropped: its answer is there and nothing is still in flight.
        XCTAssertNotNil(config.answered)
        XCTAssertNotNil(h.auth.enableRegister)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
    }

    /// One after another, the config went first: a Ctrl-C while it is still out, with v9/login already
    /// answered, ends the login there, before set-user, with nothing written.
    func testCancellingALoginWhileTheConfigIsOutEndsItBeforeSetUser() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 0))
        h.sandbox.injectFault(path: Self.config, kind: .hang)
        let auth = h.auth!
        let task = Task { try await auth.loginFromLoginPage(phone: "13800000001", password: Harness.password, privacyAccepted: true) }
        try await waitUntilHeld(h, "v9/login was not answered beside the held config") {
            h.requests(Self.login).first?.answered != nil && !h.requests(Self.config).isEmpty
        }
        await assertCancelsAtOnce(task, "the login waited for the held config")
        XCTAssertEqual(h.requests("/api/app/v9/set-user").count, 0, "set-user was sent after the Ctrl-C")
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
        XCTAssertNil(try h.contexts.store.token())
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.storage.appStore.defaults.path), "the interrupted login wrote the defaults")
    }

    func testAFailingConfigBesideTheLoginIsIgnored() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 100))
        h.sandbox.injectFault(path: Self.config, kind: .status500)
        let step = try await h.auth.loginFromLoginPage(phone: "13800000001", password: Harness.password, privacyAccepted: true)
        guard case .completed = step else { return XCTFail("expected one account") }
        XCTAssertNil(h.auth.enableRegister)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
    }

    func testTheContextPairCarriesTheNewTokenAndAFailedTokenWriteEndsTheLogin() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 60))
        _ = try await h.login("13800000001")
        // Sent while the token was being written, so it carries the set-user token itself.
        let token = try XCTUnwrap(h.contexts.session.token)
        XCTAssertEqual(try record(h, Self.userInfo).header("token"), token)
        XCTAssertEqual(try record(h, "/api/yf-handset-app/role-permission").header("token"), token)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)

        // A token that cannot be written ends the login as a storage error, with nothing logged in.
        try h.auth.logout()
        let tokenFile = h.stateDir + "/state/sandbox/token"
        try? FileManager.default.removeItem(atPath: tokenFile)
        try FileManager.default.createDirectory(atPath: tokenFile + "/blocked", withIntermediateDirectories: true)
        do {
            _ = try await h.login("13800000001")
            XCTFail("a login whose token cannot be written succeeded")
        } catch let error as FeatureError {
            guard case .storageFailed = error else { return XCTFail("expected a storage error, got \(error)") }
        }
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
        XCTAssertNil(h.contexts.session.token)
    }

    // MARK: profile

    /// userinfo's answer is padded to 10 MiB, so it ends last: the calls are still listed userinfo first.
    func testProfileSendsRealNameAndBankCardBesideUserInfo() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        _ = try await h.login("13800000001")
        h.sandbox.resetRequestLog()
        h.sandbox.injectFault(path: Self.userInfo, kind: .huge)
        let report = try await h.profile.reload()
        XCTAssertEqual(report.calls.map(\.path), [Self.userInfo, Self.realName, Self.bankCard])
        XCTAssertEqual(report.calls.map(\.endMs).max(), report.calls.first?.endMs, "userinfo did not end last: \(report.calls)")
        XCTAssertNotNil(try report.realName?.get().value)
        XCTAssertNotNil(try report.bankCard?.get().value)
        let info = try record(h, Self.userInfo), real = try record(h, Self.realName), bank = try record(h, Self.bankCard)
        XCTAssertTrue(info.overlaps(real) && info.overlaps(bank) && real.overlaps(bank),
                      "userinfo, real-name and bank-card were not all in flight together")
        XCTAssertEqual(h.requests().count, 3)
        // userinfo is still written back.
        XCTAssertEqual(h.contexts.store.userName, report.userInfo.value.userName)
    }

    func testProfileReportsTheUserInfoFailureFirstWhenEveryCallFails() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 80))
        _ = try await h.login("13800000001")
        let before = h.contexts.store.userName
        h.sandbox.injectFault(path: Self.userInfo, kind: .status500)
        h.sandbox.injectFault(path: Self.bankCard, kind: .status500)
        h.sandbox.injectFault(path: Self.realName, kind: .status500)
        do {
            _ = try await h.profile.reload()
            XCTFail("a failed userinfo gave a profile")
        } catch {
            XCTAssertTrue("\(error)".hasPrefix("userinfo"), "the first failure is userinfo's, got: \(error)")
        }
        XCTAssertEqual(h.contexts.store.userName, before)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
    }

    func testProfileExpiryWithThreeCallsInFlightResetsTheSessionOnce() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 400))
        _ = try await h.login("13800000001")
        h.sandbox.resetRequestLog()
        h.sandbox.expireTokens()
        do {
            _ = try await h.profile.reload()
            XCTFail("expected the session to expire")
        } catch {
            XCTAssertTrue(error.isSessionExpired, "\(error)")
        }
        // All three met the expired token while in flight together; one reset, one notice.
        let info = try record(h, Self.userInfo), real = try record(h, Self.realName)
        XCTAssertTrue(info.overlaps(real))
        try assertResetOnce(h)
    }

    // MARK: the context load's store list

    /// A store admin's login knows from set-user's answer that the store step will ask: the list goes
    /// out beside the userinfo ∥ role-permission pair, and the store is matched as before.
    func testAStoreAdminsLoginSendsTheStoreListBesideTheContextPair() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        let outcome = try await h.login("13800000003")
        let info = try record(h, Self.userInfo), roles = try record(h, Self.rolePermission), stores = try record(h, Self.storeList)
        XCTAssertTrue(stores.overlaps(info) && stores.overlaps(roles), "the store list waited for the pair")
        let report = try XCTUnwrap(outcome.load)
        XCTAssertEqual(report.store?.matched?.storeId, h.contexts.account.current.storeId)
        XCTAssertNotNil(report.store?.matched)
        XCTAssertFalse(h.contexts.account.current.stores.isEmpty)
        XCTAssertEqual(h.contexts.store.currentStoreId, report.store?.matched?.storeId)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
    }

    /// A store admin logged in, then restored from its snapshot in a new process (answers held 0.3 s),
    /// waiting for the validation at the first server command; the request log starts empty.
    private func restoredStoreAdmin() async throws -> Harness {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        _ = try await h.login("13800000003")
        try h.open()
        _ = try h.bootstrapper.restore()
        h.sandbox.resetRequestLog()
        return h
    }

    /// A restored store admin's validation at the first server command: the snapshot says the store step
    /// will ask, so the list goes with the pair; the saved store is matched again.
    func testValidatingARestoredStoreAdminSendsTheStoreListBesideThePair() async throws {
        let h = try await restoredStoreAdmin()
        guard case .loggedIn(let report) = await h.bootstrapper.validate() else { return XCTFail("expected loggedIn") }
        let info = try record(h, Self.userInfo), stores = try record(h, Self.storeList)
        XCTAssertTrue(stores.overlaps(info), "the store list waited for the pair")
        XCTAssertEqual(report.store?.matched?.storeId, 101)
        XCTAssertEqual(h.contexts.account.current.storeId, 101)
    }

    /// A restored store admin whose token the server no longer accepts: the pair and the store list
    /// meet it together, and the session is reset once, with one notice.
    func testValidationExpiryWithThePairAndTheStoreListInFlightResetsOnce() async throws {
        let h = try await restoredStoreAdmin()
        h.sandbox.expireTokens()
        guard case .loggedOut = await h.bootstrapper.validate() else { return XCTFail("expected loggedOut") }
        XCTAssertTrue(try record(h, Self.storeList).overlaps(try record(h, Self.userInfo)))
        try assertResetOnce(h)
    }

    /// Ctrl-C while a store admin's login has the pair and the store list in flight (both sent as tasks
    /// of their own beside the token's write): the load ends at once and takes them all down. The login
    /// itself stands, as with any failed load after set-user (the token is stored): offline, with the
    /// load's warning, and no store list applied.
    func testCancellingALoginWithThePairAndTheStoreListInFlightEndsThemAll() async throws {
        // The pair and the store list are never answered: a login that waited for them would not return.
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 0))
        for path in [Self.userInfo, Self.rolePermission, Self.storeList] { h.sandbox.injectFault(path: path, kind: .hang) }
        let auth = h.auth!
        let task = Task { try await auth.login(phone: "13800000003", password: Harness.password, privacyAccepted: true) }
        let deadline = Date().addingTimeInterval(8)
        func inFlight() -> Bool { [Self.userInfo, Self.rolePermission, Self.storeList].allSatisfy { !h.requests($0).isEmpty } }
        while !inFlight() && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        XCTAssertTrue(inFlight(), "the pair and the store list were not all sent: \(h.requests().map(\.path))")
        // The token, set-user's snapshot and then the account list are written while the pair is out.
        let accountList = h.contexts.store.accountList.path
        while !FileManager.default.fileExists(atPath: accountList) && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: accountList), "the account list was not written beside the pair")
        let token = try XCTUnwrap(try h.contexts.store.token())
        let defaults = h.storage.appStore.defaults.path
        let before = try XCTUnwrap(FileManager.default.contents(atPath: defaults))
        let cancelled = Date()
        task.cancel()
        guard case .completed(let outcome) = try await task.value else { return XCTFail("expected the login to stand") }
        // Returned without waiting for the sandbox's answers, none of which had arrived.
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1.5)
        XCTAssertNil(outcome.load)
        XCTAssertTrue(outcome.interrupted)
        XCTAssertTrue(outcome.warnings.contains { $0.hasPrefix("interrupted: logged in, but the account context was not loaded") }, "\(outcome.warnings)")
        // It stands as what was written before the Ctrl-C: logged in, not validated, and nothing written after it.
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
        XCTAssertTrue(h.contexts.session.isOffline)
        XCTAssertEqual(try h.contexts.store.token(), token)
        XCTAssertEqual(FileManager.default.contents(atPath: defaults), before, "the snapshot was saved after the Ctrl-C")
        XCTAssertTrue(h.contexts.account.current.stores.isEmpty, "a cancelled store list was applied")
    }

    /// The pair and the store list sent beside it all fail: the pair's failure is the one reported.
    func testWhenThePairAndTheStoreListBothFailThePairsFailureIsReported() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 80))
        h.sandbox.injectFault(path: Self.userInfo, kind: .status500)
        h.sandbox.injectFault(path: Self.storeList, kind: .status500)
        let outcome = try await h.login("13800000003")
        XCTAssertNil(outcome.load)
        let warning = try XCTUnwrap(outcome.warnings.first { $0.contains("loading the account context failed") }, "\(outcome.warnings)")
        XCTAssertTrue(warning.contains("userinfo"), warning)
        XCTAssertFalse(warning.contains("store/all"), warning)
    }

    // MARK: home

    func testHomeSendsTheStoreListBesideTheRolePermissionListAndKeepsTheAppsOrder() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        _ = try await h.login("13800000003")
        h.sandbox.resetRequestLog()
        let trace = try await h.home.initializeReplay()
        let roles = try record(h, Self.rolePermission), stores = try record(h, Self.storeList)
        XCTAssertTrue(roles.overlaps(stores), "role-permission and the store list were not in flight together")
        XCTAssertEqual(trace.calls.map(\.path), [Self.rolePermission, Self.storeList])
        XCTAssertEqual(trace.calls.map(\.order), [1, 2])
        let storeStep = try XCTUnwrap(trace.steps.first { $0.name.hasPrefix("loadStoreListIfNeeded") })
        XCTAssertTrue(storeStep.notes.contains { $0.contains("sent beside the role-permission list") }, "\(storeStep.notes)")
        XCTAssertEqual(storeStep.stores, ["key_in_current_store_id = \(try XCTUnwrap(h.contexts.store.currentStoreId))"])
    }

    /// With no current role the permission load takes the first entry's (storeAdmin here), which the stored
    /// state could not say: the store list is asked for in its turn, after that answer, as the app does.
    func testHomeWithNoCurrentRoleAsksForTheStoreListOnlyOnceThePermissionsAreIn() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        _ = try await h.login("13800000003")
        try h.contexts.store.setRole(code: nil, name: nil)
        h.sandbox.resetRequestLog()
        let trace = try await h.home.initializeReplay()
        let roles = try record(h, Self.rolePermission), stores = try record(h, Self.storeList)
        XCTAssertFalse(roles.overlaps(stores), "the store list went out before the role was known")
        XCTAssertEqual(trace.calls.map(\.path), [Self.rolePermission, Self.storeList])
        let storeStep = try XCTUnwrap(trace.steps.first { $0.name.hasPrefix("loadStoreListIfNeeded") })
        XCTAssertFalse(storeStep.notes.contains { $0.contains("sent beside") }, "\(storeStep.notes)")
    }

    /// A rejected token at the permission load ends the home before its store step: the list sxk sent
    /// beside it is said and unused, nothing is written, and this process's session is reset once
    /// in memory (it does not send that token again).
    func testHomeExpiryWithTheStoreListInFlightSaysSoAndChangesNothing() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        _ = try await h.login("13800000003")
        let before = try XCTUnwrap(FileManager.default.contents(atPath: h.storage.appStore.defaults.path))
        h.sandbox.resetRequestLog()
        h.sandbox.expireTokens()
        let trace = try await h.home.initializeReplay()
        XCTAssertTrue(trace.sessionExpired)
        XCTAssertTrue(try record(h, Self.rolePermission).overlaps(try record(h, Self.storeList)))
        XCTAssertEqual(trace.calls.map(\.path), [Self.rolePermission], "the app never asks for the store list")
        XCTAssertTrue(trace.steps.last?.notes.contains { $0.contains("that answer is not used") } ?? false, "\(String(describing: trace.steps.last?.notes))")
        XCTAssertEqual(h.sessionGuard.resetCount, 1)
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.appStore.defaults.path), before)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
    }

    /// The home's rejected token ends it at the permission step: the store list sent beside it is
    /// cancelled, not waited for (made one after another, it would never have been asked).
    func testHomeExpiryDoesNotWaitForTheStoreList() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        h.sandbox.resetRequestLog()
        h.sandbox.expireTokens()
        h.sandbox.injectFault(path: Self.storeList, kind: .hang)
        let started = Date()
        let trace = try await h.home.initializeReplay()
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "the replay waited for the held store list")
        XCTAssertTrue(trace.sessionExpired)
        XCTAssertEqual(trace.calls.map(\.path), [Self.rolePermission])
    }

    private func contextDiff(_ h: Harness) -> ContextDiffFeature {
        ContextDiffFeature(account: h.network.account, commerce: h.network.commerce, operation: h.network.operation,
                           guard: h.sessionGuard, catalog: Harness.catalog, clock: SystemClock())
    }

    /// `context diff`'s first failure in request order ends it at once: userinfo failing, the
    /// role-permission list and the store list still held are cancelled, not waited for.
    func testContextDiffEndsAtTheFirstFailureWithoutWaitingForTheRest() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let before = try XCTUnwrap(FileManager.default.contents(atPath: h.storage.appStore.defaults.path))
        h.sandbox.resetRequestLog()
        h.sandbox.injectFault(path: Self.userInfo, kind: .status500)
        h.sandbox.injectFault(path: Self.rolePermission, kind: .hang)
        h.sandbox.injectFault(path: Self.storeList, kind: .hang)
        let started = Date()
        await assertFails("GET \(Self.userInfo)", expired: false) { try await self.contextDiff(h).diff() }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "the diff waited for the held calls")
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.appStore.defaults.path), before)
    }

    /// A rejected token at the role-permission list ends the next start's home before its store
    /// step: the store list, held, neither delays the diff nor fails it; nothing is saved, and this
    /// process's session is reset once, in memory.
    func testContextDiffWithARejectedTokenIgnoresTheStoreList() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let token = try XCTUnwrap(try h.contexts.store.token())
        let before = try XCTUnwrap(FileManager.default.contents(atPath: h.storage.appStore.defaults.path))
        h.sandbox.resetRequestLog()
        h.sandbox.expireTokens()
        h.sandbox.injectFault(path: Self.storeList, kind: .hang)
        let started = Date()
        let diff = try await contextDiff(h).diff()
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "the diff waited for the held store list")
        XCTAssertTrue(diff.home.sessionExpired)
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.appStore.defaults.path), before)
        XCTAssertEqual(try h.contexts.store.token(), token)
        XCTAssertEqual(h.sessionGuard.resetCount, 1)
    }

    /// Ctrl-C with the role-permission list held and the store list sent beside it already answered
    /// with a rejected token: the replay ends cancelled; nothing is written, even with apply, and the
    /// session stands (made one after another, the store list would not have been asked).
    func testCancellingTheHomeReplayWritesNothing() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 0))
        _ = try await h.login("13800000003")
        let token = try XCTUnwrap(try h.contexts.store.token())
        let before = try XCTUnwrap(FileManager.default.contents(atPath: h.storage.appStore.defaults.path))
        h.sandbox.resetRequestLog()
        h.sandbox.injectFault(path: Self.rolePermission, kind: .hang)
        h.sandbox.injectFault(path: Self.storeList, kind: .status401)
        let home = h.home!
        let task = Task { try await home.initializeReplay(apply: true) }
        try await waitUntilHeld(h, "the store list was not answered beside the held role-permission list") {
            h.requests(Self.storeList).first?.answered != nil && !h.requests(Self.rolePermission).isEmpty
        }
        await assertCancelsAtOnce(task, "the replay waited for the held call")
        try assertSessionStands(h, token: token)
        XCTAssertEqual(FileManager.default.contents(atPath: h.storage.appStore.defaults.path), before, "the interrupted replay wrote")
    }

    func testCancellingTheProfileWithCallsInFlightEndsThemAll() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 0))
        _ = try await h.login("13800000001")
        let before = h.contexts.store.userName
        h.sandbox.resetRequestLog()
        // Never answered: a reload that waited for them would not return at all.
        for path in [Self.userInfo, Self.realName, Self.bankCard] { h.sandbox.injectFault(path: path, kind: .hang) }
        let profile = h.profile!
        let task = Task { try await profile.reload() }
        let deadline = Date().addingTimeInterval(5)
        while h.requests().count < 3 && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        XCTAssertEqual(h.requests().count, 3, "the three calls were not all sent")
        // Returned without waiting for the sandbox's answers, none of which arrived.
        await assertCancelsAtOnce(task, "the reload waited for the sandbox's answers")
        XCTAssertEqual(h.contexts.store.userName, before)
        XCTAssertEqual(h.sessionGuard.resetCount, 0)
    }

    /// userinfo fails: real-name and bank-card, sent beside it, would never have gone out after it,
    /// so their rejected token is dropped with them, even when it came first: userinfo's error, and
    /// the session stands. (userinfo is held until both have been answered, then fails as its server
    /// goes away.)
    func testAProfileSideCallsRejectedTokenBehindAFailedUserInfoIsDropped() async throws {
        let (h, token) = try await photographer(latencyMs: 0)
        h.sandbox.injectFault(path: Self.userInfo, kind: .hang)
        h.sandbox.injectFault(path: Self.realName, kind: .status401)
        h.sandbox.injectFault(path: Self.bankCard, kind: .status401)
        let profile = h.profile!
        let task = Task { try await profile.reload() }
        let deadline = Date().addingTimeInterval(5)
        func answered() -> Bool {
            [Self.realName, Self.bankCard].allSatisfy { h.requests($0).first?.answered != nil } && !h.requests(Self.userInfo).isEmpty
        }
        while !answered() && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        XCTAssertTrue(answered(), "the side calls were not answered beside userinfo: \(h.requests().map(\.path))")
        try await Task.sleep(nanoseconds: 150_000_000)
        h.sandbox.stop()
        await assertFails("userinfo", expired: false) { try await task.value }
        try assertSessionStands(h, token: token)
    }

    /// After userinfo has answered, a side call's rejected token ends the session once, as when it
    /// went after userinfo.
    func testAProfileSideCallsRejectedTokenAfterUserInfoResetsOnce() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 80))
        _ = try await h.login("13800000001")
        h.sandbox.injectFault(path: Self.bankCard, kind: .status401)
        await assertFails("bank-card info", expired: true) { try await h.profile.reload() }
        try assertResetOnce(h)
    }

    /// Ctrl-C once userinfo has answered, with real-name and bank-card still out (the sandbox never
    /// answers them): the reload ends at once, cancelled, and neither call is left running.
    func testCancellingTheProfileAfterUserInfoAnsweredEndsTheSideCalls() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 0))
        _ = try await h.login("13800000001")
        h.sandbox.resetRequestLog()
        h.sandbox.injectFault(path: Self.realName, kind: .hang)
        h.sandbox.injectFault(path: Self.bankCard, kind: .hang)
        let profile = h.profile!
        let task = Task { try await profile.reload() }
        // Once userinfo's answer is in, the reload waits for the two calls that never answer.
        try await waitUntilHeld(h, "userinfo did not answer with the side calls out") {
            h.requests(Self.userInfo).first?.answered != nil && !h.requests(Self.realName).isEmpty && !h.requests(Self.bankCard).isEmpty
        }
        await assertCancelsAtOnce(task, "the side calls were left running")
        XCTAssertEqual(h.sessionGuard.resetCount, 0)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
    }

    /// The calls a profile reports are in request order, whichever answered first.
    func testCallsSentTogetherAreListedInRequestOrder() {
        let sink = CallSink()
        for (path, end) in [(Self.bankCard, 3.0), (Self.userInfo, 4.0), (Self.realName, 5.0)] {
            sink.append(CallRecord(method: "GET", path: path, startMs: 0, endMs: end, ok: true))
        }
        XCTAssertEqual(sink.records(inOrderOf: [Self.userInfo, Self.realName, Self.bankCard]).map(\.path),
                       [Self.userInfo, Self.realName, Self.bankCard])
        // Pages of one list keep the order they ended in; the query is not part of the path; a path
        // not listed comes last.
        let pages = CallSink()
        for (path, end) in [(Self.daily + "?page=1", 1.0), ("/api/other", 2.0), (Self.summary, 3.0), (Self.daily + "?page=2", 4.0)] {
            pages.append(CallRecord(method: "GET", path: path, startMs: 0, endMs: end, ok: true))
        }
        XCTAssertEqual(pages.records(inOrderOf: [Self.summary, Self.daily]).map(\.path),
                       [Self.summary, Self.daily + "?page=1", Self.daily + "?page=2", "/api/other"])
    }

    // MARK: stats

    /// The summary's answer is padded to 10 MiB, so it ends after the daily page: the calls are still
    /// listed summary first.
    func testStatsSendsTheSummaryBesideTheFirstDailyPage() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 300))
        _ = try await h.login("13800000001")
        h.sandbox.resetRequestLog()
        h.sandbox.injectFault(path: Self.summary, kind: .huge)
        let report = try await h.stats.load(range: try h.stats.range(period: .week))
        XCTAssertGreaterThan(report.calls.first { $0.path == Self.summary }?.endMs ?? 0,
                             report.calls.first { $0.path.hasPrefix(Self.daily) }?.endMs ?? .infinity, "the summary did not end last")
        XCTAssertTrue(try record(h, Self.summary).overlaps(try record(h, Self.daily)), "the summary and the daily page were not in flight together")
        XCTAssertEqual(report.calls.map { $0.path.components(separatedBy: "?")[0] }, [Self.summary, Self.daily])
    }

    /// The summary fails: the daily page, which would never have gone out after it, is dropped with its
    /// rejected token: the summary's error, and the session stands.
    func testAStatsDailyPagesRejectedTokenBehindAFailedSummaryIsDropped() async throws {
        let (h, token) = try await photographer(latencyMs: 80)
        h.sandbox.injectFault(path: Self.summary, kind: .status500)
        h.sandbox.injectFault(path: Self.daily, kind: .status401)
        await assertFails("stats summary", expired: false) { try await h.stats.load(range: try h.stats.range(period: .week)) }
        XCTAssertEqual(h.requests().count, 2, "\(h.requests().map(\.path))")
        try assertSessionStands(h, token: token)
    }

    /// The summary answers and the daily page meets a rejected token: one reset, the daily's expiry.
    func testAStatsDailyPagesRejectedTokenAfterTheSummaryResetsOnce() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 20, latencyMs: 80))
        _ = try await h.login("13800000001")
        h.sandbox.injectFault(path: Self.daily, kind: .status401)
        await assertFails("stats daily", expired: true) { try await h.stats.load(range: try h.stats.range(period: .week)) }
        try assertResetOnce(h)
    }

    // MARK: orders --all

    func testWalkSendsPageOneAloneThenTheOtherFourTogether() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 600, latencyMs: 250))
        _ = try await h.login("13800000001")
        h.sandbox.resetRequestLog()
        var pages: [Int] = []
        var first: [String] = []
        let outcome = try await h.orders.walkAll(pageSize: 100, limit: 500) { rows, progress in
            pages.append(progress.pages)
            first.append(rows.first?.orderNo ?? "")
            return true
        }
        XCTAssertEqual(outcome.stop, .limit)
        XCTAssertEqual(outcome.progress.rows, 500)
        XCTAssertEqual(pages, [1, 2, 3, 4, 5])
        let log = h.requests(Self.orders)
        // Five pages, never the sixth (the limit's page is the last asked for).
        XCTAssertEqual(log.compactMap { $0.queryValue("page") }.sorted(), ["1", "2", "3", "4", "5"])
        let byPage = Dictionary(uniqueKeysWithValues: log.map { ($0.queryValue("page") ?? "", $0) })
        let one = try XCTUnwrap(byPage["1"])
        for p in 2...5 {
            let page = try XCTUnwrap(byPage["\(p)"])
            XCTAssertFalse(one.overlaps(page), "page \(p) went out before page 1 answered")
            for q in (p + 1)..<6 where q <= 5 {
                XCTAssertTrue(page.overlaps(try XCTUnwrap(byPage["\(q)"])), "pages \(p) and \(q) were not in flight together")
            }
        }
        // Rows in page order: the first order of each page is the one the sandbox put first on that page.
        var expected: [String] = []
        for p in 1...5 {
            let page = try await h.orders.fetchPage(page: p, pageSize: 100)
            expected.append(page.page.list.first?.orderNo ?? "")
        }
        XCTAssertEqual(first, expected)
    }
}
