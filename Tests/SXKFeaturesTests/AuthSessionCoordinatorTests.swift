import Foundation
import SXKTestSupport
import XCTest
import SXKAPI
import SXKSession
@testable import SXKFeatures

final class AuthSessionCoordinatorTests: BothSpellingsTestCase {
    func testValidationRulesAreDistinct() {
        func check(_ phone: String, _ pw: String, _ privacy: Bool) -> FeatureError? {
            do { try AuthSessionCoordinator.validateLogin(phone: phone, password: pw, privacyAccepted: privacy); return nil } catch { return error }
        }
        XCTAssertNil(check("13800000001", "x", true))
        XCTAssertEqual(check("1380000000", "x", true), .invalidPhone("1380000000"))
        XCTAssertEqual(check("23800000001", "x", true), .invalidPhone("23800000001"))
        XCTAssertEqual(check("1380000000a", "x", true), .invalidPhone("1380000000a"))
        XCTAssertEqual(check("138000000012", "x", true), .invalidPhone("138000000012"))
        XCTAssertEqual(check("13800000001", "", true), .emptyPassword)
        XCTAssertEqual(check("13800000001", "x", false), .privacyNotAccepted)
    }

    func testBadPhoneAndPrivacyMakeNoRequest() async throws {
        let h = try Harness()
        await assertThrowsFeature({ try await h.auth.login(phone: "12345", password: "sandbox123", privacyAccepted: true) }) { $0 == .invalidPhone("12345") }
        await assertThrowsFeature({ try await h.auth.login(phone: "13800000001", password: "sandbox123", privacyAccepted: false) }) { $0 == .privacyNotAccepted }
        await assertThrowsFeature({ try await h.auth.login(phone: "13800000001", password: "", privacyAccepted: true) }) { $0 == .emptyPassword }
        XCTAssertTrue(h.requests().isEmpty)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
    }

    func testSingleAccountLoginCompletes() async throws {
        let h = try Harness()
        let enableRegister = await h.auth.fetchConfig()
        XCTAssertNotNil(enableRegister)
        let outcome = try await h.login("13800000001")
        XCTAssertEqual(outcome.account.userId, 1001)
        XCTAssertEqual(outcome.accounts.count, 1)
        XCTAssertTrue(outcome.warnings.isEmpty)
        let s = h.contexts.session.current
        XCTAssertEqual(s.phase, .loggedIn)
        XCTAssertFalse(s.offline)
        let token = try XCTUnwrap(s.token)
        // Formal token stored, preferences written, contexts filled, snapshot saved.
        XCTAssertEqual(try h.contexts.store.token(), token)
        XCTAssertEqual(h.contexts.store.lastLoginUsername, "13800000001")
        XCTAssertTrue(h.contexts.store.privacyAgreementAccepted)
        XCTAssertEqual(h.contexts.account.current.userId, 1001)
        XCTAssertEqual(h.contexts.account.current.scenicId, 1)
        XCTAssertEqual(h.contexts.permission.roleCode, "photographer")
        XCTAssertFalse(h.contexts.permission.current.permissions.isEmpty)
        XCTAssertEqual(h.contexts.store.userId, 1001)
        XCTAssertEqual(h.contexts.store.permissionItems().count, h.contexts.permission.current.permissions.count)
        // login, set-user (with the temporary token), then userinfo + role-permission.
        let paths = h.requests().map(\.path)
        XCTAssertEqual(Array(paths.prefix(3)), ["/api/app/config", "/api/app/v9/login", "/api/app/v9/set-user"])
        XCTAssertEqual(Set(paths.dropFirst(3).prefix(2)), ["/api/yf-handset-app/userinfo", "/api/yf-handset-app/role-permission"])
        let setUser = try XCTUnwrap(h.requests("/api/app/v9/set-user").first)
        XCTAssertNotEqual(setUser.header("token"), token, "set-user must carry the temporary token")
        XCTAssertEqual(h.requests("/api/yf-handset-app/userinfo").first?.header("token"), token)
    }

