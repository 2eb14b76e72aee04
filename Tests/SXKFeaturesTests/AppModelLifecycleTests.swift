import Foundation
import SXKCore
import SXKModels
import SXKSession
import SXKSandbox
@testable import SXKFeatures
import SXKTestSupport
import XCTest

/// Each lifecycle step is one function of the app model, and the live session does what it says:
/// after a real login, logout, expiry, restore or first screen against the sandbox, the keys that
/// changed are the ones the function declares, and the calls are the ones it plans.
final class AppModelLifecycleTests: BothSpellingsTestCase {
    /// Every stored key and the token (under `key_in_token`).
    private func state(_ store: AppStore) throws -> [String: JSONValue] {
        try store.reload()
        var out = Dictionary(store.defaults.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        out[StoreKey.token] = try store.token().map { .string($0) }
        return out.filter { $0.value != .null }
    }

    /// The names (`ModelRule.keyName`) of the keys whose value differs.
    private func changed(_ before: [String: JSONValue], _ after: [String: JSONValue]) -> Set<String> {
        Set(Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.map(ModelRule.keyName))
    }

    private static let contextPaths: Set<String> = [Endpoint.userInfo.path, Endpoint.rolePermissions.path, Endpoint.storeList.path]

    func testALoginWritesWhatCompleteLoginDeclaresAndCallsWhatItPlans() async throws {
        enum Prior: CaseIterable { case fresh, otherAccount, loggedOut }
        let logins: [(String, String?)] = [("13800000001", nil), ("13800000002", nil), ("13800000003", nil),
                                           ("13800000004", "4001"), ("13800000004", "4003")]
        var g = SplitMix64(seed: 20_020)
        for (phone, choice) in logins {
            for prior in Prior.allCases {
                let h = try Harness()
                let store = h.storage.appStore
                switch prior {
                case .fresh: break
                case .otherAccount: _ = try await h.login(g.pick(["13800000001", "13800000003"].filter { $0 != phone }))
                case .loggedOut:
                    _ = try await h.login(phone, choice: choice)
                    try h.auth.logout()
                }
                let before = try state(store)
                let requestsBefore = h.requests().count
                let outcome = try await h.login(phone, choice: choice)
                let after = try state(store)
                let token = try XCTUnwrap(try store.token())
                let plan = AppModel.completeLogin(token: token, user: outcome.account, phone: phone, privacyAccepted: true, now: Date())
                let label = "\(phone) \(choice ?? "") after \(prior)"
                let changes = changed(before, after)
                XCTAssertTrue(changes.isSubset(of: plan.declaredKeys), "undeclared writes \(changes.subtracting(plan.declaredKeys).sorted()): \(label)")
                // What the plan writes now and nothing after it rewrites is stored as planned.
                let later = Set(plan.then.flatMap(\.keys))
                for write in plan.writes where !later.contains(ModelRule.keyName(write.key)) {
                    XCTAssertEqual(after[write.key], write.value, "\(write.key): \(label)")
                }
                XCTAssertEqual(after[StoreKey.token], .string(token))
                // The calls after set-user are the plan's, nothing else.
                let sent = h.requests().dropFirst(requestsBefore).map(\.path)
                    .filter { $0 != Endpoint.login.path && $0 != Endpoint.setUser.path }
                XCTAssertEqual(sent.sorted(), plan.calls.map(\.path).sorted(), label)
                XCTAssertTrue(Set(sent).isSubset(of: Self.contextPaths), label)
            }
        }
    }

    func testALogoutAndAnExpiryClearWhatTheirFunctionsDeclare() async throws {
        for phone in ["13800000001", "13800000003"] {
            let h = try Harness()
            _ = try await h.login(phone)
            let store = h.storage.appStore
            try store.setOnlineStatus(true)
            try store.setLocationReminderMinutes(30)
            let before = try state(store)
            let plan = AppModel.logout(state: store)
            try h.auth.logout()
            let after = try state(store)
            let changes = changed(before, after)
            XCTAssertTrue(changes.isSubset(of: plan.declaredKeys), "\(changes.subtracting(plan.declaredKeys).sorted())")
            for write in plan.writes { XCTAssertNil(after[write.key], write.key) }
            XCTAssertNil(after[StoreKey.token])
            XCTAssertNil(try store.accountList.read(), "the login's account list goes")
            for key in [StoreKey.lastLoginUsername, StoreKey.privacyAgreementAccepted] { XCTAssertEqual(after[key], before[key], key) }
            let scoped = before.keys.filter { if case .scoped = StoreKey.kind(of: $0) { return true } else { return false } }
            XCTAssertFalse(scoped.isEmpty)
            for key in scoped { XCTAssertEqual(after[key], before[key], "an account-scoped key stays: \(key)") }

            // The server ends the session: the same keys go, by the expiry's own function.
            _ = try await h.login(phone)
            let beforeExpiry = try state(store)
            let expiry = AppModel.sessionExpired(state: store)
            XCTAssertEqual(expiry.declaredKeys, plan.declaredKeys)
            h.sandbox.expireTokens()
            await assertThrowsFeature({ try await h.profile.reload() }) { $0.isSessionExpired }
            let afterExpiry = try state(store)
            XCTAssertTrue(changed(beforeExpiry, afterExpiry).isSubset(of: expiry.declaredKeys))
            XCTAssertNil(afterExpiry[StoreKey.token])
            XCTAssertNil(afterExpiry[StoreKey.userId])
        }
    }

    /// Restore reads only what it declares: keys outside its reads, set to anything, change nothing it
    /// restores; and it writes nothing.
    func testRestoreReadsOnlyWhatItDeclaresAndWritesNothing() async throws {
        var g = SplitMix64(seed: 7_020)
        for phone in ["13800000001", "13800000002", "13800000003"] {
            let h = try Harness()
            _ = try await h.login(phone)
            let store = h.storage.appStore
            let base = store.memoryCopy()
            let declared = Set(AppModel.restoreReads(state: store))
            let scope = store.accountCachePrefix
            // Keys outside the declared reads, each with a value of its own type drawn at random.
            let n = Int(g.next() % 1000)
            let candidates: [(String, JSONValue)] = [
                (StoreKey.lastLoginUsername, .string("1390000\(1000 + n)")), (StoreKey.privacyAgreementAccepted, .bool(g.next() % 2 == 0)),
                (StoreKey.scoped(StoreKey.onlineStatus, prefix: scope), .bool(g.next() % 2 == 0)),
                (StoreKey.scoped(StoreKey.lastLocationReportTime, prefix: scope), .double(1_760_000_000 + Double(n))),
                (StoreKey.scoped(StoreKey.locationReminderMinutes, prefix: scope), .int(n)),
                (StoreKey.scoped(StoreKey.isOpenReceiveVoice, prefix: scope), .bool(g.next() % 2 == 0)),
                (StoreKey.scoped(StoreKey.roleId, prefix: scope), .string("r\(n)")),
                (StoreKey.commonMenuURIs(prefix: scope, roleCode: store.roleCode ?? "x"), .array([.string("home/x\(n)")])),
                (StoreKey.scoped(StoreKey.permission, prefix: "9999_store"), .array([])),
                (scope + "_queue_call_voice_enabled", g.pick([.bool(true), .string("噪声"), .int(n)])),
            ]
            for (key, value) in candidates {
                XCTAssertFalse(declared.contains(key), key)
                store.defaults.set(key, value)
            }
            try store.defaults.save()
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: store.defaults.path))

            try h.open()
            let requestsBefore = h.requests().count
            let restored = try h.bootstrapper.restore()
            XCTAssertEqual(restored.phase, .restoring)
            let account = AccountContext(), permission = PermissionContext()
            let plan = AppModel.restore(token: try base.token(), state: base, account: account, permission: permission)
            XCTAssertEqual(plan.phase, .restoring)
            XCTAssertEqual(plan.root, .mainTab)
            XCTAssertEqual(h.contexts.account.current, account.current, phone)
            XCTAssertEqual(h.contexts.permission.current, permission.current, phone)
            XCTAssertTrue(plan.writes.isEmpty && plan.declaredKeys.isEmpty, "restore declares no write")
            XCTAssertEqual(FileManager.default.contents(atPath: store.defaults.path), bytes, "restore wrote: \(phone)")
            XCTAssertEqual(h.requests().count, requestsBefore, "restore sends nothing")
        }
    }

    /// The stats and orders first screens send the plan's requests, and store nothing.
    func testTheFirstScreensSendThePlansRequestsAndStoreNothing() async throws {
        for phone in ["13800000001", "13800000002", "13800000003"] {
            let h = try Harness()
            _ = try await h.login(phone)
            let store = h.storage.appStore
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: store.defaults.path))

            let statsFrom = h.requests().count
            let range = try h.stats.range()
            let report = try await h.stats.load(range: range)
            let stats = AppModel.statsFirstScreen(report.endpoint, range: range, pageSize: StatisticsFeature.defaultPageSize)
            let sent = h.requests().dropFirst(statsFrom).map { r in
                r.path + (r.query.first { $0.name == "page" }.map { "?page=\($0.value)" } ?? "")
            }
            XCTAssertEqual(sent.sorted(), stats.plan.calls.map(\.path).sorted(), phone)
            XCTAssertEqual(stats.plan.calls.map(\.group), [1, 1], "asked together")
            XCTAssertEqual(stats.plan.rule.basis, .seed("seed 000 §5.2"))
            XCTAssertTrue(stats.plan.declaredKeys.isEmpty)

            let ordersFrom = h.requests().count
            let page = try await h.orders.fetchPage()
            let orders = AppModel.ordersFirstScreen(page.endpoint, pageSize: OrdersFeature.defaultPageSize)
            let sentOrders = h.requests().dropFirst(ordersFrom).map { r in
                r.path + (r.query.first { $0.name == "page" }.map { "?page=\($0.value)" } ?? "")
            }
            XCTAssertEqual(sentOrders, orders.plan.calls.map(\.path), phone)
            XCTAssertEqual(orders.plan.rule.basis, .seed("seed 000 §5.1"))
            XCTAssertEqual(FileManager.default.contents(atPath: store.defaults.path), bytes, "a first screen wrote: \(phone)")
        }
    }
}

