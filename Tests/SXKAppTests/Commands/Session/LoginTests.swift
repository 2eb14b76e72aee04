import Foundation
import SXKSandbox
import SXKTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Login, accounts, logout and restart, against the real `sxk` binary and a loopback sandbox.
final class LoginTests: BothSpellingsTestCase {
    var url: URL { SharedSandbox.url }

    func testSingleAccountLoginThenWhoamiIsLoggedInWithMaskedSecrets() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "login 13800000001 --password-stdin --accept-privacy; whoami --json"], in: ws, baseURL: url,
                        stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        let jsonLine = try XCTUnwrap(r.stdout.split(separator: "\n").last { $0.hasPrefix("{") }, r.summary)
        let who = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(jsonLine.utf8)) as? [String: Any])
        XCTAssertEqual(who["phase"] as? String, "loggedIn")
        XCTAssertEqual(who["userId"] as? Int, 1001)
        XCTAssertEqual(who["roleCode"] as? String, "photographer")
        XCTAssertEqual(who["scenicId"] as? Int, 1)
        let token = try XCTUnwrap(ws.token(), "no token file after login")
        let shown = try XCTUnwrap(who["token"] as? String)
        XCTAssertNotEqual(shown, token)
        XCTAssertFalse(r.stdout.contains(token), "whoami printed the whole token")
        XCTAssertLessThan(shown.count, token.count / 2 + 4, "token shown is barely masked: \(shown)")
        let phone = try XCTUnwrap(who["phone"] as? String)
        XCTAssertNotEqual(phone, "13800000001")
        XCTAssertTrue(phone.contains("*"), "phone not masked: \(phone)")
        XCTAssertFalse(r.stdout.contains("13800000001"), "stdout holds the full phone")
    }

    /// Commands piped on stdin, the password line among them: the command loop reads ahead, and the
    /// login must still get the line right after its own, and the loop the line after that.
    func testPipedSessionWithThePasswordLineInTheMiddle() throws {
        let ws = Workspace()
        let script = "version\nlogin 13800000001 --password-stdin --accept-privacy\n\(SXK.password)\nwhoami --json\norders --limit 1 --json\n"
        let r = SXK.run([], in: ws, baseURL: url, stdin: script)
        XCTAssertEqual(r.status, 0, r.summary)
        let objects = r.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(objects.count, 2, r.summary)
        XCTAssertEqual(objects.first?["userId"] as? Int, 1001)
        XCTAssertEqual((objects.last?["list"] as? [Any])?.count, 1)
        XCTAssertFalse(r.stderr.contains("unknown command"), "the password line was run as a command: \(r.summary)")
        XCTAssertFalse(r.stdout.contains(SXK.password) || r.stderr.contains(SXK.password))
    }

    func testMultiAccountLoginWithAccountIndex() throws {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: url, account: "2")
        let r = SXK.run(["whoami", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let who = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(who["userId"] as? Int, 4002)
        XCTAssertEqual(who["roleCode"] as? String, "scenicAdmin")
        XCTAssertEqual(who["scenicId"] as? Int, 3)
    }

    func testMultiAccountLoginWithoutChoiceAndNoTerminalIsUsageError() {
        let ws = Workspace()
        let r = SXK.run(["login", "13800000004", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertNil(ws.token(), "a token was stored without an account choice")
    }

    func testWrongPasswordExitsOneWithOneErrorLine() {
        let ws = Workspace()
        let r = SXK.run(["login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: "not-the-password\n")
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertTrue(r.stdout.isEmpty, r.summary)
        XCTAssertNil(ws.token())
    }

    func testBadPhoneIsUsageErrorWithoutNetwork() {
        let (server, u) = try! startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        for phone in ["1380000", "23800000001", "1380000000a", "138000000011"] {
            let r = SXK.run(["login", phone, "--password-stdin", "--accept-privacy"], in: ws, baseURL: u, stdin: "x\n")
            XCTAssertEqual(r.status, 2, "\(phone): \(r.summary)")
            XCTAssertEqual(r.errorLines.count, 1, r.summary)
        }
        XCTAssertFalse(paths(server.requestLog()).contains("/api/app/v9/login"), "a bad phone reached the server")
    }

    /// A password typed where login takes none (as the phone, or after it, as other tools take one) is not
    /// echoed by the usage error; a mistyped phone of digits still is.
    func testAPasswordTypedAsAnArgumentIsNotEchoed() {
        let ws = Workspace()
        for (words, shown) in [(["login", "13800000001", "Hunter2secret", "--accept-privacy"], nil), (["login", "Hunter2secret", "--accept-privacy"], nil),
                               (["switch-account", "1", "Hunter2secret"], nil), (["login", "1380000000", "--accept-privacy"], "'1380000000'"),
                               (["login", "123456", "--accept-privacy"], nil), (["help", "login", "Hunter2secret"], nil)] as [([String], String?)] {
            let r = SXK.run(words, in: ws, baseURL: url, stdin: "")
            XCTAssertEqual(r.status, 2, "\(words): \(r.summary)")
            XCTAssertEqual(r.errorLines.count, 1, r.summary)
            XCTAssertFalse(r.stderr.contains("Hunter2secret") || r.stdout.contains("Hunter2secret") || r.stderr.contains("123456"), r.summary)
            if let shown { XCTAssertTrue(r.stderr.contains(shown), r.summary) } else { XCTAssertTrue(r.stderr.contains("not shown"), r.summary) }
        }
    }

    /// An account selector that is no id, list number or ID:TYPE may be a password typed in its place:
    /// the refusal lists the accounts without echoing it; an id that is not there is named.
    func testAnAccountSelectorThatMayBeAPasswordIsNotEchoed() {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: url, account: "1")
        let secret = SXK.run(["switch-account", "Hunter2secret"], in: ws, baseURL: url)
        XCTAssertNotEqual(secret.status, 0, secret.summary)
        XCTAssertFalse(secret.stderr.contains("Hunter2secret"), secret.summary)
        XCTAssertTrue(secret.stderr.contains("no such account in this login (what was typed is not shown"), secret.summary)
        let id = SXK.run(["switch-account", "9999"], in: ws, baseURL: url)
        XCTAssertTrue(id.stderr.contains("no account '9999' in this login"), id.summary)
    }

    func testPrivacyNotAcceptedOnFreshStateIsUsageError() {
        let ws = Workspace()
        let r = SXK.run(["login", "13800000001", "--password-stdin"], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertTrue(r.errorLines.first?.contains("privacy") ?? false, r.summary)
        XCTAssertNil(ws.token())
    }

    func testAccountsAndSwitchAccountInOneSession() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "login 13800000004 --password-stdin --accept-privacy --account 1; accounts --json; switch-account 4003; whoami --json"],
                        in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        let lines = r.stdout.split(separator: "\n").filter { $0.hasPrefix("[") || $0.hasPrefix("{") }
        XCTAssertEqual(lines.count, 2, r.summary)
        let accounts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [[String: Any]])
        XCTAssertEqual(accounts.compactMap { $0["userId"] as? Int }, [4001, 4002, 4003])
        XCTAssertEqual(accounts.filter { $0["current"] as? Bool == true }.compactMap { $0["userId"] as? Int }, [4001])
        let who = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        XCTAssertEqual(who["userId"] as? Int, 4003)
        XCTAssertEqual(who["roleCode"] as? String, "storeAdmin")
        XCTAssertEqual(who["storeId"] as? Int, 301)
    }

    func testLogoutKeepsLastPhoneAndPrivacy() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let r = SXK.run(["logout"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertNil(ws.token(), "token file kept after logout")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.tokenFile))
        let defaults = try ws.defaultsObject()
        XCTAssertEqual(defaults["key_last_login_username"] as? String, "13800000001")
        XCTAssertEqual(defaults["key_privacy_agreement_accepted"] as? Bool, true)
        XCTAssertNil(defaults["key_in_user_id"], "account context kept after logout")
        XCTAssertNil(defaults["key_in_phone"])
        // Next login with no phone and no --accept-privacy uses the kept values.
        let again = SXK.run(["login", "--password-stdin"], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(again.status, 0, again.summary)
        XCTAssertNotNil(ws.token())
    }

    func testRestartRestoresFromSnapshotWithoutNetwork() throws {
        let (server, u) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: u)
        server.resetRequestLog()
        let r = SXK.run(["whoami", "--json"], in: ws, baseURL: u)
        XCTAssertEqual(r.status, 0, r.summary)
        let who = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(who["userId"] as? Int, 1001)
        XCTAssertTrue(["restoring", "loggedIn"].contains(who["phase"] as? String ?? ""), r.summary)
        XCTAssertEqual(paths(server.requestLog()), [], "whoami after restart made requests")
        let keys = SXK.run(["keys", "--json"], in: ws, baseURL: u)
        XCTAssertEqual(keys.status, 0, keys.summary)
        XCTAssertEqual(paths(server.requestLog()), [], "keys after restart made requests")
        let orders = SXK.run(["orders", "--limit", "1", "--json"], in: ws, baseURL: u)
        XCTAssertEqual(orders.status, 0, orders.summary)
        XCTAssertTrue(paths(server.requestLog()).contains("/api/yf-handset-app/photog/order/listv2"))
    }

    func testRestartAfterTokenExpiryPrintsOneLineExitsThreeAndRemovesToken() throws {
        let (server, u) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: u)
        server.expireTokens()
        let r = SXK.run(["orders", "--limit", "3"], in: ws, baseURL: u)
        XCTAssertEqual(r.status, 3, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        let expiredLines = r.stderrLines.filter { $0.lowercased().contains("expired") }
        XCTAssertEqual(expiredLines.count, 1, "want one session-expired line: \(r.summary)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.tokenFile), "token file kept after expiry")
        let who = SXK.run(["whoami", "--json"], in: ws, baseURL: u)
        XCTAssertEqual((try? who.json() as? [String: Any])?["phase"] as? String, "loggedOut", who.summary)
    }

    /// At app level: the token expires while `profile`'s real-name and bank-card calls are both
    /// in flight (the sandbox holds each request 1 s; the tokens are expired once both have arrived).
    /// Both calls see the expiry; the shell prints one line about it, resets once (the token file is
    /// removed once and the snapshot cleared in one save) and ends logged out with exit 3.
    func testExpiryWhileTwoCallsAreInFlightNotifiesAndResetsOnce() throws {
        let (server, u) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: u)
        let realName = "/api/yf-handset-app/photog/real-name/info"
        let bankCard = "/api/yf-handset-app/photog/wallet/bank-card/info"
        server.resetRequestLog()
        server.setLatency(milliseconds: 1_000)
        let watch = try XCTUnwrap(DirectoryEvents(ws.profileDir), "inotify unavailable")
        let live = try LiveSXK(["--keep-going", "-c", "profile; whoami --json"], in: ws, baseURL: u)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let seen = Set(paths(server.requestLog()))
            if seen.contains(realName) && seen.contains(bankCard) { break }
            usleep(5_000)
        }
        let log = server.requestLog()
        XCTAssertTrue(paths(log).contains(realName) && paths(log).contains(bankCard), "the side calls never arrived: \(paths(log))")
        watch.mark()
        server.expireTokens()
        let status = live.finish(timeout: 30)
        server.setLatency(milliseconds: 0)
        let stderr = String(decoding: live.err.finish(), as: UTF8.self)
        let stdout = String(decoding: live.out.finish(), as: UTF8.self)
        let summary = "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)"
        XCTAssertEqual(status, 3, summary)
        let lines = stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.lowercased().contains("expired") }.count, 1, "want one session-expired line: \(summary)")
        XCTAssertEqual(lines.filter { $0.hasPrefix("error:") }.count, 1, summary)
        // Both calls were on the wire with the same token when it expired.
        let side = log.filter { $0.path == realName || $0.path == bankCard }
        XCTAssertEqual(side.count, 2, summary)
        XCTAssertEqual(Set(side.compactMap { $0.header("token") }).count, 1)
        let events = watch.sinceMark()
        watch.stop()
        XCTAssertEqual(events.filter { $0 == "deleted token" }.count, 1, "token file removals after expiry: \(events)")
        XCTAssertEqual(events.filter { $0 == "replaced defaults.json" }.count, 1, "snapshot saves after expiry: \(events)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.tokenFile))
        let who = stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(who?["phase"] as? String, "loggedOut", summary)
        XCTAssertEqual(who?["sessionResets"] as? Int, 1, "two expiry answers must reset the session once: \(summary)")
        let defaults = try ws.defaultsObject()
        XCTAssertNil(defaults["key_in_user_id"], "snapshot kept after expiry")
        XCTAssertEqual(defaults["key_last_login_username"] as? String, "13800000001", "last phone lost")
    }

    func testRestartWithSandboxDownExitsFourAndKeepsSnapshot() throws {
        let (server, u) = try startSandbox()
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: u)
        let tokenBefore = ws.token()
        let defaultsBefore = ws.read(ws.defaultsFile)
        server.stop()
        let r = SXK.run(["orders", "--limit", "3"], in: ws, baseURL: u, timeout: 30)
        XCTAssertEqual(r.status, 4, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertEqual(ws.token(), tokenBefore, "token changed while offline")
        let defaults = try ws.defaultsObject()
        XCTAssertEqual(defaults["key_in_user_id"] as? Int, 1001, "snapshot lost while offline")
        XCTAssertNotNil(defaultsBefore)
        let who = SXK.run(["whoami", "--json"], in: ws, baseURL: u)
        XCTAssertEqual((try? who.json() as? [String: Any])?["userId"] as? Int, 1001, who.summary)
    }
}

