import Foundation
import SXKSandbox
import XCTest

/// A one-shot on a session validated within the last 5 minutes sends only its own request
/// (docs/session.md); `--revalidate`, an older validation and the REPL-less piped mode with
/// `--revalidate` validate first. Counted with the sandbox's request log, against the real binary.
final class ValidationWindowTests: SandboxTestCase {
    let config = "/api/app/config"
    let userinfo = "/api/yf-handset-app/userinfo"
    let rolePermission = "/api/yf-handset-app/role-permission"

    func loggedIn() -> Workspace {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.resetRequestLog()
        return ws
    }

    func testOneShotOnAFreshlyValidatedSessionMakesExactlyOneRequest() throws {
        let ws = loggedIn()
        let r = SXK.run(["get", config, "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(paths(server.requestLog()), [config], r.summary)
        // -c and scripts are one-shots too.
        server.resetRequestLog()
        let c = SXK.run(["-c", "get \(config) --json; get \(config) --json"], in: ws, baseURL: url)
        XCTAssertEqual(c.status, 0, c.summary)
        XCTAssertEqual(paths(server.requestLog()), [config, config], c.summary)
    }

    func testRevalidateForcesTheValidationCalls() throws {
        let ws = loggedIn()
        let r = SXK.run(["--revalidate", "get", config, "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let sent = paths(server.requestLog())
        XCTAssertEqual(sent.last, config, r.summary)
        XCTAssertEqual(Set(sent.prefix(2)), [userinfo, rolePermission], "validation did not run first: \(sent)")
        XCTAssertGreaterThanOrEqual(sent.count, 3, "\(sent)")
        XCTAssertEqual(sent.filter { $0 == userinfo }.count, 1, "\(sent)")
    }

    /// `whoami` reads no network; with `--revalidate` it asks the server first, and an expired token
    /// then shows as logged out with the expiry said once.
    func testRevalidateMakesWhoamiAskTheServer() throws {
        let ws = loggedIn()
        XCTAssertEqual(SXK.run(["whoami", "--json"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(paths(server.requestLog()), [])
        let r = SXK.run(["--revalidate", "whoami", "--jq", ".phase"], in: ws, baseURL: url)
        XCTAssertEqual(r.stdout, "loggedIn\n", r.summary)
        XCTAssertEqual(Set(paths(server.requestLog())), [userinfo, rolePermission], r.summary)
        server.resetRequestLog()
        XCTAssertEqual(SXK.run(["--revalidate", "context", "diff", "--json"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(paths(server.requestLog()).filter { $0 == userinfo }.count, 1, "context diff validated before its own calls")
        server.expireTokens()
        let expired = SXK.run(["--revalidate", "context", "--json"], in: ws, baseURL: url)
        let shown = try XCTUnwrap(expired.json() as? [String: Any], expired.summary)
        XCTAssertEqual(shown["phase"] as? String, "loggedOut", expired.summary)
        XCTAssertEqual(expired.stderr.components(separatedBy: "session expired").count - 1, 1, expired.summary)
        // The view says the server rejected the token here, and the status says the session expired.
        XCTAssertEqual(shown["tokenRejected"] as? Bool, true, expired.summary)
        XCTAssertTrue((shown["source"] as? String ?? "").contains("the server rejected the token in this process"), expired.summary)
        XCTAssertEqual(expired.status, 3, expired.summary)
        // Asked again, logged out now: still no session (3); a server that cannot be reached: 4.
        XCTAssertEqual(SXK.run(["--revalidate", "whoami"], in: ws, baseURL: url).status, 3)
        let own = SandboxServer(config: SandboxConfig())
        let ownURL = try own.start()
        let away = Workspace()
        SXK.login("13800000001", in: away, baseURL: ownURL)
        XCTAssertEqual(SXK.run(["--revalidate", "whoami"], in: away, baseURL: ownURL).status, 0)
        own.stop()
        let unreachable = SXK.run(["--revalidate", "whoami"], in: away, baseURL: ownURL)
        XCTAssertEqual(unreachable.status, 4, unreachable.summary)
        // A server that answers with an error: reached, the session not validated, offline: 1.
        let answered = loggedIn()
        server.injectFault(path: userinfo, kind: .status500)
        let refused = SXK.run(["--revalidate", "whoami", "--jq", ".offline"], in: answered, baseURL: url)
        XCTAssertEqual(refused.status, 1, refused.summary)
        XCTAssertEqual(refused.stdout, "true\n", refused.summary)
        XCTAssertTrue(refused.stderr.contains("could not be validated"), refused.summary)
        // Logged out by a logout instead: nothing was rejected.
        let ws2 = loggedIn()
        let out = SXK.run(["-c", "logout; whoami --json"], in: ws2, baseURL: url)
        XCTAssertTrue(out.stdout.contains("\"tokenRejected\" : false") || out.stdout.contains("\"tokenRejected\":false"), out.summary)
    }

    /// A command's first request that the validation just made (profile's userinfo, a store admin's
    /// store list) is answered by the validation's answer, not sent again; the next command asks anew.
    func testAValidationsAnswersServeTheCommandThatAskedForIt() throws {
        let ws = loggedIn()
        let r = SXK.run(["--revalidate", "-c", "profile --json; profile --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(paths(server.requestLog()).filter { $0 == userinfo }.count, 2, "validation + the second profile: \(paths(server.requestLog()))")
        let store = Workspace()
        SXK.login("13800000003", in: store, baseURL: url)
        server.resetRequestLog()
        let listed = SXK.run(["--revalidate", "store", "--json"], in: store, baseURL: url)
        XCTAssertEqual(listed.status, 0, listed.summary)
        XCTAssertTrue(listed.stdout.contains("101"), listed.summary)
        XCTAssertEqual(paths(server.requestLog()).filter { $0 == "/api/app/store/all" }.count, 1, "\(paths(server.requestLog()))")
    }

    func testAValidationOlderThanTheWindowIsRepeatedAndRecorded() throws {
        let ws = loggedIn()
        try setValidatedAt(ws, Date().addingTimeInterval(-6 * 60))
        let r = SXK.run(["get", config, "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let sent = paths(server.requestLog())
        XCTAssertEqual(Set(sent.prefix(2)), [userinfo, rolePermission], "\(sent)")
        XCTAssertEqual(sent.last, config)
        // The validation was saved: the next one-shot is back to one request.
        let at = try XCTUnwrap(try ws.defaultsObject()["sxk_session_validated_at"] as? Double)
        XCTAssertLessThan(abs(Date().timeIntervalSince1970 - at), 60, "validation time not refreshed")
        server.resetRequestLog()
        XCTAssertEqual(SXK.run(["get", config, "--json"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(paths(server.requestLog()), [config])
    }

    /// A clock set back (a time in the future) is not trusted either.
    func testAValidationTimeInTheFutureIsNotTrusted() throws {
        let ws = loggedIn()
        try setValidatedAt(ws, Date().addingTimeInterval(3600))
        XCTAssertEqual(SXK.run(["get", config, "--json"], in: ws, baseURL: url).status, 0)
        XCTAssertTrue(paths(server.requestLog()).contains(userinfo), "\(paths(server.requestLog()))")
    }

    func testWhoamiShowsWhenTheSessionWasValidated() throws {
        let ws = loggedIn()
        let json = SXK.run(["whoami", "--json"], in: ws, baseURL: url)
        let who = try XCTUnwrap(try json.json() as? [String: Any], json.summary)
        let age = try XCTUnwrap(who["validatedAgeSeconds"] as? Int, json.summary)
        XCTAssertTrue((0...60).contains(age), "\(age)")
        try setValidatedAt(ws, Date().addingTimeInterval(-125))
        let text = SXK.run(["-c", "get \(config) --json; whoami"], in: ws, baseURL: url)
        // 125 s before the run, plus however long the machine took to start it.
        XCTAssertNotNil(text.stdout.range(of: "validated 2m[0-5][0-9]s", options: .regularExpression), "whoami source does not say when: \(text.summary)")
        let row = text.stdout.split(separator: "\n").first { $0.hasPrefix("validated ") }
        XCTAssertEqual(row.map { $0.contains("2m0") && $0.hasSuffix("ago") }, true, text.summary)
        XCTAssertEqual(paths(server.requestLog()).filter { $0 == userinfo }, [], "a request validated inside the window")
    }

    /// The token expired on the server inside the window: the command's own request gets code
    /// 100401, and that ends the session as validation would have: exit 3, one line, token removed.
    func testExpiredTokenInsideTheWindowEndsInExitThreeFromTheRequestsOwnAnswer() throws {
        let ws = loggedIn()
        server.expireTokens()
        let r = SXK.run(["orders", "--limit", "1"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 3, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertEqual(r.stderrLines.filter { $0.lowercased().contains("expired") }.count, 1, r.summary)
        XCTAssertEqual(server.requestLog().count, 1, "\(paths(server.requestLog()))")
        XCTAssertFalse(server.requestLog().contains { $0.path == userinfo })
        XCTAssertNil(ws.token(), "token kept after expiry")
        XCTAssertNil(try ws.defaultsObject()["sxk_session_validated_at"], "validation time kept after expiry")
        let who = SXK.run(["whoami", "--json"], in: ws, baseURL: url)
        XCTAssertEqual((try? who.json() as? [String: Any])?["phase"] as? String, "loggedOut", who.summary)
    }

    /// Past the window the validation meets the expired token: one line says so, as the error of a
    /// command that needs the session, as a warning before the output of one that needs no token.
    func testAnExpiryFoundByTheValidationIsSaidOnce() throws {
        let ws = loggedIn()
        try setValidatedAt(ws, Date().addingTimeInterval(-6 * 60))
        server.expireTokens()
        let r = SXK.run(["orders", "--limit", "1"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 3, r.summary)
        XCTAssertEqual(r.stderrLines.count, 1, r.summary)
        XCTAssertTrue(r.errorLines.first?.contains("expired") ?? false, r.summary)
        XCTAssertNil(ws.token(), "token kept after expiry")

        let again = loggedIn()
        try setValidatedAt(again, Date().addingTimeInterval(-6 * 60))
        server.expireTokens()
        let config = SXK.run(["get", config, "--json"], in: again, baseURL: url)
        XCTAssertEqual(config.status, 0, config.summary)
        XCTAssertEqual(config.stderrLines.filter { $0.contains("expired") }.count, 1, config.summary)
        XCTAssertTrue(config.stderrLines.first?.hasPrefix("warning:") ?? false, config.summary)
        XCTAssertTrue(config.stderrLines.first?.contains("expired") ?? false, config.summary)
        XCTAssertEqual(config.errorLines, [], config.summary)

        // A raw request that needs a token, sent without one after the expiry: the same one line.
        let third = loggedIn()
        try setValidatedAt(third, Date().addingTimeInterval(-6 * 60))
        server.expireTokens()
        let raw = SXK.run(["get", userinfo], in: third, baseURL: url)
        XCTAssertEqual(raw.status, 3, raw.summary)
        XCTAssertEqual(raw.stderrLines.filter { $0.contains("expired") }.count, 1, raw.summary)
        XCTAssertEqual(raw.errorLines.count, 1, raw.summary)
        XCTAssertNoThrow(try config.json(), "stdout is the data alone")
    }

    /// The same with HTTP 401 (a gateway's answer) to a raw `get`.
    func testHTTP401ToARawGetInsideTheWindowEndsInExitThree() throws {
        let ws = loggedIn()
        server.injectFault(path: userinfo, kind: .status401)
        let r = SXK.run(["get", userinfo], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 3, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertEqual(paths(server.requestLog()), [userinfo])
        XCTAssertNil(ws.token(), "token kept after a 401")
    }

    func setValidatedAt(_ ws: Workspace, _ date: Date) throws {
        var object = try ws.defaultsObject()
        object["sxk_session_validated_at"] = date.timeIntervalSince1970
        let data = try JSONSerialization.data(withJSONObject: object)
        try data.write(to: URL(fileURLWithPath: ws.defaultsFile))
        chmod(ws.defaultsFile, 0o600)
    }
}