extension AppModelLifecycleTests {
    /// After a replay in which the server rejected the token, `--apply` writes the diff shown, and the
    /// diff shows the token's removal: the token file goes and this process's session ends with it.
    func testApplyAfterARejectedTokenRemovesTheTokenAsTheDiffShows() async throws {
        let h = try Harness()
        _ = try await h.login("13800000003")
        let store = h.storage.appStore
        h.sandbox.expireTokens()
        let shown = try await h.home.initializeReplay()
        let tokenRow = try XCTUnwrap(shown.changes.first { $0.key == StoreKey.token }, "the diff shows the token's removal")
        XCTAssertNil(tokenRow.after)
        XCTAssertFalse(JSONWriter.string(tokenRow.before ?? .null).contains(try XCTUnwrap(try store.token())), "the token is shown masked")
        XCTAssertNotNil(try store.token(), "nothing written without --apply")
        let applied = try await h.home.initializeReplay(apply: true)
        XCTAssertTrue(applied.applied && applied.sessionExpired)
        XCTAssertNil(try store.token(), "--apply removes the token file the diff removed")
        XCTAssertNil(store.userId)
        XCTAssertNil(h.contexts.session.token, "the process's session follows what is stored")
        XCTAssertEqual(h.sessionGuard.resetCount, 1)
    }
}