/// File events in one folder (inotify), as "deleted NAME" / "replaced NAME" / "wrote NAME", in order.
final class DirectoryEvents: @unchecked Sendable {
    private let fd: Int32
    private let dir: String
    private var sentinels = 0
    private let lock = NSLock()
    private var events: [String] = []
    private var markIndex = 0
    private var stopped = false

    init?(_ dir: String) {
        self.dir = dir
        fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_DELETE) | UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)
        guard inotify_add_watch(fd, dir, mask) >= 0 else { close(fd); return nil }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while !lock.withLock({ stopped }) {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&pfd, 1, 50) <= 0 { continue }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                var offset = 0
                while offset + 16 <= n {
                    let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                    let len = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                    let nameBytes = buffer[(offset + 16)..<min(n, offset + 16 + len)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    let what = mask & UInt32(IN_DELETE) != 0 ? "deleted" : mask & UInt32(IN_MOVED_TO) != 0 ? "replaced" : "wrote"
                    lock.withLock { events.append("\(what) \(name)") }
                    offset += 16 + len
                }
            }
        }
    }

    /// Later calls to `sinceMark` see only what happens after this: the events of writes that
    /// already happened are read first (a file of its own is written and its event waited for:
    /// inotify reports in order).
    func mark() {
        let index = flush()
        lock.withLock { markIndex = index }
    }

    /// Events after the mark, every one so far read (as `mark`), sxk's only.
    func sinceMark() -> [String] {
        let end = flush()
        return lock.withLock { Array(events[markIndex..<end]).filter { !$0.hasSuffix(".events-sentinel") } }
    }

    /// Writes a sentinel file and waits (up to 10 s) for its event; returns the index after it.
    private func flush() -> Int {
        let name = lock.withLock { sentinels += 1; return "\(sentinels).events-sentinel" }
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data()))
        unlink(dir + "/" + name)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let i = lock.withLock({ events.firstIndex(of: "deleted \(name)") }) { return i + 1 }
            usleep(2_000)
        }
        return lock.withLock { events.count }
    }

    /// Ends the reading thread and closes the descriptor.
    func stop() {
        lock.withLock { stopped = true }
        usleep(100_000)
        close(fd)
    }
}
