import Foundation
import SXKSandbox
import XCTest

/// End to end: `compare`, the scope guard, `curl` and `watch`, the real binary against
/// a loopback sandbox.
final class PowerFeaturesTests: SandboxTestCase {
    override func tearDown() {
        server.clearFaults()
    }

    /// The JSON documents of a run's stdout, one per line (non-terminal output is compact).
    func jsonLines(_ r: RunResult) -> [Any] {
        r.stdout.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{") || line.hasPrefix("[") else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(line.utf8))
        }
    }

    // MARK: compare

    func testCompareStoreAllAcrossTheThreeAccountsLeavesTheSessionUnchanged() throws {
        let ws = Workspace()
        let script = [
            "login 13800000004 --password-stdin --accept-privacy --account 3",
            "whoami --json", "keys --json",
            "compare --as role:photographer,role:scenicAdmin,role:storeAdmin --json -- get /api/app/store/all",
            "whoami --json", "keys --json",
            "get /api/yf-handset-app/userinfo --json",
        ].joined(separator: "; ")
        let r = SXK.run(["-c", script], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        let docs = jsonLines(r)
        XCTAssertEqual(docs.count, 6, r.summary)
        guard docs.count == 6 else { return }
        let matrix = try XCTUnwrap(docs[2] as? [String: Any])
        XCTAssertEqual(matrix["baseline"] as? String, "role:photographer")
        let results = try XCTUnwrap(matrix["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["identity"] as? String }, ["role:photographer", "role:scenicAdmin", "role:storeAdmin"])
        XCTAssertEqual(results.map { $0["userId"] as? Int }, [4001, 4002, 4003])
        XCTAssertEqual(results.map { $0["tokenSource"] as? String }, ["set-user", "set-user", "session"])
        for result in results {
            XCTAssertEqual(result["status"] as? Int, 200, "\(result)")
            XCTAssertEqual(result["code"] as? String, "100000", "\(result)")
            XCTAssertEqual(result["rows"] as? Int, 6, "\(result)")
            XCTAssertEqual((result["diff"] as? [String: Any])?["same"] as? Bool, true, "\(result)")
        }
        // Each account asked with its own token: two set-user calls, and three store/all calls with three tokens.
        let log = server.requestLog()
        let storeCalls = log.filter { $0.path == "/api/app/store/all" }.suffix(3)
        XCTAssertEqual(Set(storeCalls.compactMap { $0.header("token") }).count, 3, "\(storeCalls.map { $0.header("token") })")
        // Nothing of the session changed: context, stored keys, and the token the next request carries.
        XCTAssertEqual(docs[1] as? NSDictionary, docs[4] as? NSDictionary, "keys changed")
        let before = try XCTUnwrap(docs[0] as? [String: Any]), after = try XCTUnwrap(docs[3] as? [String: Any])
        for key in ["userId", "accountType", "roleCode", "scenicId", "storeId", "token", "phase"] {
            XCTAssertEqual("\(before[key] ?? "nil")", "\(after[key] ?? "nil")", "\(key) changed")
        }
        XCTAssertEqual((docs[5] as? [String: Any])?["userId"] as? Int, 4003, "the session token is no longer 4003's")
        XCTAssertEqual(log.last?.header("token"), ws.token(), "the last request did not carry the stored token")
    }

    func testCompareOrdersUsesEachAccountsEndpointAndScenicIdentityChangesOnlyTheParameter() throws {
        let ws = Workspace()
        let script = "login 13800000004 --password-stdin --accept-privacy --account 1; compare --as account:4001,account:4002,account:4003 orders --page-size 5 --json"
        let r = SXK.run(["-c", script], in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        let matrix = try XCTUnwrap(jsonLines(r).first as? [String: Any], r.summary)
        let results = try XCTUnwrap(matrix["results"] as? [[String: Any]])
        let paths = results.map { ($0["request"] as? [String: Any])?["path"] as? String }
        XCTAssertEqual(paths, ["/api/yf-handset-app/photog/order/listv2", "/api/app/scenic-admin/order/list", "/api/app/store/order/list"])
        XCTAssertEqual(((results[2]["request"] as? [String: Any])?["query"] as? [String: Any])?["storeId"] as? String, "301")
        XCTAssertEqual(results.map { $0["rows"] as? Int }, [5, 5, 5])
        XCTAssertEqual((results[1]["diff"] as? [String: Any])?["summary"] as? String, "+5 −5 rows")

        let admin = Workspace()
        SXK.login("13800000002", in: admin, baseURL: url)
        server.resetRequestLog()
        let table = SXK.run(["compare", "--as", "scenic:1,scenic:2", "--as", "scenic:3", "--", "get", "/api/app/scenic-admin/order/list", "pageSize=3"],
                            in: admin, baseURL: url)
        XCTAssertEqual(table.status, 0, table.summary)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, table.summary)
        // The title names the baseline; the column is DIFF alone, so narrow terminals keep MSG and ROWS.
        XCTAssertTrue(table.stderr.contains("diff against scenic:1"), table.summary)
        XCTAssertTrue(lines[0].hasSuffix("DIFF"), table.summary)
        XCTAssertTrue(lines[1].contains("(baseline)") && lines[1].contains("100000"), table.summary)
        XCTAssertTrue(lines[2].hasPrefix("scenic:2") && lines[2].contains("+3 −3 rows"), table.summary)
        XCTAssertTrue(lines[3].hasPrefix("scenic:3") && lines[3].contains("100403") && lines[3].contains("no data"), table.summary)
        let calls = server.requestLog().filter { $0.path == "/api/app/scenic-admin/order/list" }
        // Sent side by side: the server sees them in any order.
        XCTAssertEqual(calls.compactMap { $0.queryValue("scenicId") }.sorted(), ["1", "2", "3"])
        XCTAssertEqual(Set(calls.compactMap { $0.header("token") }), [admin.token()], "a scenic identity used another token")
        XCTAssertFalse(server.requestLog().contains { $0.path == "/api/app/v9/set-user" })
        // A refused identity leaves the session as it was: same token, still logged in.
        let tokenBefore = admin.token()
        let who = SXK.run(["-c", "get /api/yf-handset-app/userinfo; whoami --json"], in: admin, baseURL: url)
        XCTAssertEqual(jsonLines(who).compactMap { ($0 as? [String: Any])?["phase"] as? String }.last, "loggedIn", who.summary)
        XCTAssertEqual(admin.token(), tokenBefore)
    }

    func testCompareRefusesOtherCommandsAndUnknownIdentitiesWithOneLine() {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.resetRequestLog()
        let cases: [[String]] = [
            ["compare", "--as", "current", "--", "whoami"],
            ["compare", "--as", "boss:1", "--", "get", "/api/app/config"],
            ["compare", "--as", "role:storeAdmin", "--", "get", "/api/app/config"],
            ["compare", "--as", "account:4001", "--", "get", "/api/app/config"],
            ["compare", "--as", "current", "orders", "--all"],
            ["compare", "get", "/api/app/config"],
        ]
        for args in cases {
            let r = SXK.run(args, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 2, "\(args): \(r.summary)")
            XCTAssertEqual(r.stderrLines.count, 1, "\(args): \(r.summary)")
            XCTAssertEqual(r.errorLines.count, 1, "\(args): \(r.summary)")
        }
        XCTAssertFalse(server.requestLog().contains { $0.path == "/api/app/config" || $0.path == "/api/app/v9/set-user" },
                       "a refused compare sent a request")
        // A page or page size out of range is refused in the words `orders` refuses it in.
        for flags in [["--page-size", "101"], ["--page", "0"]] {
            let compared = SXK.run(["compare", "--as", "current", "--", "orders"] + flags, in: ws, baseURL: url)
            let alone = SXK.run(["orders"] + flags, in: ws, baseURL: url)
            XCTAssertEqual([compared.status, alone.status], [2, 2], compared.summary + alone.summary)
            XCTAssertEqual(compared.errorLines, alone.errorLines, compared.summary)
        }
    }

    // MARK: scope guard

    func testScopeGuardWarnsOnceWhenTheServerLeaksRowsAndNeverOtherwise() throws {
        let photographer = Workspace()
        SXK.login("13800000001", in: photographer, baseURL: url)
        let store = Workspace()
        SXK.login("13800000003", in: store, baseURL: url)

        let quiet = SXK.run(["-c", "orders --page-size 5; orders --all --ndjson; stats daily --period week"], in: photographer, baseURL: url)
        XCTAssertEqual(quiet.status, 0, quiet.summary)
        XCTAssertFalse(quiet.stderr.contains("warning"), quiet.summary)

        server.setScopeLeak(rows: 1)
        let page = SXK.run(["orders", "--page-size", "5"], in: photographer, baseURL: url)
        XCTAssertEqual(page.status, 0, page.summary)
        XCTAssertEqual(page.stderrLines, ["warning: 1 row outside the current scope (scenic 1 西湖景区): server-side authorization bug?"], page.summary)
        XCTAssertTrue(page.stdout.contains("千岛湖"), "the leaked row is still shown: \(page.summary)")

        let all = SXK.run(["orders", "--all", "--ndjson", "--page-size", "100"], in: photographer, baseURL: url, timeout: 60)
        XCTAssertEqual(all.status, 0, all.summary)
        XCTAssertEqual(all.stdout.split(separator: "\n").count, server.config.ordersPerRole)
        XCTAssertEqual(all.stderrLines.filter { $0.hasPrefix("warning:") },
                       ["warning: 20 rows outside the current scope (scenic 1 西湖景区): server-side authorization bug?"], all.summary)

        let daily = SXK.run(["stats", "daily", "--period", "week"], in: photographer, baseURL: url)
        XCTAssertEqual(daily.status, 0, daily.summary)
        XCTAssertEqual(daily.stderrLines.filter { $0.hasPrefix("warning:") }.count, 1, daily.summary)
        XCTAssertTrue(daily.stderr.contains("1 row outside the current scope (scenic 1"), daily.summary)

        // --revalidate: the store's name comes from the store list that validation loads; a one-shot
        // on a just-validated session skips it and names the store by id only (docs/session.md).
        let deposit = SXK.run(["--revalidate", "orders", "--page-size", "4", "--json"], in: store, baseURL: url)
        XCTAssertEqual(deposit.status, 0, deposit.summary)
        XCTAssertNotNil(try? deposit.json(), "the warning reached stdout: \(deposit.summary)")
        XCTAssertEqual(deposit.stderrLines, ["warning: 1 row outside the current scope (store 101 断桥摄影店): server-side authorization bug?"], deposit.summary)

        server.setScopeLeak(rows: 0)
        let after = SXK.run(["-c", "orders --page-size 5; stats daily --period week"], in: store, baseURL: url)
        XCTAssertEqual(after.status, 0, after.summary)
        XCTAssertFalse(after.stderr.contains("warning"), after.summary)
    }

    // MARK: curl

    func testCurlPrintsARunnableCommandWithTheTokenAsAVariable() throws {
        let curlPath = ["/usr/bin/curl", "/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let token = try XCTUnwrap(ws.token())
        let r = SXK.run(["-c", "get /api/yf-handset-app/photog/order/listv2 pageSize=2 keyword=林 --raw; curl"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let body = lines[0]
        let command = lines.dropFirst().joined(separator: "\n").trimmingCharacters(in: .newlines)
        XCTAssertTrue(command.hasPrefix("curl 'http://127.0.0.1:"), r.summary)
        XCTAssertTrue(command.contains(#"-H "token: $SXK_TOKEN""#), r.summary)
        XCTAssertFalse(r.stdout.contains(token) || r.stderr.contains(token), "the token was printed")

        // The printed command, run by sh with the token from the token file, gets the same body.
        // Skips only without a curl binary (this machine and CI have one; the benchmark installs it).
        guard let curlPath else { throw XCTSkip("no curl binary on this machine to run the printed command") }
        let env = ["PATH": (curlPath as NSString).deletingLastPathComponent + ":/usr/bin:/bin", "SXK_TOKEN": token]
        let replay = SXK.runProcessAt("/bin/sh", ["-c", command + " --silent --show-error"], env: env)
        XCTAssertEqual(replay.status, 0, replay.summary)
        XCTAssertEqual(replay.stdout, body, "the replayed request got another answer")

        // A login is recorded with its password masked, never kept; --reveal-token shows the token sent.
        // app/config and v9/login go out together, so the login is the fourth or the fifth from the end.
        let login = SXK.run(["-c", "login 13800000001 --password-stdin --accept-privacy; curl -4; curl -5; curl --list; curl -1 --reveal-token"],
                            in: ws, baseURL: url, stdin: SXK.password + "\n")
        XCTAssertEqual(login.status, 0, login.summary)
        XCTAssertTrue(login.stdout.contains(#"--data-raw '{"username":"13800000001","password":"***"}'"#), login.summary)
        XCTAssertFalse(login.stdout.contains(SXK.password) || login.stderr.contains(SXK.password), "the password was printed")
        XCTAssertTrue(login.stdout.contains("/api/app/v9/login"), login.summary)
        let newToken = try XCTUnwrap(ws.token())
        XCTAssertTrue(login.stdout.contains("-H 'token: \(newToken)'"), login.summary)
        XCTAssertTrue(login.stderr.contains("warning: the command holds the live token"), login.summary)

        let none = SXK.run(["curl"], in: ws, baseURL: url)
        XCTAssertEqual(none.status, 1, none.summary)
        XCTAssertEqual(none.errorLines, ["error: no request sent yet in this shell"], none.summary)
        let missing = SXK.run(["-c", "config; curl 7"], in: ws, baseURL: url)
        XCTAssertEqual(missing.status, 2, missing.summary)
        XCTAssertEqual(missing.errorLines.count, 1, missing.summary)
        // A request named is the same mistake before any was sent.
        let namedBeforeAny = SXK.run(["curl", "7"], in: ws, baseURL: url)
        XCTAssertEqual(namedBeforeAny.status, 2, namedBeforeAny.summary)
        XCTAssertEqual(namedBeforeAny.errorLines, ["error: request #7 is not kept: none sent yet in this shell"], namedBeforeAny.summary)
        XCTAssertEqual(SXK.run(["curl", "-1"], in: ws, baseURL: url).errorLines, ["error: no request is kept: none sent yet in this shell"])
    }

    // MARK: watch

    func testWatchCountRunsTheCommandThatManyTimesAndStopsOnUsageErrors() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.resetRequestLog()
        let r = SXK.run(["watch", "--count", "3", "-n", "0.1", "orders", "--page-size", "2"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout.components(separatedBy: "ORDER NO").count - 1, 3, r.summary)
        XCTAssertEqual(r.stderrLines.filter { $0.hasPrefix("Every 0.1s: orders --page-size 2") }.count, 3, r.summary)
        XCTAssertTrue(r.stderrLines.last?.hasSuffix("run 3/3") ?? false, r.summary)
        XCTAssertEqual(server.requestLog().filter { $0.path == "/api/yf-handset-app/photog/order/listv2" }.count, 3)

        // A failing run is shown and watching goes on; the last run's status is the exit status.
        let failing = SXK.run(["watch", "--count", "2", "-n", "0.1", "get", "/nope"], in: ws, baseURL: url)
        XCTAssertEqual(failing.status, 1, failing.summary)
        XCTAssertEqual(failing.errorLines.count, 2, failing.summary)
        // Each run's error follows its header line, as on the screen.
        let lines = failing.stderrLines.filter { $0.hasPrefix("Every ") || $0.hasPrefix("error:") }
        XCTAssertEqual(lines.map { $0.hasPrefix("Every ") ? "header" : "error" }, ["header", "error", "header", "error"], failing.summary)
        let errexit = SXK.run(["watch", "-e", "--count", "3", "-n", "0.1", "get", "/nope"], in: ws, baseURL: url)
        XCTAssertEqual(errexit.status, 1, errexit.summary)
        XCTAssertEqual(errexit.errorLines.count, 1, errexit.summary)

        for args in [["watch", "login"], ["watch", "history"], ["watch", "-n", "0", "orders"],
                     ["watch", "-n", "1e11", "orders"], ["watch", "-n", "1e19", "orders"], ["watch"], ["watch", "orders", "--bogus"]] {
            let refused = SXK.run(args, in: ws, baseURL: url)
            XCTAssertEqual(refused.status, 2, "\(args): \(refused.summary)")
            XCTAssertEqual(refused.stderrLines.count, 1, "\(args): \(refused.summary)")
        }
        // Each refusal says why: a builtin before its own words are read, a command for what it does.
        for (args, line) in [(["watch", "let"], "error: watch runs app commands; 'let' is a shell builtin"),
                             (["watch", "har", "save", "x.har"], "error: watch cannot repeat 'har': it writes the requests already sent to a file"),
                             (["watch", "har"], "error: watch cannot repeat 'har': it writes the requests already sent to a file"),
                             (["watch", "login"], "error: watch cannot repeat 'login': it reads a password and replaces the session")] {
            XCTAssertEqual(SXK.run(args, in: ws, baseURL: url).stderrLines, [line], "\(args)")
        }
        // Not logged in: no retry can help, so the first run ends the watch with 3.
        let loggedOut = SXK.run(["watch", "-n", "0.1", "orders"], in: Workspace(), baseURL: url, timeout: 10)
        XCTAssertEqual(loggedOut.status, 3, loggedOut.summary)
        XCTAssertFalse(loggedOut.timedOut)
    }
}

extension SXK {
    /// Runs any executable with `env`, stdin closed.
    static func runProcessAt(_ executable: String, _ args: [String], env: [String: String], timeout: TimeInterval = 20) -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        process.environment = env
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outPipe
        process.standardError = errPipe
        let out = PipeDrain(outPipe.fileHandleForReading)
        let err = PipeDrain(errPipe.fileHandleForReading)
        let started = Date()
        do { try process.run() } catch {
            return RunResult(status: -1, stdoutData: Data(), stderrData: Data("cannot start \(executable): \(error)".utf8), timedOut: false, elapsed: 0)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdoutData: out.finish(), stderrData: err.finish(), timedOut: timedOut,
                         elapsed: Date().timeIntervalSince(started))
    }
}