/// The rules registry: every write a lifecycle function makes cites a rule that declares its key, and
/// every basis is true to its kind.
final class AppModelRulesTests: XCTestCase {
    private func makeStore() throws -> AppStore {
        let dir = NSTemporaryDirectory() + "sxk-rules-\(UUID().uuidString)"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let paths = try StatePaths(root: dir + "/state", profile: "p", configDir: dir + "/config")
        return try ProfileStorage(paths: paths, warn: { _ in }).appStore
    }

    private var demoAccount: Account {
        Account(userId: 5001, accountType: "store", accountDisplayName: "店", userName: "u", phone: "", roleCode: RoleCode.storeAdmin,
                roleName: "店长", scenicId: 9, scenicName: "景区", storeId: 3)
    }

    func testEveryWriteCitesARuleOfTheRegistryThatDeclaresItsKey() throws {
        let store = try makeStore()
        try store.saveLogin(token: "tok_lifecycle_test_1234", account: demoAccount, phone: "13800000009", privacyAccepted: true)
        let account = AccountContext(), permission = PermissionContext()
        let plans = [
            AppModel.completeLogin(token: "tok_lifecycle_test_1234", user: demoAccount, phone: "13800000009", privacyAccepted: true, now: Date()),
            AppModel.logout(state: store), AppModel.sessionExpired(state: store),
            AppModel.restore(token: "tok_lifecycle_test_1234", state: store, account: account, permission: permission),
        ]
        for plan in plans {
            for write in plan.writes {
                XCTAssertTrue(write.rule.keys.contains(ModelRule.keyName(write.key)), "\(plan.name): \(write.key) under \(write.rule.what)")
            }
            for rule in plan.rules { XCTAssertTrue(AppModel.rules.contains(rule), "\(plan.name): \(rule.what) is not in the registry") }
        }
        // The login phone stands in when the account carries none, under its own (inferred) rule.
        let login = plans[0]
        XCTAssertEqual(login.writes.first { $0.key == StoreKey.phone }?.rule, AppModel.Rule.loginPhone)
        XCTAssertEqual(login.value(of: StoreKey.phone), .string("13800000009"))
        XCTAssertEqual(login.calls.map(\.path), [Endpoint.userInfo.path, Endpoint.rolePermissions.path, Endpoint.storeList.path])
        XCTAssertEqual(login.calls.last?.rule.basis, .seed("seed 000 §4.3"))
    }

