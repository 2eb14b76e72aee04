import Foundation
import SXKSandbox
import XCTest

/// Each `--base-url` (and `env use URL`) keeps its own profile, named from host and port, so a
/// session on one backend is never sent to, or expired by, another.
final class ProfilePerBackendTests: XCTestCase {
    var url: URL { SharedSandbox.url }
    var other: SandboxServer!
    var otherURL: URL!

    override func setUpWithError() throws {
        other = SandboxServer(config: SandboxConfig())
        otherURL = try other.start()
    }

    override func tearDown() {
        other?.stop()
    }

    private func whoami(_ ws: Workspace, _ baseURL: URL) throws -> [String: Any] {
        let r = SXK.run(["whoami", "--json"], in: ws, baseURL: baseURL)
        XCTAssertEqual(r.status, 0, r.summary)
        return try XCTUnwrap(try r.json() as? [String: Any], r.summary)
    }

    func testTwoBaseURLsKeepTwoProfiles() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let first = "127.0.0.1-\(url.port!)", second = "127.0.0.1-\(otherURL.port!)"
        XCTAssertTrue(FileManager.default.fileExists(atPath: ws.stateDir + "/\(first)/token"), "\(ws.allFiles(under: ws.stateDir))")

        other.resetRequestLog()
        XCTAssertEqual(try whoami(ws, otherURL)["phase"] as? String, "loggedOut", "the other backend saw the first one's session")
        let orders = SXK.run(["orders"], in: ws, baseURL: otherURL)
        XCTAssertEqual(orders.status, 3, orders.summary)
        XCTAssertEqual(other.requestLog().count, 0, "a request went to the other backend")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/\(second)/token"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/custom"), "the shared profile is gone")

        // Logging in on the second backend leaves the first one's session as it was.
        SXK.login("13800000002", in: ws, baseURL: otherURL)
        XCTAssertEqual(try whoami(ws, url)["userId"] as? Int, 1001)
        XCTAssertEqual(try whoami(ws, otherURL)["userId"] as? Int, 2001)
        XCTAssertNotEqual(ws.read(ws.stateDir + "/\(first)/token"), ws.read(ws.stateDir + "/\(second)/token"))
    }

    /// `env use URL` switches to that URL's profile, and `env` names it.
    func testEnvUseURLSwitchesToThatBackendsProfile() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let r = SXK.run(["-c", "env use \(otherURL.absoluteString); env --json; whoami --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let objects = r.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(objects.count, 2, r.summary)
        XCTAssertEqual(objects.first?["profile"] as? String, "127.0.0.1-\(otherURL.port!)", r.summary)
        XCTAssertEqual(objects.last?["phase"] as? String, "loggedOut", r.summary)
    }

    /// A profile's session belongs to the backend that issued its token. Named with another backend
    /// (`--profile P --base-url OTHER`, a `SXK_PROFILE` left set, `env use` with the profile pinned),
    /// the token is kept and never sent there, `backend.json` still names its own backend, and every
    /// command that needs the session says why in one line (exit 3), as `whoami` does. Back on its
    /// own backend it works; a login on the other replaces it.
    func testAProfilesTokenIsNeverSentToAnotherBackend() throws {
        let ws = Workspace()
        let login = SXK.run(["--profile", "prod", "login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: "sandbox123\n")
        XCTAssertEqual(login.status, 0, login.summary)
        let dir = ws.stateDir + "/prod"
        let token = try XCTUnwrap(ws.read(dir + "/token"))
        let backend = try XCTUnwrap(ws.read(dir + "/backend.json"))
        let defaults = try XCTUnwrap(ws.read(dir + "/defaults.json"))
        other.resetRequestLog()

        let r = SXK.run(["--keep-going", "-c", "orders --limit 1; home; context diff; whoami --json"], in: ws, baseURL: otherURL, env: ["SXK_PROFILE": "prod"])
        XCTAssertEqual(r.status, 3, r.summary)
        XCTAssertEqual(other.requestLog().filter { $0.header("token") != nil }.count, 0, "the token went to another backend: \(r.summary)")
        XCTAssertEqual(r.stderr.components(separatedBy: "profile prod's session belongs to \(url.absoluteString)").count - 1, 3, r.summary)
        // Each command's error says it: the start's warning is not said again beside them.
        XCTAssertFalse(r.stderr.contains("holds a session of"), r.summary)
        XCTAssertTrue(r.stdout.contains("\"tokenOfBackend\":\"\(url.absoluteString)\""), r.summary)
        XCTAssertEqual(ws.read(dir + "/token"), token)
        XCTAssertEqual(ws.read(dir + "/backend.json"), backend)
        XCTAssertEqual(ws.read(dir + "/defaults.json"), defaults)

        // env use with the profile pinned: the same, and back on its own backend the session works.
        let pinned = SXK.run(["--profile", "prod", "--keep-going", "-c", "env use \(otherURL.absoluteString); orders --limit 1; env use -; orders --limit 1 --json"], in: ws, baseURL: url)
        XCTAssertEqual(pinned.status, 3, pinned.summary)
        XCTAssertEqual(pinned.errorLines.count, 1, pinned.summary)
        XCTAssertTrue(pinned.stdout.contains("\"total\""), pinned.summary)
        XCTAssertEqual(other.requestLog().filter { $0.header("token") != nil }.count, 0, pinned.summary)

        // A login there replaces the session, and the profile is that backend's from then on.
        let relogin = SXK.run(["--profile", "prod", "login", "13800000002", "--password-stdin", "--accept-privacy"], in: ws, baseURL: otherURL, stdin: "sandbox123\n")
        XCTAssertEqual(relogin.status, 0, relogin.summary)
        XCTAssertNotEqual(ws.read(dir + "/token"), token)
        let alone = SXK.run(["--profile", "prod", "whoami", "--jq", ".baseURL"], in: ws, baseURL: nil)
        XCTAssertEqual(alone.stdout, otherURL.absoluteString + "\n", alone.summary)
    }

    /// The owner is read when a token is about to be used, not once at start: a token another process
    /// stores later for another backend is kept back too, in either direction, and a profile whose
    /// token has no backend on record is not sent to a backend it is not named after.
    func testATokenStoredLaterIsJudgedByItsOwnBackend() throws {
        let ws = Workspace()
        func login(_ phone: String, _ base: URL) {
            let r = SXK.run(["--profile", "prod", "login", phone, "--password-stdin", "--accept-privacy"], in: ws, baseURL: base, stdin: "sandbox123\n")
            XCTAssertEqual(r.status, 0, r.summary)
        }
        login("13800000001", url)
        // A shell on the other backend, reading commands as they come.
        let shell = try LiveSXK(["--profile", "prod", "--keep-going"], in: ws, baseURL: otherURL)
        defer { _ = shell.finish() }
        shell.send("whoami --jq .tokenOfBackend\n")
        XCTAssertTrue(shell.waitForStdout { $0.contains(self.url.absoluteString) })
        // Another process logs in again on the profile's own backend: a new token, still not this backend's.
        login("13800000002", url)
        other.resetRequestLog()
        shell.send("orders --limit 1\n")
        shell.send("whoami --jq .phase\n")
        XCTAssertTrue(shell.waitForStdout { $0.contains("loggedOut") }, "\(other.requestLog().map(\.path))")
        XCTAssertEqual(other.requestLog().filter { $0.header("token") != nil }.count, 0, "the new token went to the other backend")
        XCTAssertNotNil(ws.read(ws.stateDir + "/prod/token"), "the profile's new session was lost")
        // The shell says what happened: another process stored another backend's session, not a logout.
        let said = String(decoding: shell.err.snapshot, as: UTF8.self)
        XCTAssertTrue(said.contains("another sxk process stored a session of \(url.absoluteString) in this profile"), said)
        XCTAssertFalse(said.contains("ended this profile's session"), said)

        // No backend on record, a profile not named after this backend: kept back.
        try FileManager.default.removeItem(atPath: ws.stateDir + "/prod/backend.json")
        other.resetRequestLog()
        let unknown = SXK.run(["--profile", "prod", "orders", "--limit", "1"], in: ws, baseURL: otherURL)
        XCTAssertEqual(unknown.status, 3, unknown.summary)
        XCTAssertTrue(unknown.stderr.contains("has no backend on record (no backend.json)"), unknown.summary)
        XCTAssertEqual(other.requestLog().filter { $0.header("token") != nil }.count, 0, unknown.summary)
        XCTAssertNotNil(ws.read(ws.stateDir + "/prod/token"))
        // The same URL spelled in capitals is the same backend.
        let spelled = URL(string: url.absoluteString.replacingOccurrences(of: "http://", with: "HTTP://"))!
        let first = Workspace()
        XCTAssertEqual(SXK.run(["--profile", "p", "login", "13800000001", "--password-stdin", "--accept-privacy"], in: first, baseURL: url, stdin: "sandbox123\n").status, 0)
        let same = SXK.run(["--profile", "p", "orders", "--limit", "1", "--json"], in: first, baseURL: spelled)
        XCTAssertEqual(same.status, 0, same.summary)
        XCTAssertFalse(same.stderr.contains("not sent"), same.summary)
    }

    /// What the review of the first version found: a switch of account from another backend, a
    /// token file refused for now, an unreadable `backend.json`, a raw request sent without the
    /// kept token, the line said twice, and an import over a logged-in session.
    func testTheOwnerIsRecordedWithEveryTokenAndNeverGuessed() throws {
        let ws = Workspace()
        let dir = ws.stateDir + "/q"
        func backendURL() -> String? {
            (try? JSONSerialization.jsonObject(with: ws.read(dir + "/backend.json") ?? Data()) as? [String: Any])?["baseURL"] as? String
        }
        XCTAssertEqual(SXK.run(["--profile", "q", "login", "13800000004", "--password-stdin", "--accept-privacy", "--account", "1"],
                               in: ws, baseURL: url, stdin: "sandbox123\n").status, 0)
        // One line, not a warning and then the same as an error; a raw request without the token says it too.
        let once = SXK.run(["--profile", "q", "orders"], in: ws, baseURL: otherURL)
        XCTAssertEqual(once.status, 3, once.summary)
        XCTAssertEqual(once.stderrLines.count, 1, once.summary)
        let raw = SXK.run(["--profile", "q", "get", "/api/yf-handset-app/userinfo"], in: ws, baseURL: otherURL)
        XCTAssertEqual(raw.status, 3, raw.summary)
        XCTAssertTrue(raw.stderr.contains("session belongs to \(url.absoluteString)"), raw.summary)
        XCTAssertFalse(raw.stderr.contains("log in again"), raw.summary)
        // A command that needs no session still hears it, once.
        let config = SXK.run(["--profile", "q", "get", "/api/app/config", "--json"], in: ws, baseURL: otherURL)
        XCTAssertEqual(config.status, 0, config.summary)
        XCTAssertEqual(config.stderr.components(separatedBy: "holds a session of").count - 1, 1, config.summary)

        // Switching account from the other backend logs in there: the new token is that backend's.
        let switched = SXK.run(["--profile", "q", "switch-account", "2", "--password-stdin"], in: ws, baseURL: otherURL, stdin: "sandbox123\n")
        XCTAssertEqual(switched.status, 0, switched.summary)
        XCTAssertEqual(backendURL(), otherURL.absoluteString)
        let after = SXK.run(["--profile", "q", "whoami", "--jq", ".phase"], in: ws, baseURL: otherURL)
        XCTAssertEqual(after.stdout, "restoring\n", after.summary)

        // A record others could read is made private at the start, with one warning, as every state file;
        // a read that only looks (the global profile's backend, named before the start) changes nothing.
        XCTAssertEqual(chmod(dir + "/backend.json", 0o640), 0)
        let looseRecord = SXK.run(["--profile", "q", "whoami"], in: ws, baseURL: otherURL)
        XCTAssertEqual(looseRecord.status, 0, looseRecord.summary)
        XCTAssertEqual(looseRecord.stderr.components(separatedBy: "backend.json was readable by group (mode 640); made private (0600)").count - 1, 1,
                       looseRecord.summary)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: dir + "/backend.json")[.posixPermissions] as? Int, 0o600)

        // A token file refused for now (a loose mode) is still a session: the backend stays its own.
        XCTAssertEqual(chmod(dir + "/token", 0o644), 0)
        XCTAssertEqual(SXK.run(["--profile", "q", "whoami"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(backendURL(), otherURL.absoluteString, "a refused token's backend was taken over")
        XCTAssertEqual(chmod(dir + "/token", 0o600), 0)

        // An unreadable record: the token is kept back, and the profile alone names no backend.
        try Data("{\"environment\": \"custom\",".utf8).write(to: URL(fileURLWithPath: dir + "/backend.json"))
        other.resetRequestLog()
        let unreadable = SXK.run(["--profile", "q", "orders"], in: ws, baseURL: otherURL)
        XCTAssertEqual(unreadable.status, 3, unreadable.summary)
        XCTAssertEqual(other.requestLog().filter { $0.header("token") != nil }.count, 0, unreadable.summary)
        // The line says why the backend is unknown: the record is there but cannot be read.
        XCTAssertTrue(unreadable.stderr.contains("backend.json cannot be read"), unreadable.summary)
        let alone = SXK.run(["--profile", "q", "whoami"], in: ws, baseURL: nil)
        XCTAssertEqual(alone.status, 2, alone.summary)
        XCTAssertTrue(alone.stderr.contains("backend.json sxk cannot read"), alone.summary)

        // A device's state is not imported over a logged-in session; over an earlier import it is.
        let export = ws.root + "/device.json"
        try JSONSerialization.data(withJSONObject: ["key_in_user_id": 1001, "key_in_account_type": "scenic"]).write(to: URL(fileURLWithPath: export))
        let refused = SXK.run(["import-defaults", export, "--profile", "q"], in: ws, baseURL: otherURL)
        XCTAssertEqual(refused.status, 1, refused.summary)
        XCTAssertTrue(refused.stderr.contains("holds a logged-in session"), refused.summary)
        XCTAssertNotNil(ws.read(dir + "/token"))
        XCTAssertEqual(SXK.run(["import-defaults", export, "--profile", "dev"], in: ws, baseURL: otherURL).status, 0)
        XCTAssertEqual(SXK.run(["import-defaults", export, "--profile", "dev"], in: ws, baseURL: otherURL).status, 0)
    }

    /// Two logins on one profile to two backends at once: whichever writes last, its token and its
    /// backend are the pair on disk (both are written under the profile lock), so the profile's
    /// token works on the backend it names, and the account snapshot beside it is that token's
    /// account (the other login's later save is refused, not written over it).
    func testConcurrentLoginsToTwoBackendsLeaveAMatchingPair() throws {
        let ws = Workspace()
        let stateDir = ws.stateDir, env = ws.environment
        for round in 0..<8 {
            // Half the rounds with a slow backend, whose login ends well after the other's.
            let slow = round % 2 == 1
            other.setLatency(milliseconds: slow ? 150 : 0)
            let group = DispatchGroup()
            for (phone, base) in [("13800000002", otherURL.absoluteString), ("13800000001", url.absoluteString)] {
                group.enter()
                if slow && phone == "13800000001" { usleep(300_000) }
                DispatchQueue.global().async {
                    // Either login may lose the race; what is checked is the state the winner leaves.
                    _ = SXK.runProcess(["--base-url", base, "--state-dir", stateDir, "--profile", "r", "login", phone, "--password-stdin", "--accept-privacy"],
                                       env: env, stdin: Data("sandbox123\n".utf8), timeout: 30)
                    group.leave()
                }
            }
            group.wait()
            let owner = try XCTUnwrap((try JSONSerialization.jsonObject(with: XCTUnwrap(ws.read(ws.stateDir + "/r/backend.json"))) as? [String: Any])?["baseURL"] as? String)
            let stored = try JSONSerialization.jsonObject(with: XCTUnwrap(ws.read(ws.stateDir + "/r/defaults.json"))) as? [String: Any]
            let r = SXK.run(["--profile", "r", "profile", "--json"], in: ws, baseURL: URL(string: owner)!)
            XCTAssertEqual(r.status, 0, "round \(round): the token on disk is not \(owner)'s: \(r.summary)")
            let served = ((try? r.json()) as? [String: Any])?["userInfo"] as? [String: Any]
            XCTAssertEqual(stored?["key_in_user_id"] as? Int, served?["userId"] as? Int,
                           "round \(round): the account snapshot is not the token's account")
        }
        other.setLatency(milliseconds: 0)
    }

    /// `home --apply` whose replay saw the token rejected clears the login state, but not a login
    /// another process made while the replay waited for the server: that session stays, and the
    /// apply says why it wrote nothing (exit 1).
    func testAnApplyAfterARejectionLeavesALoginMadeMeanwhile() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.run(["--profile", "r", "login", "13800000001", "--password-stdin", "--accept-privacy"],
                               in: ws, baseURL: otherURL, stdin: "sandbox123\n").status, 0)
        other.expireTokens()
        other.setLatency(milliseconds: 600)
        defer { other.setLatency(milliseconds: 0) }
        nonisolated(unsafe) var apply: RunResult?
        let done = DispatchSemaphore(value: 0)
        let args = ["--base-url", otherURL.absoluteString, "--state-dir", ws.stateDir, "--profile", "r", "home", "--apply"], env = ws.environment
        DispatchQueue.global().async {
            apply = SXK.runProcess(args, env: env, stdin: Data(), timeout: 30)
            done.signal()
        }
        usleep(250_000)
        XCTAssertEqual(SXK.run(["--profile", "r", "login", "13800000002", "--password-stdin", "--accept-privacy"],
                               in: ws, baseURL: url, stdin: "sandbox123\n").status, 0)
        done.wait()
        let r = try XCTUnwrap(apply)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertTrue(r.stderr.contains("another sxk process logged in on this profile meanwhile"), r.summary)
        let who = SXK.run(["--profile", "r", "profile", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(who.status, 0, who.summary)
        XCTAssertEqual(((try? who.json()) as? [String: Any]).flatMap { $0["userInfo"] as? [String: Any] }?["userId"] as? Int, 2001, who.summary)
    }

    /// A profile named after its backend whose record is gone (older state) gets it back from that
    /// backend named on the command line, so `--profile NAME` alone finds it again.
    func testAnOwnNamedProfileGetsItsRecordBack() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let record = ws.profileDir + "/backend.json"
        try FileManager.default.removeItem(atPath: record)
        XCTAssertEqual(SXK.run(["whoami"], in: ws, baseURL: url).status, 0)
        XCTAssertNotNil(ws.read(record))
        let alone = SXK.run(["--profile", ws.profile, "whoami", "--jq", ".baseURL"], in: ws, baseURL: nil)
        XCTAssertEqual(alone.stdout, url.absoluteString + "\n", alone.summary)
    }
}
