import Foundation
import SXKSandbox
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Passwords and tokens stay out of output, files, argv and environment.
final class SecretsTests: XCTestCase {
    var url: URL { SharedSandbox.url }

    /// Files below the workspace that contain `needle`, except the allowed ones.
    private func files(in ws: Workspace, containing needle: String, except allowed: Set<String> = []) -> [String] {
        ws.allFiles().filter { path in
            guard !allowed.contains(path), let data = ws.read(path) else { return false }
            return data.range(of: Data(needle.utf8)) != nil
        }
    }

    func testSentinelPasswordAndTokenAppearNowhereElse() throws {
        let ws = Workspace()
        let sentinel = "SENTINEL-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        // A failed login with the sentinel, then the real one, several commands, no logout.
        let script = "login 13800000001 --password-stdin --accept-privacy; login 13800000001 --password-stdin --accept-privacy; whoami; whoami --json; keys; keys --json; orders --limit 3; orders --page-size 2 --raw; config --raw; trace on; orders --limit 1; get /api/app/config --raw"
        let r = SXK.run(["--keep-going", "--trace", "-c", script], in: ws, baseURL: url, stdin: sentinel + "\n" + SXK.password + "\n")
        XCTAssertEqual(r.errorLines.count, 1, "want exactly the failed login's error: \(r.summary)")
        let token = try XCTUnwrap(ws.token(), "no token after the second login: \(r.summary)")
        for secret in [sentinel, token] {
            XCTAssertFalse(r.stdout.contains(secret), "stdout holds a secret")
            XCTAssertFalse(r.stderr.contains(secret), "stderr holds a secret")
        }
        XCTAssertFalse(r.stderr.contains(SXK.password), "stderr holds the password")
        XCTAssertFalse(r.stdout.contains(SXK.password), "stdout holds the password")
        XCTAssertEqual(files(in: ws, containing: sentinel), [], "files holding the sentinel password")
        XCTAssertEqual(files(in: ws, containing: SXK.password), [], "files holding the password")
        XCTAssertEqual(files(in: ws, containing: token, except: [ws.tokenFile]), [], "files other than the token file holding the token")

        // Then a logout in another run: still nowhere.
        let out = SXK.run(["--trace", "logout"], in: ws, baseURL: url)
        XCTAssertEqual(out.status, 0, out.summary)
        XCTAssertFalse(out.stderr.contains(token) || out.stdout.contains(token))
        XCTAssertEqual(files(in: ws, containing: sentinel), [])
        XCTAssertEqual(files(in: ws, containing: token), [], "token left behind after logout")
    }

