import Foundation
import SXKCore
import XCTest
@testable import SXKSandbox

final class SandboxAuthTests: SandboxTestCase {
    func testConfigNeedsNoToken() throws {
        let data = expectCode(try get("/api/app/config", token: nil), 100000)
        XCTAssertEqual(data[field: "enableRegister"], .bool(false))
    }

    func testLoginRejectsWrongPasswordAndUnknownPhone() throws {
        let wrong = try login("13800000001", password: "nope")
        expectCode(wrong, 100010)
        XCTAssertEqual(wrong.msg, "账号或密码错误")
        expectCode(try login("13900000000"), 100010)
        let missing = try call("POST", "/api/app/v9/login", body: #"{"password":"x"}"#)
        expectCode(missing, 100400)
        XCTAssertTrue(missing.msg?.contains("username") == true)
        expectCode(try call("POST", "/api/app/v9/login", body: "{not json"), 100400)
    }

    func testLoginListsEveryAccountOfThePhone() throws {
        let data = expectCode(try login("13800000004"), 100000)
        XCTAssertTrue(data[field: "token"]?.stringValue?.hasPrefix("tmp_") == true)
        let accounts = try XCTUnwrap(data[field: "accounts"]?.arrayValue)
        XCTAssertEqual(accounts.compactMap { $0[field: "userId"]?.intValue }, [4001, 4002, 4003])
        XCTAssertEqual(accounts.compactMap { $0[field: "accountType"]?.stringValue }, ["scenic", "scenic", "store"])
        XCTAssertEqual(accounts.compactMap { $0[field: "roleCode"]?.stringValue }, ["photographer", "scenicAdmin", "storeAdmin"])
        XCTAssertEqual(accounts[2][field: "storeId"]?.intValue, 301)
        XCTAssertEqual(accounts[0][field: "scenicName"]?.stringValue, "千岛湖")
    }

    func testSetUserNeedsTheTemporaryTokenAndAnOwnedAccount() throws {
        let temp = try XCTUnwrap(try login("13800000004").data?[field: "token"]?.stringValue)
        expectCode(try call("POST", "/api/app/v9/set-user", body: #"{"userId":4001}"#), 100401)
        expectCode(try call("POST", "/api/app/v9/set-user", token: "bogus", body: #"{"userId":4001}"#), 100401)
        expectCode(try call("POST", "/api/app/v9/set-user", token: temp, body: #"{"userId":1001}"#), 100403)
        expectCode(try call("POST", "/api/app/v9/set-user", token: temp, body: #"{}"#), 100400)
        expectCode(try call("POST", "/api/app/v9/set-user", token: temp, body: #"{"userId":4003,"accountType":"scenic"}"#), 100400)
        // snake_case keys and a numeric string are accepted.
        let data = expectCode(try call("POST", "/api/app/v9/set-user", token: temp, body: #"{"user_id":"4003","account_type":"store"}"#), 100000)
        let formal = try XCTUnwrap(data[field: "token"]?.stringValue)
        XCTAssertNotEqual(formal, temp)
        XCTAssertEqual(data[field: "user"]?[field: "userId"]?.intValue, 4003)
        XCTAssertEqual(data[field: "user"]?[field: "roleCode"]?.stringValue, "storeAdmin")
        // The temporary token is not a formal one.
        expectCode(try get("/api/yf-handset-app/userinfo", token: temp), 100401)
        XCTAssertEqual(try get("/api/yf-handset-app/userinfo", token: formal).data?[field: "userId"]?.intValue, 4003)
        // A formal token may switch to another account of the same phone, never to another phone's.
        let switched = expectCode(try call("POST", "/api/app/v9/set-user", token: formal, body: #"{"userId":4001}"#), 100000)
        XCTAssertEqual(switched[field: "user"]?[field: "userId"]?.intValue, 4001)
        expectCode(try call("POST", "/api/app/v9/set-user", token: formal, body: #"{"userId":2001}"#), 100403)
    }

    func testMissingOrUnknownTokenIsExpired() throws {
        for path in ["/api/yf-handset-app/userinfo", "/api/yf-handset-app/role-permission", "/api/app/store/all"] {
            let none = try get(path, token: nil)
            expectCode(none, 100401)
            XCTAssertEqual(none.msg, "登录已过期，请重新登录")
            expectCode(try get(path, token: "sxk_unknown"), 100401)
        }
    }

    func testExpireTokensEndsEverySession() throws {
        let token = try formalToken("13800000001", 1001)
        expectCode(try get("/api/yf-handset-app/userinfo", token: token), 100000)
        server.expireTokens()
        expectCode(try get("/api/yf-handset-app/userinfo", token: token), 100401)
        let other = try formalToken("13800000001", 1001)
        XCTAssertEqual(try call("POST", "/__sandbox/expire-tokens").code, 100000)
        expectCode(try get("/api/yf-handset-app/userinfo", token: other), 100401)
    }
}

final class SandboxTokenTTLTests: SandboxTestCase {
    let clock = FixedClock(Date(timeIntervalSince1970: 1_780_000_000))

    override func makeConfig() -> SandboxConfig { SandboxConfig(tokenTTL: 60, clock: clock) }

    func testFormalTokensExpireAfterTheTTL() throws {
        let token = try formalToken("13800000002", 2001)
        clock.advance(by: 59)
        expectCode(try get("/api/yf-handset-app/userinfo", token: token), 100000)
        clock.advance(by: 2)
        expectCode(try get("/api/yf-handset-app/userinfo", token: token), 100401)
        // A new login works again.
        let fresh = try formalToken("13800000002", 2001)
        expectCode(try get("/api/yf-handset-app/userinfo", token: fresh), 100000)
    }

    func testTheTTLCanChangeAtRunTime() throws {
        let token = try formalToken("13800000001", 1001)
        server.setTokenTTL(nil)
        clock.advance(by: 3600)
        expectCode(try get("/api/yf-handset-app/userinfo", token: token), 100000)
        XCTAssertEqual(try call("POST", "/__sandbox/config", body: #"{"tokenTTL":10}"#).code, 100000)
        expectCode(try get("/api/yf-handset-app/userinfo", token: token), 100401)
    }
}

/// Two sandboxes keeping their tokens in one place (two `sxk --sandbox` runs on one state folder).
final class SharedTokenKeeperTests: XCTestCase {
    final class MemoryKeeper: SandboxTokenKeeper, @unchecked Sendable {
        private let lock = NSLock()
        private var records: [SandboxTokenRecord] = []
        func load() -> [SandboxTokenRecord] { lock.withLock { records } }
        func save(_ records: [SandboxTokenRecord]) { lock.withLock { self.records = records } }
    }

    func testEachAcceptsTheOthersTokensButNotOneItExpired() {
        let keeper = MemoryKeeper()
        let clock = FixedClock(Date(timeIntervalSince1970: 1_800_000_000))
        let a = SandboxTokens(ttl: nil, clock: clock, keeper: keeper)
        let b = SandboxTokens(ttl: nil, clock: clock, keeper: keeper)
        let first = a.issueFormal(userId: 1001)
        let second = b.issueFormal(userId: 2001)
        XCTAssertEqual(a.formalUser(second), 2001, "a token the other run issued since")
        XCTAssertEqual(b.formalUser(first), 1001)
        XCTAssertEqual(Set(keeper.load().map(\.token)), [first, second], "neither run dropped the other's")
        a.expireAll()
        XCTAssertNil(a.formalUser(first))
        // The other run still holds them and keeps them again with its next token: the run that
        // expired them does not take them back.
        clock.advance(by: 1)
        _ = b.issueFormal(userId: 2001)
        XCTAssertNil(a.formalUser(first))
        XCTAssertNil(a.formalUser(second))
    }
}
