import Foundation
import SXKSandbox
import XCTest

/// What a new operator meets on the first day, through the real binary: stdout is data alone in
/// every mode, the embedded sandbox keeps a login across runs, profiles remember their backend.
final class FirstDayTests: XCTestCase {
    /// Every non-empty stdout line parsed as one JSON value (what `| jq` needs of NDJSON or compact JSON).
    private func jsonLines(_ r: RunResult, file: StaticString = #filePath, line: UInt = #line) -> [Any] {
        r.stdout.split(separator: "\n").compactMap { text in
            let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            XCTAssertNotNil(parsed, "stdout line is not JSON: \(text)\n\(r.summary)", file: file, line: line)
            return parsed
        }
    }

    // MARK: stdout carries data only

    /// The README's own pipeline: `login …; orders --all --ndjson` into jq.
    func testLoginThenOrdersNDJSONIsDataOnlyOnStdout() {
        let ws = Workspace()
        let r = SXK.run(["--sandbox", "-c", "login 13800000001 --password-stdin --accept-privacy; orders --all --limit 5 --ndjson"],
                        in: ws, baseURL: nil, stdin: "sandbox123\n")
        XCTAssertEqual(r.status, 0, r.summary)
        let rows = jsonLines(r)
        XCTAssertEqual(rows.count, 5, r.summary)
        XCTAssertTrue(rows.allSatisfy { ($0 as? [String: Any])?["orderNo"] is String }, r.summary)
        XCTAssertTrue(r.stderrLines.contains { $0.hasPrefix("logged in as 西湖景区 · 摄影师") }, r.summary)
    }

    /// Every command that logs in, switches or confirms: its line is on stderr, stdout holds rows only.
    func testSwitchesAndConfirmationsGoToStderr() {
        let ws = Workspace()
        let script = [
            "login 13800000004 --password-stdin --accept-privacy --account 4003", "orders --limit 2 --ndjson",
            "store 301", "switch-account 4002", "role scenicAdmin", "scenic 3", "store 302", "orders --limit 1 --ndjson",
            "trace on", "trace off", "timing off", "location online --json", "env use sandbox --json", "logout",
        ].joined(separator: "; ")
        let r = SXK.run(["--sandbox", "-c", script], in: ws, baseURL: nil, stdin: "sandbox123\n")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(jsonLines(r).count, 5, r.summary)
        for expected in ["logged in as 千岛湖湖畔影棚", "now role storeAdmin", "switched to 千岛湖 · 景区管理员", "now role scenicAdmin",
                         "trace on", "trace off", "logged out", "online: stored locally only",
                         "now on sandbox http://127.0.0.1:"] {
            XCTAssertTrue(r.stderrLines.contains { $0.hasPrefix(expected) }, "no '\(expected)' on stderr: \(r.summary)")
        }
    }

    /// `import-defaults`'s report and "now on profile" are a status: stdout is empty, or JSON with --json.
    func testImportDefaultsReportsOnStderr() throws {
        let ws = Workspace()
        let export = ws.root + "/device.json"
        let device: [String: Any] = ["key_last_login_username": "13800000004", "key_privacy_agreement_accepted": true,
                                     "key_in_user_id": 4001, "key_in_account_type": "scenic", "key_in_role_code": "photographer"]
        try JSONSerialization.data(withJSONObject: device).write(to: URL(fileURLWithPath: export))
        let plain = SXK.run(["import-defaults", export, "--profile", "dev"], in: ws, baseURL: nil)
        XCTAssertEqual(plain.status, 0, plain.summary)
        XCTAssertEqual(plain.stdout, "", plain.summary)
        XCTAssertTrue(plain.stderrLines.contains { $0.hasPrefix("now on profile dev") }, plain.summary)
        let json = SXK.run(["--json", "import-defaults", export, "--profile", "dev2"], in: ws, baseURL: nil)
        XCTAssertEqual(json.status, 0, json.summary)
        XCTAssertEqual((try json.json() as? [String: Any])?["profile"] as? String, "dev2", json.summary)
    }

