import Foundation
import SXKSandbox
import XCTest

/// Answers a sloppy or hostile server gives where the app expects others: each is said as what it
/// is, with its documented exit code, and changes nothing it should not.
final class ServerRefusalsTests: SandboxTestCase {
    private let login = "/api/app/v9/login"
    private let orders = "/api/yf-handset-app/photog/order/listv2"

    /// A 401 to `v9/login` is a failed login (exit 1), not an expired session (3): the login went
    /// without the session's token, and the session it would have replaced goes on.
    func testA401ToTheLoginIsAFailedLoginAndTheSessionGoesOn() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let token = ws.token()
        server.resetRequestLog()
        server.injectFault(SandboxFault(path: login, kind: .status401))
        let r = SXK.run(["login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: "sandbox123\n")
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertFalse(r.stderr.contains("session expired"), r.summary)
        XCTAssertTrue(r.stderr.contains("HTTP 401"), r.summary)
        let sent = server.requestLog().filter { $0.path == login }
        XCTAssertEqual(sent.count, 1)
        XCTAssertFalse(sent.contains { $0.headers.contains { $0.name == "token" } }, "the login carried the session's token")
        XCTAssertEqual(ws.token(), token, "the session it would have replaced was ended")
        XCTAssertEqual(SXK.run(["--revalidate", "whoami", "--jq", ".phase"], in: ws, baseURL: url).stdout, "loggedIn\n")
    }

    /// A set-user answer with an empty token fails the login naming the field, before any request
    /// is sent with it; nothing is kept.
    func testAnEmptyTokenFromSetUserIsRefusedBeforeAnyRequestCarriesIt() throws {
        let ws = Workspace()
        server.injectFault(SandboxFault(path: "/api/app/v9/set-user", kind: .tokenEmpty))
        let r = SXK.run(["login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: "sandbox123\n")
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines, ["error: set-user: POST /api/app/v9/set-user: unexpected response: field 'data.token' is empty"], r.summary)
        let paths = server.requestLog().map(\.path)
        XCTAssertTrue(paths.contains("/api/app/v9/set-user"), "\(paths)")
        XCTAssertFalse(paths.contains { $0.hasPrefix("/api/yf-handset-app/") }, "a request followed the empty token: \(paths)")
        XCTAssertNil(ws.token())
    }

    /// set-user answering with another account than the one asked for: a login or switch takes the
    /// answer's account, as the app stores what set-user returns, and says so; `compare` does not use
    /// that token, since its data would show under the account asked for.
    func testASetUserAnswerForAnotherAccountIsSaid() throws {
        let ws = Workspace()
        server.injectFault(SandboxFault(path: "/api/app/v9/set-user", kind: .userOther))
        let r = SXK.run(["login", "13800000004", "--account", "2", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: "sandbox123\n")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderrLines.contains { $0.hasPrefix("warning: set-user was asked for account 4002 (scenic) and answered with account 4003 (scenic)") }, r.summary)
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(who["userId"] as? Int, 4003)

        server.injectFault(SandboxFault(path: "/api/app/v9/set-user", kind: .userOther))
        let probe = SXK.run(["-c", "compare --as account:4001 orders --page-size 1"], in: ws, baseURL: url)
        // The identity's row says why it has no data, as for any set-user refusal.
        XCTAssertEqual(probe.status, 0, probe.summary)
        XCTAssertTrue(probe.stdout.contains("set-user for account 4001 (scenic) answered with account 4002 (scenic): not used"), probe.summary)
        XCTAssertEqual(server.requestLog().filter { $0.path.hasSuffix("/order/list") || $0.path.hasSuffix("/listv2") }.count, 1, "a request went out with the other account's token")
        server.clearFaults()
        let asked = SXK.run(["switch-account", "4001"], in: ws, baseURL: url)
        XCTAssertEqual(asked.status, 0, asked.summary)
        XCTAssertFalse(asked.stderr.contains("answered with account"), asked.summary)
    }

    /// `"list": null` beside a total is said as the contradiction it is, not as a page past the end.
    func testAListNullBesideATotalIsSaid() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.injectFault(SandboxFault(path: orders, kind: .listNull))
        let r = SXK.run(["orders"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderrLines.contains { $0.hasPrefix("warning: the server listed no orders on page 1 though its total is ") }, r.summary)
        XCTAssertFalse(r.stderr.contains("past the last page"), r.summary)
    }

    /// A replayed location detail call that fails is the run's status in `context diff` as in `home`
    /// (1 for an error answer); the dialog it decides is undecided in both.
    func testAFailedLocationDetailIsContextDiffsStatusAsHomes() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        XCTAssertEqual(SXK.run(["location", "remind", "30"], in: ws, baseURL: url).status, 0)
        let detail = "/api/yf-handset-app/photog/loacation/detail"
        for command in [["context", "diff", "--json"], ["home", "--json"]] {
            server.injectFault(SandboxFault(path: detail, kind: .status500))
            let r = SXK.run(command, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 1, "\(command): \(r.summary)")
            let json = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
            XCTAssertEqual(json["dialog"] as? String, "undecided", "\(command): \(r.summary)")
            XCTAssertEqual(r.stderrLines.filter { $0.hasPrefix("warning: the app's call #") && $0.contains(detail) }.count, 1, "\(command): \(r.summary)")
        }
        server.clearFaults()
        XCTAssertEqual(SXK.run(["context", "diff"], in: ws, baseURL: url).status, 0)
    }
}