    /// `documented` only with a seed section; `inferred` only with a section of docs/app-behaviour.md
    /// that exists.
    func testEveryBasisIsTrueToItsKind() throws {
        let docs = RepositoryRoot.file("docs/app-behaviour.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for rule in AppModel.rules {
            switch rule.basis.basis {
            case .documented:
                XCTAssertTrue(rule.basis.source.hasPrefix("seed 00"), "\(rule.what): \(rule.basis.source)")
            case .inferred:
                let anchor = try XCTUnwrap(rule.basis.source.components(separatedBy: "docs/app-behaviour.md#").last)
                XCTAssertTrue(text.contains("<a id=\"\(anchor)\"></a>"), "\(rule.what): no section #\(anchor) in docs/app-behaviour.md")
            }
        }
        XCTAssertEqual(Set(AppModel.rules.map(\.what)).count, AppModel.rules.count, "one entry per rule")
    }

    /// `explain key` lists exactly the registry's writers of a key.
    func testExplainKeyListsTheRegistrysWriters() throws {
        let store = try makeStore()
        try store.saveLogin(token: "tok_lifecycle_test_1234", account: demoAccount, phone: "13800000009", privacyAccepted: true)
        let explain = ExplainFeature(store: store, catalog: MenuCatalog([]), clock: SystemClock())
        for key in [StoreKey.roleName, StoreKey.phone, StoreKey.currentStoreId, StoreKey.token] {
            let lines = try explain.key(key).steps.filter { $0.value.hasPrefix("written by ") }
            let writes = (AppModel.writers[key] ?? []).filter { !$0.readsOnly }
            XCTAssertEqual(lines.map(\.rule), writes.map(\.what), key)
            XCTAssertEqual(lines.map(\.basis), writes.map(\.basis), key)
        }
        // The launch's SDK conditions read the token and the privacy flag: said as reads.
        let token = try explain.key(StoreKey.token).steps
        XCTAssertTrue(token.contains { $0.value == "read by AppModel.launchSDKs" && $0.rule == AppModel.Rule.launchAMap.what }, "\(token.map(\.value))")
        let scoped = try explain.key("5001_store_key_in_permission").steps.filter { $0.value.hasPrefix("written by ") }
        XCTAssertEqual(scoped.map(\.rule), (AppModel.writers[StoreKey.permission] ?? []).map(\.what))
        // A rule of how a key is read is not shown as one of its writers.
        let accountType = try explain.key(StoreKey.accountType).steps
        XCTAssertTrue(accountType.contains { $0.value == "read by StoreKey.accountCachePrefix" }, "\(accountType.map(\.value))")
        XCTAssertFalse(accountType.contains { $0.value == "written by StoreKey.accountCachePrefix" })
        // How an empty common-menus record is read is no writer of the key either.
        let menus = try explain.key("5001_store_role_photographer_common_uris").steps
        XCTAssertTrue(menus.contains { $0.value == "read by CommonMenuStore.commonURIs" && $0.rule == AppModel.Rule.emptyCommonMenusRecord.what }, "\(menus.map(\.value))")
        XCTAssertFalse(menus.contains { $0.value == "written by CommonMenuStore.commonURIs" && $0.rule == AppModel.Rule.emptyCommonMenusRecord.what })
    }
}

extension AppModelLifecycleTests {
    /// Another process logs in on the profile while this one's session ends: the server's expiry of
    /// this session's token, or a logout, removes only that token; the newer login's token, account
    /// and account list stay, and the logout says why it did not finish.
    func testAnExpiryOrALogoutOfAnOlderSessionLeavesANewerLogin() async throws {
        let older = try Harness()
        try await older.login("13800000001")
        let newer = try Harness(stateDir: older.stateDir)
        for end in ["expiry", "logout"] {
            try await newer.login("13800000002")
            let token = try XCTUnwrap(try newer.storage.appStore.token())
            if end == "expiry" {
                older.sessionGuard.sessionExpired(token: older.contexts.session.token)
            } else {
                XCTAssertThrowsError(try older.auth.logout()) { XCTAssertTrue("\($0)".contains("another sxk process logged in"), "\($0)") }
            }
            try older.open()
            XCTAssertEqual(try older.storage.appStore.token(), token, end)
            XCTAssertEqual(older.storage.appStore.userId, 2001, end)
            XCTAssertEqual(try older.storage.appStore.accountList.read()?.phone, "13800000002", end)
            try await older.login("13800000001")
        }
        // A process whose session holds no token (nothing was stored when it started) does not
        // remove the one another process stores before its logout.
        try older.auth.logout()
        try older.open()
        _ = try older.bootstrapper.restore()
        XCTAssertNil(older.contexts.session.token)
        try await newer.login("13800000002")
        XCTAssertThrowsError(try older.auth.logout())
        try older.open()
        XCTAssertEqual(older.storage.appStore.userId, 2001)
        XCTAssertNotNil(try older.storage.appStore.token())
        // Its own token, written by a login whose later writes failed, is its session's to remove.
        try older.storage.appStore.tokens.write("token-of-a-half-done-login")
        try older.auth.logout()
        XCTAssertNil(try older.storage.appStore.token())
    }
}