    // MARK: the embedded sandbox keeps logins across runs

    /// Two `sxk --sandbox` runs on one state folder, each with its own sandbox: a `switch-account`
    /// in one is a session the other's sandbox accepts, not a token it rejects (which would log the
    /// profile out for both).
    func testASandboxRunAcceptsASessionAnotherRunMade() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.run(["--sandbox", "login", "13800000004", "--password-stdin", "--accept-privacy", "--account", "1"],
                               in: ws, baseURL: nil, stdin: "sandbox123\n").status, 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SXKBinary.path)
        process.arguments = ["--sandbox", "--state-dir", ws.stateDir]
        process.environment = ws.environment
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let out = PipeDrain(output.fileHandleForReading), err = PipeDrain(errors.fileHandleForReading)
        try process.run()
        func waitFor(_ text: String) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if String(decoding: out.snapshot, as: UTF8.self).contains(text) { return true }
                usleep(20_000)
            }
            return false
        }
        input.fileHandleForWriting.write(Data("whoami --jq .userId\n".utf8))
        XCTAssertTrue(waitFor("4001"), String(decoding: err.snapshot, as: UTF8.self))
        let switched = SXK.run(["--sandbox", "switch-account", "2"], in: ws, baseURL: nil)
        XCTAssertEqual(switched.status, 0, switched.summary)
        input.fileHandleForWriting.write(Data("orders --page-size 1 --jq .pageSize\nwhoami --jq .userId\n".utf8))
        XCTAssertTrue(waitFor("4002"), String(decoding: err.snapshot, as: UTF8.self))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let stderr = String(decoding: err.finish(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertFalse(stderr.contains("session expired"), stderr)
        XCTAssertNotNil(ws.read(ws.stateDir + "/sandbox/token"), "the profile was logged out")
    }

    func testSandboxLoginSurvivesARestartOnTheSameStateFolder() throws {
        let ws = Workspace()
        let login = SXK.run(["--sandbox", "login", "13800000003", "--password-stdin", "--accept-privacy"], in: ws, baseURL: nil, stdin: "sandbox123\n")
        XCTAssertEqual(login.status, 0, login.summary)
        let kept = ws.stateDir + "/sandbox/sandbox-tokens.json"
        XCTAssertEqual(modeOf(kept), 0o600, "the sandbox's tokens file")
        XCTAssertEqual(modeOf(ws.stateDir + "/sandbox"), 0o700)
        // A second sandbox (a new port, a new process) still knows the token: validated, not wiped.
        let again = SXK.run(["--sandbox", "--revalidate", "-c", "orders --limit 1 --json; whoami --json"], in: ws, baseURL: nil)
        XCTAssertEqual(again.status, 0, again.summary)
        let docs = jsonLines(again)
        XCTAssertEqual(docs.count, 2, again.summary)
        XCTAssertEqual((docs.last as? [String: Any])?["phase"] as? String, "loggedIn", again.summary)
        XCTAssertEqual((docs.last as? [String: Any])?["userId"] as? Int, 3001, again.summary)
        XCTAssertFalse(again.stderr.contains("expired"), again.summary)
        // The same token both times (the session continued; nothing logged in again).
        let token = try XCTUnwrap(ws.read(ws.stateDir + "/sandbox/token")).trimmingCharacters()
        XCTAssertTrue(String(decoding: try XCTUnwrap(ws.read(kept)), as: UTF8.self).contains(token))
    }

    // MARK: completion scripts honour the backend options on the line

    /// The scripts pass the whole line to `__complete`: `--profile`, `--base-url`, `--state-dir` typed
    /// before the command pick the cache that completes it.
    func testCompleteUsesTheProfileAndBaseURLOnTheLine() throws {
        let ws = Workspace()
        let url = SharedSandbox.url.absoluteString
        let login = SXK.run(["--base-url", url, "--profile", "P", "login", "13800000002", "--password-stdin", "--accept-privacy"],
                            in: ws, baseURL: nil, stdin: "sandbox123\n")
        XCTAssertEqual(login.status, 0, login.summary)
        let env = ["SXK_STATE_DIR": ws.stateDir]
        func complete(_ words: [String]) -> [String] {
            let r = SXK.runProcess(["__complete", "--"] + words, env: ws.environment.merging(env) { $1 }, stdin: Data(), timeout: 20)
            XCTAssertEqual(r.status, 0, r.summary)
            return r.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        XCTAssertEqual(complete(["scenic", ""]), [], "the test profile has no session")
        XCTAssertEqual(complete(["--profile", "P", "scenic", ""]), ["1", "2", "西湖景区", "灵隐寺"])
        XCTAssertEqual(complete(["--profile=P", "role", ""]), ["scenicAdmin", "photographer"])
        XCTAssertEqual(complete(["--state-dir", ws.stateDir, "--profile", "P", "scenic", "灵"]), ["灵隐寺"])
        // The value being typed is not taken for the option's value.
        XCTAssertEqual(complete(["--profile", "P"]), [])

        // --base-url alone: the profile named from its host and port.
        let other = Workspace()
        SXK.login("13800000003", in: other, baseURL: SharedSandbox.url)
        let r = SXK.runProcess(["__complete", "--", "--base-url", url, "--state-dir", other.stateDir, "role", ""],
                               env: other.environment, stdin: Data(), timeout: 20)
        XCTAssertEqual(r.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }, ["storeAdmin"], r.summary)
    }

    /// Store names complete in a new process too: the login kept the list it fetched for completion.
    func testCompleteStoreNamesFromTheProfileOnTheLine() {
        let ws = Workspace()
        let login = SXK.run(["--base-url", SharedSandbox.url.absoluteString, "--profile", "shop", "login", "13800000003", "--password-stdin",
                             "--accept-privacy"], in: ws, baseURL: nil, stdin: "sandbox123\n")
        XCTAssertEqual(login.status, 0, login.summary)
        XCTAssertEqual(modeOf(ws.stateDir + "/shop/stores.json"), 0o600)
        // The same list again is not written again (a write replaces the file, so its inode changes).
        let first = inodeOf(ws.stateDir + "/shop/stores.json")
        let again = SXK.run(["--base-url", SharedSandbox.url.absoluteString, "--profile", "shop", "login", "13800000003", "--password-stdin",
                             "--accept-privacy"], in: ws, baseURL: nil, stdin: "sandbox123\n")
        XCTAssertEqual(again.status, 0, again.summary)
        XCTAssertNotNil(first)
        XCTAssertEqual(inodeOf(ws.stateDir + "/shop/stores.json"), first, "an unchanged store list is left as it is")
        let r = SXK.runProcess(["__complete", "--", "--state-dir", ws.stateDir, "--profile", "shop", "store", "雷"], env: ws.environment,
                               stdin: Data(), timeout: 20)
        XCTAssertEqual(r.stdout, "雷峰塔影像馆\t103\n", r.summary)
        // `compare --as store:` offers them from the same list.
        let identity = SXK.runProcess(["__complete", "--", "--state-dir", ws.stateDir, "--profile", "shop", "compare", "--as", "store:10"], env: ws.environment,
                                      stdin: Data(), timeout: 20)
        XCTAssertTrue(identity.stdout.contains("store:103\t雷峰塔影像馆\n"), identity.summary)

        // Names a hostile server sent reach the shell's script escaped, and the live token masked.
        let token = try? String(contentsOfFile: ws.stateDir + "/shop/token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertNotNil(token)
        let hostile = #"{"stores":[{"storeId":104,"storeName":"evil\u001b]0;title\u0007\u001b[2J \#(token ?? "")","scenicId":1}]}"#
        XCTAssertNoThrow(try Data(hostile.utf8).write(to: URL(fileURLWithPath: ws.stateDir + "/shop/stores.json")))
        let ids = SXK.runProcess(["__complete", "--", "--state-dir", ws.stateDir, "--profile", "shop", "store", "10"], env: ws.environment,
                                 stdin: Data(), timeout: 20)
        XCTAssertTrue(ids.stdout.hasPrefix("104\t"), ids.summary)
        XCTAssertFalse(ids.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, ids.summary)
        XCTAssertFalse(ids.stdout.contains(token ?? "-"), ids.summary)
    }

    // MARK: a profile remembers its backend

    /// `import-defaults … --profile dev` under `--base-url`: `--profile dev` alone reaches that URL again.
    func testProfileAloneUsesTheBackendItWasImportedUnder() throws {
        let ws = Workspace()
        let export = ws.root + "/device.json"
        try JSONSerialization.data(withJSONObject: ["key_in_user_id": 3001, "key_in_account_type": "store", "key_in_role_code": "storeAdmin"])
            .write(to: URL(fileURLWithPath: export))
        let url = SharedSandbox.url
        let imported = SXK.run(["--base-url", url.absoluteString, "import-defaults", export, "--profile", "dev"], in: ws, baseURL: nil)
        XCTAssertEqual(imported.status, 0, imported.summary)
        XCTAssertEqual(modeOf(ws.stateDir + "/dev/backend.json"), 0o600)

        let who = SXK.run(["--profile", "dev", "whoami", "--json"], in: ws, baseURL: nil)
        XCTAssertEqual(who.status, 0, who.summary)
        let record = try XCTUnwrap(try who.json() as? [String: Any], who.summary)
        XCTAssertEqual(record["baseURL"] as? String, url.absoluteString, who.summary)
        XCTAssertEqual(record["environment"] as? String, "custom", who.summary)
        // A login there is a login to that server (the sandbox answers it).
        let login = SXK.run(["--profile", "dev", "login", "13800000003", "--password-stdin", "--accept-privacy"], in: ws, baseURL: nil,
                            stdin: "sandbox123\n")
        XCTAssertEqual(login.status, 0, login.summary)

        // env lists every profile on disk, the imported ones with the backend they remember.
        let env = SXK.run(["env", "--json"], in: ws, baseURL: nil)
        let rows = try XCTUnwrap((try env.json() as? [String: Any])?["environments"] as? [[String: Any]], env.summary)
        let dev = try XCTUnwrap(rows.first { $0["profile"] as? String == "dev" }, env.summary)
        XCTAssertEqual(dev["baseURL"] as? String, url.absoluteString)
        XCTAssertEqual(dev["session"] as? Bool, true)
        XCTAssertEqual(rows.filter { $0["current"] as? Bool == true }.map { $0["profile"] as? String }, ["test"], env.summary)

        // An explicit backend wins for the run; while the profile holds the sandbox's token, that
        // token is not sent to it and the profile stays the sandbox's (whoami sends nothing).
        let release = SXK.run(["--profile", "dev", "--env", "release", "whoami", "--json"], in: ws, baseURL: nil)
        let shown = try XCTUnwrap(try release.json() as? [String: Any], release.summary)
        XCTAssertEqual(shown["environment"] as? String, "release", release.summary)
        XCTAssertEqual(shown["tokenOfBackend"] as? String, url.absoluteString, release.summary)
        XCTAssertEqual(shown["phase"] as? String, "loggedOut", release.summary)
        let after = SXK.run(["--profile", "dev", "whoami", "--json"], in: ws, baseURL: nil)
        XCTAssertEqual((try after.json() as? [String: Any])?["environment"] as? String, "custom", after.summary)
        // With no session the explicit backend becomes the profile's.
        XCTAssertEqual(SXK.run(["--profile", "dev", "logout"], in: ws, baseURL: nil).status, 0)
        XCTAssertEqual(SXK.run(["--profile", "dev", "--env", "release", "whoami"], in: ws, baseURL: nil).status, 0)
        let adopted = SXK.run(["--profile", "dev", "whoami", "--json"], in: ws, baseURL: nil)
        XCTAssertEqual((try adopted.json() as? [String: Any])?["environment"] as? String, "release", adopted.summary)
    }

    /// A sandbox profile alone cannot reach its backend (a new port each run): one usage line says what to add.
    func testSandboxProfileAloneAsksForSandbox() {
        let ws = Workspace()
        XCTAssertEqual(SXK.run(["--sandbox", "login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: nil, stdin: "sandbox123\n").status, 0)
        let r = SXK.run(["--profile", "sandbox", "whoami"], in: ws, baseURL: nil)
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertEqual(r.errorLines, ["error: profile 'sandbox' belongs to the embedded sandbox — add --sandbox"], r.summary)
    }
}

/// `store` against a sandbox of this class's own (its request log is read).
final class StoreScopeTests: SandboxTestCase {
    func testStoreListMarksTheAccountsOwnStoreAndASwitchElsewhereWarns() throws {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: url, account: "3")
        let list = SXK.run(["store", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(list.status, 0, list.summary)
        let rows = try XCTUnwrap(try list.json() as? [[String: Any]], list.summary)
        XCTAssertEqual(rows.map { $0["storeId"] as? Int }, [301, 302])
        XCTAssertEqual(rows.map { $0["own"] as? Bool }, [true, false])
        let table = SXK.run(["store"], in: ws, baseURL: url)
        XCTAssertTrue(table.stdout.split(separator: "\n").first?.contains("OWN") ?? false, table.summary)

        let elsewhere = SXK.run(["store", "302"], in: ws, baseURL: url)
        XCTAssertEqual(elsewhere.status, 0, elsewhere.summary)
        XCTAssertEqual(elsewhere.stdout, "", elsewhere.summary)
        XCTAssertTrue(elsewhere.stderrLines.contains { $0.hasPrefix("warning: store 302 is not this account's own store (301 千岛湖湖畔影棚)") },
                      elsewhere.summary)
        // What the warning says: the server refuses that store for this account.
        XCTAssertEqual(SXK.run(["orders", "--limit", "1"], in: ws, baseURL: url).status, 1)
        let back = SXK.run(["store", "-"], in: ws, baseURL: url)
        XCTAssertEqual(back.status, 0, back.summary)
        XCTAssertFalse(back.stderr.contains("warning:"), back.summary)

        // A scenic account has no store of its own: no OWN column, no warning.
        let admin = Workspace()
        SXK.login("13800000002", in: admin, baseURL: url)
        let adminList = SXK.run(["store", "--json"], in: admin, baseURL: url)
        XCTAssertNil((try adminList.json() as? [[String: Any]])?.first?["own"], adminList.summary)
        let adminSwitch = SXK.run(["store", "102"], in: admin, baseURL: url)
        XCTAssertEqual(adminSwitch.status, 0, adminSwitch.summary)
        XCTAssertFalse(adminSwitch.stderr.contains("warning:"), adminSwitch.summary)
    }

    /// The server unreachable: `store ID` switches from the list this shell fetched, with one warning.
    func testStoreSwitchFallsBackToTheShellsListWhenTheServerIsUnreachable() throws {
        let (own, ownURL) = try startSandbox()
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: ownURL)
        let live = try LiveSXK(["--keep-going"], in: ws, baseURL: ownURL)
        live.send("store --json\n")
        XCTAssertTrue(live.waitForStdout { $0.contains("雷峰塔影像馆") })
        own.stop()
        live.send("store 102 --json\n")
        XCTAssertTrue(live.waitForStdout { $0.contains(#""storeId":102"#) })
        XCTAssertEqual(live.finish(), 0)
        let stderr = String(decoding: live.err.finish(), as: UTF8.self)
        XCTAssertTrue(stderr.contains("warning: store list not refreshed ("), stderr)
        XCTAssertTrue(stderr.contains("now role scenicAdmin"), stderr)
    }

    /// `store ID` fetches the list afresh, so a name the server changed since the last list is the one shown.
    func testStoreSwitchRefreshesTheCachedList() {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        server.resetRequestLog()
        let r = SXK.run(["-c", "store; store 102"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(paths(server.requestLog()).filter { $0 == "/api/app/store/all" }.count, 2, "\(paths(server.requestLog()))")
    }
}

private extension Data {
    func trimmingCharacters() -> String { String(decoding: self, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
}