    func testMultiAccountLoginAsksThenCompletesChoice() async throws {
        let h = try Harness()
        let step = try await h.auth.login(phone: "13800000004", password: Harness.password, privacyAccepted: true)
        guard case .chooseAccount(let accounts) = step else { return XCTFail("expected a choice") }
        XCTAssertEqual(accounts.map(\.userId), [4001, 4002, 4003])
        XCTAssertTrue(h.requests("/api/app/v9/set-user").isEmpty)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
        await assertThrowsFeature({ try await h.auth.chooseAccount("9") }) { if case .accountNotFound = $0 { return true }; return false }
        let outcome = try await h.auth.chooseAccount("3")
        XCTAssertEqual(outcome.account.userId, 4003)
        XCTAssertEqual(h.contexts.permission.roleCode, "storeAdmin")
        XCTAssertEqual(h.contexts.account.current.storeId, 301)
        XCTAssertEqual(h.auth.accounts().filter(\.isCurrent).map(\.account.userId), [4003])
    }

    /// A login left at its account choice changes nothing: the current account, its list and the
    /// token `switch-account` would use stay those of the login before.
    func testUnfinishedChoiceLeavesTheSessionAsItWas() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        let before = h.auth.accounts()
        let step = try await h.auth.login(phone: "13800000004", password: Harness.password, privacyAccepted: true)
        guard case .chooseAccount = step else { return XCTFail("expected a choice") }
        XCTAssertEqual(h.auth.accounts(), before)
        h.auth.cancelAccountChoice()
        await assertThrowsFeature({ try await h.auth.chooseAccount("1") }) { if case .noAccountList = $0 { return true }; return false }
        XCTAssertEqual(h.contexts.account.current.userId, 1001)
        XCTAssertEqual(h.auth.accounts(), before)
    }

    func testAccountChoiceAnswers() {
        let accounts = [4001, 4002, 4003].map { Account(userId: $0, accountType: "scenic", accountDisplayName: "a\($0)", userName: "", phone: "", roleCode: "", roleName: "") }
        XCTAssertEqual(AuthSessionCoordinator.accountChoice(" 2 ", in: accounts), .chosen(accounts[1]))
        XCTAssertEqual(AuthSessionCoordinator.accountChoice("4003", in: accounts), .chosen(accounts[2]))
        XCTAssertEqual(AuthSessionCoordinator.accountChoice("  ", in: accounts), .cancel)
        guard case .invalid(let nine) = AuthSessionCoordinator.accountChoice("9", in: accounts),
              case .invalid(let text) = AuthSessionCoordinator.accountChoice("x\u{1B}[2J", in: accounts) else {
            return XCTFail("9 and text are not accounts")
        }
        XCTAssertTrue(nine.hasPrefix("that number is not in the list"), nine)
        XCTAssertFalse(text.contains("\u{1B}"), "a control character reached the terminal: \(text.debugDescription)")
        XCTAssertEqual(AuthSessionCoordinator.accountChoice("0", in: []), .invalid("that number is not in the list — type a number 1-0, or an empty line to cancel"))
        // What was typed is never repeated (a password typed at the wrong prompt).
        for typed in ["Shadow!pass-7Q", "123456789", "sandbox123"] {
            guard case .invalid(let why) = AuthSessionCoordinator.accountChoice(typed, in: accounts) else { return XCTFail(typed) }
            XCTAssertFalse(why.contains(typed), why)
            XCTAssertFalse(why.contains(String(typed.prefix(6))), why)
        }
    }

    func testMultiAccountLoginWithChoiceArgument() async throws {
        let h = try Harness()
        let outcome = try await h.login("13800000004", choice: "4002")
        XCTAssertEqual(outcome.account.userId, 4002)
        XCTAssertEqual(h.contexts.permission.roleCode, "scenicAdmin")
    }

    func testConfigFailureIsIgnored() async throws {
        let h = try Harness()
        h.sandbox.injectFault(path: "/api/app/config", kind: .html502)
        let enableRegister = await h.auth.fetchConfig()
        XCTAssertNil(enableRegister)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
        let outcome = try await h.login("13800000001")
        XCTAssertEqual(outcome.account.userId, 1001)
    }

    func testAccountRowsNumberTheListAndMarkTheCurrentAccount() async throws {
        let h = try Harness()
        _ = try await h.login("13800000004", choice: "2")
        let rows = h.auth.accounts()
        XCTAssertEqual(rows.map(\.index), [1, 2, 3])
        XCTAssertEqual(rows.map(\.isCurrent), [false, true, false])
        XCTAssertEqual(rows[1].account.userId, 4002)
    }

    func testWrongPasswordIsServerError() async throws {
        let h = try Harness()
        await assertThrowsFeature({ try await h.auth.login(phone: "13800000001", password: "nope", privacyAccepted: true) }) {
            $0.apiError?.kind == .server && !$0.description.contains("nope")
        }
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
        XCTAssertNil(try h.contexts.store.token())
    }

    func testSwitchAccountWithoutPassword() async throws {
        let h = try Harness()
        _ = try await h.login("13800000004", choice: "1")
        XCTAssertEqual(h.contexts.permission.roleCode, "photographer")
        let firstToken = h.contexts.session.token
        let outcome = try await h.auth.switchAccount(to: "4002")
        guard case .switched(let done) = outcome else { return XCTFail("expected a switch") }
        XCTAssertEqual(done.account.userId, 4002)
        XCTAssertEqual(h.contexts.permission.roleCode, "scenicAdmin")
        XCTAssertEqual(h.contexts.store.userId, 4002)
        XCTAssertNotEqual(h.contexts.session.token, firstToken)
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
        XCTAssertEqual(h.auth.accounts().count, 3)
        XCTAssertEqual(h.requests("/api/app/v9/login").count, 1, "no second password login")
    }

    func testSwitchAccountRefusedAsksForPassword() async throws {
        let h = try Harness()
        _ = try await h.login("13800000004", choice: "1")
        h.sandbox.expireTokens()
        let outcome = try await h.auth.switchAccount(to: "2")
        guard case .passwordRequired(let account, let phone) = outcome else { return XCTFail("expected passwordRequired") }
        XCTAssertEqual(account.userId, 4002)
        XCTAssertEqual(phone, "13800000004")
        // The refusal did not end the session (tokenOverride requests do not signal expiry).
        XCTAssertEqual(h.contexts.session.phase, .loggedIn)
        let done = try await h.auth.relogin(phone: phone, password: Harness.password, target: account)
        XCTAssertEqual(done.account.userId, 4002)
        XCTAssertEqual(h.contexts.permission.roleCode, "scenicAdmin")
    }

    func testLogoutKeepsPreferences() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        try h.auth.logout()
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
        XCTAssertNil(h.contexts.session.token)
        XCTAssertNil(try h.contexts.store.token())
        XCTAssertNil(h.contexts.store.userId)
        XCTAssertNil(h.contexts.account.userId)
        XCTAssertTrue(h.contexts.permission.current.roles.isEmpty)
        XCTAssertTrue(h.auth.accounts().isEmpty)
        XCTAssertEqual(h.contexts.store.lastLoginUsername, "13800000001")
        XCTAssertTrue(h.contexts.store.privacyAgreementAccepted)
        // A fresh process sees the same.
        try h.open()
        XCTAssertEqual(try h.bootstrapper.restore().phase, .loggedOut)
        XCTAssertEqual(h.auth.storedPreferences.lastPhone, "13800000001")
        XCTAssertTrue(h.auth.storedPreferences.privacyAccepted)
    }

    /// Scenic and store accounts live in separate tables, so one id can be both: the bare id is then
    /// ambiguous (a usage error naming both) and `ID:TYPE` picks one; an index still works.
    func testAnIdThatIsBothAScenicAndAStoreAccountNeedsItsType() throws {
        func account(_ id: Int, _ type: String) -> Account {
            Account(userId: id, accountType: type, accountDisplayName: "\(id) \(type)", userName: "u", phone: "13800000009",
                    roleCode: type == "store" ? "storeAdmin" : "photographer", roleName: "r")
        }
        let accounts = [account(5001, "scenic"), account(5001, "store"), account(5002, "scenic")]
        XCTAssertEqual(try AuthSessionCoordinator.resolve("5001:store", in: accounts), accounts[1])
        XCTAssertEqual(try AuthSessionCoordinator.resolve("5001:scenic", in: accounts), accounts[0])
        XCTAssertEqual(try AuthSessionCoordinator.resolve("5002", in: accounts), accounts[2])
        XCTAssertEqual(try AuthSessionCoordinator.resolve("2", in: accounts), accounts[1])
        XCTAssertThrowsError(try AuthSessionCoordinator.resolve("5001", in: accounts)) { error in
            guard case FeatureError.ambiguousAccount(_, let choices) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(choices, ["5001:scenic", "5001:store"])
            XCTAssertTrue((error as? FeatureError)?.isUsage == true)
        }
        XCTAssertThrowsError(try AuthSessionCoordinator.resolve("5001:guide", in: accounts))
    }
}