    func testTokenMaskedInWhoamiKeysTraceAndRaw() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let token = try XCTUnwrap(ws.token())
        let runs: [[String]] = [
            ["whoami"], ["whoami", "--json"], ["keys"], ["keys", "--json"],
            ["--trace", "orders", "--limit", "1"], ["--trace", "config", "--raw"], ["orders", "--limit", "1", "--raw"],
            ["--trace", "get", "/api/app/config", "--raw"], ["--trace", "post", "/api/app/v9/set-user", "userId=1001", "accountType=scenic", "--raw"],
            ["--trace", "-c", "orders --bogus; whoami"],
        ]
        for args in runs {
            let r = SXK.run(args, in: ws, baseURL: url)
            XCTAssertFalse(r.stdout.contains(token), "\(args): stdout has the token")
            XCTAssertFalse(r.stderr.contains(token), "\(args): stderr has the token")
        }
        // The trace runs did trace (else the check above proves nothing).
        let traced = SXK.run(["--trace", "orders", "--limit", "1"], in: ws, baseURL: url)
        XCTAssertTrue(traced.stderr.contains("/api/yf-handset-app/photog/order/listv2"), "no trace printed: \(traced.summary)")
        // A token from a post that sets a new one (set-user) is not in the file list except the token file.
        let current = try XCTUnwrap(ws.token())
        XCTAssertEqual(ws.allFiles().filter { ws.read($0)?.range(of: Data(current.utf8)) != nil }, [ws.tokenFile])
    }

    func testURLSessionDebugEnvironmentLeaksNothing() throws {
        let ws = Workspace()
        let env = ["URLSessionDebug": "1", "URLSessionDebugLibcurl": "1"]
        let login = SXK.run(["-c", "login 13800000001 --password-stdin --accept-privacy; orders --limit 1; config"], in: ws, baseURL: url,
                            stdin: SXK.password + "\n", env: env)
        XCTAssertEqual(login.status, 0, login.summary)
        let token = try XCTUnwrap(ws.token())
        XCTAssertFalse(login.stderr.contains(token) || login.stdout.contains(token), "debug output leaked the token")
        XCTAssertFalse(login.stderr.contains(SXK.password) || login.stdout.contains(SXK.password), "debug output leaked the password")
        let r = SXK.run(["orders", "--limit", "1"], in: ws, baseURL: url, env: env)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertFalse(r.stderr.contains(token) || r.stdout.contains(token), "debug output leaked the token")
        XCTAssertFalse(r.stderr.lowercased().contains("token:"), "request headers printed: \(r.summary)")
    }

    func testProcCmdlineAndEnvironHoldNoSecrets() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let token = try XCTUnwrap(ws.token())
        // A shell kept alive on an open stdin, holding the token in memory after a server command.
        let live = try LiveSXK([], in: ws, baseURL: url)
        live.send("whoami --json\norders --limit 1 --json\n")
        let ready = live.waitForStdout { $0.contains("\"phase\"") && $0.contains("orderNo") }
        XCTAssertTrue(ready, "shell did not answer: \(String(decoding: live.out.snapshot, as: UTF8.self)) \(String(decoding: live.err.snapshot, as: UTF8.self))")
        let cmdline = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(live.pid)/cmdline"))
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(live.pid)/environ"))
        XCTAssertNotNil(cmdline.range(of: Data("--state-dir".utf8)), "not the sxk process")
        for (name, data) in [("cmdline", cmdline), ("environ", environ)] {
            XCTAssertNil(data.range(of: Data(token.utf8)), "\(name) holds the token")
            XCTAssertNil(data.range(of: Data(SXK.password.utf8)), "\(name) holds the password")
        }
        XCTAssertEqual(live.finish(), 0)
        XCTAssertFalse(String(decoding: live.out.snapshot + live.err.snapshot, as: UTF8.self).contains(token))
    }

    /// With stdin not a terminal, sxk reads commands line by line; `login --password-stdin`
    /// there takes the next line as the password (and keeps it out of cmdline/environ and output).
    func testPipedLoginTakesPasswordFromNextStdinLine() throws {
        let ws = Workspace()
        let live = try LiveSXK([], in: ws, baseURL: url)
        live.send("login 13800000001 --password-stdin --accept-privacy\n\(SXK.password)\nwhoami --json\n")
        let ready = live.waitForStdout(timeout: 4) { $0.contains("\"phase\"") }
        XCTAssertTrue(ready, "piped login did not finish within 4 s (blocked reading stdin: the command reader already buffered the password line)")
        let err = String(decoding: live.err.snapshot, as: UTF8.self)
        XCTAssertFalse(err.contains("standard input is empty"), "the password line was swallowed by the command reader: \(err)")
        if let token = ws.token() {
            let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(live.pid)/environ"))) ?? Data()
            let cmdline = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(live.pid)/cmdline"))) ?? Data()
            for data in [environ, cmdline] {
                XCTAssertNil(data.range(of: Data(token.utf8)))
                XCTAssertNil(data.range(of: Data(SXK.password.utf8)))
            }
        } else {
            XCTFail("piped login stored no token: \(err)")
        }
        let status = live.finish()
        let errAll = String(decoding: live.err.finish(), as: UTF8.self)
        XCTAssertEqual(status, 0, errAll)
        let out = String(decoding: live.out.snapshot, as: UTF8.self)
        XCTAssertFalse(out.contains(SXK.password) || String(decoding: live.err.snapshot, as: UTF8.self).contains(SXK.password))
        XCTAssertTrue(out.contains("\"loggedIn\""), out)
    }
}
