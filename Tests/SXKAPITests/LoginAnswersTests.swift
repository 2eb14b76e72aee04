import Foundation
import XCTest
@testable import SXKCore
import SXKModels
@testable import SXKAPI

/// What the login page's calls send and how their refusals read; what a later answer repeats of a
/// secret an earlier request sent.
final class LoginAnswersTests: XCTestCase {
    override func setUp() { SecretMemory.reset() }
    override func tearDown() { SecretMemory.reset() }

    /// `v9/login` and `app/config` go without the session's token (the app sends them from the login
    /// page), so a 401 or an expiry code there is the login's refusal with the server's message, not
    /// the end of a session; the same answer to a call that carried the token is one.
    func testALoginRefusalIsNoSessionsEnd() async throws {
        let sent = Box<[HTTPRequest]>([])
        let observer = RecordingObserver()
        let refused = Fixture.client(observer: observer, sent: sent) { _ in
            HTTPResponse(status: 401, text: Fixture.envelope("null", code: "100101", msg: "\"用户名或密码错误\""))
        }
        do {
            _ = try await AccountAPI(client: refused).login(username: "13800000001", password: Fixture.sentinelPassword)
            XCTFail("a refused login succeeded")
        } catch {
            guard case .serverCode(let code, let msg, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(code, "100101")
            XCTAssertEqual(msg, "用户名或密码错误")
        }
        XCTAssertNil(sent.value.last?.headers["token"], "the login carries no session token")
        // A short digit password shares digits with the code: the code is still shown whole.
        let digits = Fixture.client(sent: sent) { _ in HTTPResponse(status: 200, text: Fixture.envelope("null", code: "100010", msg: "\"账号或密码错误\"")) }
        do {
            _ = try await AccountAPI(client: digits).login(username: "13800000001", password: "0001")
            XCTFail("a refused login succeeded")
        } catch {
            guard case .serverCode(let code, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(code, "100010")
        }
        do {
            _ = try await AccountAPI(client: refused).config()
            XCTFail("a refused config succeeded")
        } catch {
            XCTAssertNotEqual(error.kind, .sessionExpired, "\(error)")
        }
        XCTAssertNil(sent.value.last?.headers["token"])

        let expiredCode = Fixture.client(sent: sent) { _ in HTTPResponse(status: 200, text: Fixture.envelope("null", code: "100401", msg: "\"token失效\"")) }
        do {
            _ = try await AccountAPI(client: expiredCode).login(username: "13800000001", password: Fixture.sentinelPassword)
            XCTFail("a refused login succeeded")
        } catch {
            XCTAssertNotEqual(error.kind, .sessionExpired, "\(error)")
        }
        do {
            _ = try await AccountAPI(client: refused).userInfo()
            XCTFail("a refused userinfo succeeded")
        } catch {
            XCTAssertEqual(error.kind, .sessionExpired, "a call with the session's token ends it: \(error)")
        }
        XCTAssertEqual(sent.value.last?.headers["token"], Fixture.sentinelToken)
    }

    /// A token the server hands out that sxk could not send back (empty, spaced, controls) fails the
    /// call that got it, naming the field, before any request carries it.
    func testATokenSxkCannotSendIsRefusedWhereItIsRead() throws {
        for token in ["", "a b", "tok\u{1B}[2J", "tök"] {
            let answer = try JSONParser.parse(#"{"token":\#(JSONWriter.string(.string(token))),"user":{"userId":1001,"accountType":"scenic"}}"#)
            XCTAssertThrowsError(try SetUserResult(json: answer), token) { error in
                XCTAssertEqual((error as? FieldError)?.field, "token", "\(error)")
            }
            let login = try JSONParser.parse(#"{"token":\#(JSONWriter.string(.string(token))),"accounts":[]}"#)
            XCTAssertThrowsError(try LoginResult(json: login), token)
        }
        XCTAssertNoThrow(try SetUserResult(json: JSONParser.parse(#"{"token":"sxk_abc.DEF-123","user":{"userId":1001,"accountType":"scenic"}}"#)))
    }

    /// A password sent at login and a temporary token handed to set-user stay secrets: a later answer
    /// that repeats one (set-user the password, userinfo the temporary token) is kept masked.
    func testWhatALaterAnswerRepeatsOfAnEarlierSecretIsMasked() async throws {
        let password = "Hunter2Secret-\(UInt32.random(in: 0...UInt32.max))"
        let temp = "TEMP-\(UUID().uuidString)"
        let client = Fixture.client(token: nil) { request in
            switch request.url.path {
            case Endpoint.login.path:
                return Fixture.ok(#"{"token":"\#(temp)","accounts":[{"userId":1001,"accountType":"scenic"}]}"#)
            case Endpoint.setUser.path:
                return Fixture.ok(#"{"token":"FORMAL-0123456789abcdef","user":{"userId":1001,"accountType":"scenic","userName":"p:\#(password)"}}"#)
            default:
                return Fixture.ok(#"{"userName":"t:\#(temp)","realName":"\#(password)"}"#)
            }
        }
        let api = AccountAPI(client: client)
        let login = try await api.login(username: "13800000001", password: password).value
        let chosen = try await api.setUser(userId: 1001, accountType: "scenic", tempToken: login.tempToken).value
        XCTAssertEqual(chosen.user.userName, "p:***")
        XCTAssertEqual(chosen.token, "FORMAL-0123456789abcdef", "the answer's own token is kept")
        let info = try await api.userInfo(token: chosen.token).value
        XCTAssertEqual(info.userName, "t:***")
        XCTAssertEqual(info.realName, "***")
    }

    /// A password the server refused is no one's: it is not remembered, so a later answer holding
    /// the same word (a role code) is kept as sent.
    func testARefusedPasswordIsNotRemembered() async throws {
        let client = Fixture.client(token: nil) { request in
            request.url.path == Endpoint.login.path
                ? HTTPResponse(status: 200, text: Fixture.envelope("null", code: "100010", msg: "\"账号或密码错误\""))
                : Fixture.ok(#"[{"roleCode":"photographer","roleName":"摄影师","scenicList":[],"permissions":[]}]"#)
        }
        let api = AccountAPI(client: client)
        _ = try? await api.login(username: "13800000001", password: "photographer")
        XCTAssertEqual(SecretMemory.all, [])
        let roles = try await api.rolePermissions().value
        XCTAssertEqual(roles.first?.roleCode, "photographer")
    }
}
