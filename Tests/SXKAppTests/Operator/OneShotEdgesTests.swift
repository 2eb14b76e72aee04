import Foundation
import SXKSandbox
import XCTest

/// One-shots and piped input at their edges: numbers at the ends of `Int`, a password line a command
/// did not read, and output the disk refuses.
final class OneShotEdgesTests: SandboxTestCase {
    private func loggedIn() -> Workspace {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        return ws
    }

    /// The lowest 64-bit number as a request number is one usage line, not a trap; the largest as a
    /// page is asked for and answered past the last page (the sandbox clamps, never traps).
    func testNumbersAtTheEndsOfIntAreAnsweredNotTrapped() {
        let ws = loggedIn()
        let curl = SXK.run(["-c", "config --json; curl -9223372036854775808"], in: ws, baseURL: url)
        XCTAssertEqual(curl.status, 2, curl.summary)
        XCTAssertFalse(curl.uncaughtSignal, curl.summary)
        XCTAssertEqual(curl.errorLines.count, 1, curl.summary)
        let page = SXK.run(["-c", "orders --page 9223372036854775807; version"], in: ws, baseURL: url)
        XCTAssertEqual(page.status, 0, page.summary)
        XCTAssertTrue(page.stdout.contains("sxk "), "the next command ran: \(page.summary)")
        XCTAssertTrue(page.stderr.contains("past the last page"), page.summary)
        XCTAssertEqual(SXK.run(["get", "/api/app/config"], in: ws, baseURL: url).status, 0, "the sandbox still serves")
    }

    /// Piped commands: the line after a `--password-stdin` command is its password whether it read it
    /// or not (refused by a local check, no password needed): it never runs, and never shows, as a command.
    func testAPasswordLineIsNeverRunAsACommand() {
        let ws = Workspace()
        let input = """
        login 12345 --password-stdin --accept-privacy
        Secr3t-Pw-1
        login 13800000004 --password-stdin --accept-privacy --account 1
        sandbox123
        switch-account 2 --password-stdin
        Secr3t-Pw-2
        whoami --json
        """
        let r = SXK.run(["--keep-going"], in: ws, baseURL: url, stdin: input + "\n")
        XCTAssertFalse(r.stderr.contains("Secr3t"), r.summary)
        XCTAssertFalse(r.stdout.contains("Secr3t"), r.summary)
        XCTAssertFalse(r.stderr.contains("unknown command"), r.summary)
        XCTAssertTrue(r.stdout.contains("\"userId\" : 4002") || r.stdout.contains("\"userId\":4002"), "whoami ran after the switch: \(r.summary)")
        XCTAssertEqual(r.errorLines.count, 1, "only the bad phone: \(r.summary)")
    }

    /// `exit` takes a byte: a status past 255 is refused, not wrapped to 0 (success); an empty list
    /// prints nothing in CSV, not a usage error.
    func testExitStatusesAndEmptyLists() {
        let ws = Workspace()
        let exit = SXK.run(["-c", "exit 256"], in: ws, baseURL: url)
        XCTAssertEqual(exit.status, 2, exit.summary)
        XCTAssertEqual(exit.errorLines, ["error: exit takes a status from 0 to 255, got '256'"], exit.summary)
        XCTAssertEqual(SXK.run(["-c", "exit 7"], in: ws, baseURL: url).status, 7)
        // Under --keep-going a bare `exit` keeps the run's last failure, as the run's end does.
        XCTAssertEqual(SXK.run(["--keep-going", "-c", "ordrs; exit"], in: ws, baseURL: url).status, 2)
        XCTAssertEqual(SXK.run(["--keep-going", "-c", "ordrs; exit 0"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(SXK.run(["-c", "version; exit"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(SXK.run(["-c", "history -5"], in: ws, baseURL: url).status, 2, "a negative count is not an empty history")
        // Logged out, switch-account is "not logged in" (3) as every command that needs a login.
        let switched = SXK.run(["switch-account", "1"], in: ws, baseURL: url)
        XCTAssertEqual(switched.status, 3, switched.summary)
        // --env on the command line beats SXK_BASE_URL: a bad name is refused, not ignored.
        let env = SXK.run(["--env", "nosuch", "version"], in: ws, baseURL: nil, env: ["SXK_BASE_URL": url.absoluteString])
        XCTAssertEqual(env.status, 2, env.summary)
        XCTAssertTrue(env.stderr.contains("is neither an environment (test, release; sandbox with --sandbox)"), env.summary)
        let csv = SXK.run(["accounts", "--csv"], in: ws, baseURL: url)
        XCTAssertEqual(csv.status, 0, csv.summary)
        XCTAssertEqual(csv.stdout, "", csv.summary)
        XCTAssertEqual(csv.errorLines, [], csv.summary)
    }

    /// `--json` is JSON for the builtins that print data too, given globally or on the command.
    func testBuiltinsPrintJSONWhenAsked() throws {
        let ws = Workspace()
        for (args, expected) in [(["--json", "version"], #"{"name":"sxk","version":"0.1.0"}"#), (["version", "--json"], #"{"name":"sxk","version":"0.1.0"}"#),
                                 (["--json", "set"], #"{"expanded":"off","format":"table","pager":"on"}"#), (["set", "--json"], #"{"expanded":"off","format":"table","pager":"on"}"#),
                                 (["--json", "trace"], #"{"trace":false}"#), (["--json", "timing"], #"{"timing":false}"#)] {
            let r = SXK.run(args, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, "\(args): \(r.summary)")
            XCTAssertEqual(r.stdout, expected + "\n", "\(args): \(r.summary)")
        }
        XCTAssertEqual(SXK.run(["version"], in: ws, baseURL: url).stdout, "sxk 0.1.0\n")
    }

    /// A script with a byte that is not UTF-8 is not run (U+FFFD would run in its place); the line is named.
    func testAScriptThatIsNotUTF8IsNotRun() throws {
        let ws = Workspace()
        let script = ws.root + "/bad.sxk"
        try Data("version\nscenic ".utf8 + [0xFF, 0xFE] + Data("\n".utf8)).write(to: URL(fileURLWithPath: script))
        let r = SXK.run([script], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertEqual(r.stdout, "", "a line ran before the refusal: \(r.summary)")
        XCTAssertEqual(r.errorLines, ["error: \(script):2: not valid UTF-8 (byte 0xff); the script was not run"], r.summary)
    }

    /// A refused defaults.json (others may have written it) is said once per run, not at each read.
    func testARefusedStateFileIsSaidOnce() throws {
        let ws = loggedIn()
        XCTAssertEqual(chmod(ws.defaultsFile, 0o666), 0)
        let r = SXK.run(["whoami"], in: ws, baseURL: url)
        XCTAssertEqual(r.stderrLines.filter { $0.contains("refusing") && $0.contains("defaults.json") }.count, 1, r.summary)
    }

    /// Tab after `watch` offers what watch repeats, not the shell's commands nor a login.
    func testWatchCompletesTheCommandsItRepeats() {
        let r = SXK.run(["__complete", "watch", ""], in: Workspace(), baseURL: url)
        let names = r.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
        XCTAssertTrue(names.contains("orders") && names.contains("stats"), r.summary)
        XCTAssertFalse(names.contains("login") || names.contains("history") || names.contains("watch") || names.contains("import-defaults"), r.summary)
    }

    /// `env use <Tab>` offers `sandbox` only where it can be used: a shell started with `--sandbox`.
    func testEnvUseOffersTheSandboxOnlyWithOne() {
        func names(_ r: RunResult) -> [String] { r.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" } }
        let plain = SXK.run(["__complete", "env", "use", ""], in: Workspace(), baseURL: url)
        XCTAssertEqual(Set(names(plain)), ["test", "release"], plain.summary)
        let sandboxed = SXK.run(["--sandbox", "__complete", "env", "use", ""], in: Workspace(), baseURL: nil)
        XCTAssertTrue(names(sandboxed).contains("sandbox"), sandboxed.summary)
    }

    /// `watch` frames one answer: a walk of every page, written as its rows arrive, is refused in one
    /// line rather than shown as an empty frame; a bad base URL is a usage error (2).
    func testWatchOfAWalkAndBadValuesAreUsageErrors() {
        let ws = loggedIn()
        let watch = SXK.run(["watch", "--count", "1", "orders", "--all", "--ndjson"], in: ws, baseURL: url)
        XCTAssertEqual(watch.status, 2, watch.summary)
        XCTAssertEqual(watch.errorLines.count, 1, watch.summary)
        let bad = SXK.run(["--base-url", "ftp://x", "version"], in: Workspace(), baseURL: nil)
        XCTAssertEqual(bad.status, 2, bad.summary)
    }

    /// Output the disk refuses (standard output on /dev/full) is lost: one error line and exit 1, not success.
    func testOutputThatCannotBeWrittenFailsTheCommand() throws {
        let ws = loggedIn()
        // Help pages and the `--version` / `--help` options too: each is the whole of a one-shot's output.
        for args in [["orders", "--json"], ["version"], ["--version"], ["--help"], ["orders", "--help"], ["help", "orders"]] {
            let r = SXK.run(args, in: ws, baseURL: url, wrapper: ["/bin/sh", "-c", "exec \"$0\" \"$@\" > /dev/full"])
            XCTAssertEqual(r.status, 1, "\(args): \(r.summary)")
            XCTAssertEqual(r.errorLines, ["error: the output could not be written: No space left on device"], "\(args): \(r.summary)")
        }
    }
}

extension OneShotEdgesTests {
    /// Commands from standard input: only a command that ran with `--password-stdin` owns the next
    /// line (not a comment or an alias's definition that names it); a byte order mark is not part of
    /// the first command; errors name their line as a script file's do.
    func testStandardInputOwesALineOnlyToACommandGivenPasswordStdin() throws {
        let ws = Workspace()
        let comment = SXK.run(["-"], in: ws, baseURL: url, stdin: "# log in with --password-stdin below\nversion --json\nversion\n")
        XCTAssertEqual(comment.status, 0, comment.summary)
        XCTAssertTrue(comment.stdout.contains("\"version\"") && comment.stdout.contains("sxk 0.1.0"), comment.summary)
        let aliased = SXK.run(["-"], in: ws, baseURL: url,
                              stdin: "alias li='login 13800000001 --password-stdin --accept-privacy'\nli\nsandbox123\nwhoami --jq .userId\n")
        XCTAssertEqual(aliased.status, 0, aliased.summary)
        XCTAssertEqual(aliased.stdout, "1001\n", aliased.summary)
        XCTAssertFalse(aliased.stderr.contains("sandbox123"), aliased.summary)
        let bom = SXK.run(["-"], in: ws, baseURL: url, stdin: "\u{FEFF}version\n\nordrs\n")
        XCTAssertEqual(bom.status, 2, bom.summary)
        XCTAssertTrue(bom.stdout.contains("sxk 0.1.0"), bom.summary)
        XCTAssertTrue(bom.stderr.contains("-:3: unknown command 'ordrs'"), bom.summary)
    }
}

extension OneShotEdgesTests {
    /// Started with standard output closed, sxk's output goes nowhere else (not into a state file or
    /// libcurl's socket, which would take its number): the write fails, is said, and the run exits 1.
    func testAClosedStandardOutputIsAWriteErrorEveryTime() {
        let ws = loggedIn()
        for _ in 0..<3 {
            let r = SXK.runProcess(["--base-url", url.absoluteString, "--state-dir", ws.stateDir, "orders", "--json"], env: ws.environment,
                                   stdin: Data(), timeout: 20, wrapper: ["/bin/sh", "-c", "exec \"$0\" \"$@\" >&-"])
            XCTAssertEqual(r.status, 1, r.summary)
            XCTAssertTrue(r.stderr.contains("the output could not be written: Bad file descriptor"), r.summary)
        }
        let after = SXK.run(["whoami", "--jq", ".userId"], in: ws, baseURL: url)
        XCTAssertEqual(after.status, 0, after.summary)
    }
}

extension OneShotEdgesTests {
    /// The reader of a script's output has gone (`| head -1`): the commands after are not run, as a
    /// shell script's are not after a SIGPIPE; the run ends quietly.
    func testNothingMoreRunsOnceTheReaderHasGone() {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let r = SXK.runProcess(["--base-url", url.absoluteString, "--state-dir", ws.stateDir, "-c", "orders --all --ndjson; store 102"],
                               env: ws.environment, stdin: Data(), timeout: 30, wrapper: ["/bin/sh", "-c", "\"$0\" \"$@\" | head -1"])
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 1, r.summary)
        XCTAssertFalse(r.stderr.contains("now role"), r.summary)
        let store = SXK.run(["whoami", "--jq", ".storeId"], in: ws, baseURL: url)
        XCTAssertEqual(store.stdout, "101\n", store.summary)
    }
}

extension OneShotEdgesTests {
    /// With no state folder to be had (a build sandbox's HOME), the commands that read no state run
    /// (the completion scripts are generated at packaging time) and leave nothing behind; one that
    /// needs the state says why it cannot run.
    func testCommandsThatReadNoStateRunWithoutAStateFolder() throws {
        let ws = Workspace()
        let env = ["HOME": "/proc/sxk-no-home", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "TMPDIR": ws.root]
        for args in [["completion", "bash"], ["version"], ["help"], ["__complete", "ord"], ["man"]] {
            let r = SXK.runProcess(args, env: env, stdin: Data(), timeout: 20)
            XCTAssertEqual(r.status, 0, "\(args): \(r.summary)")
            XCTAssertFalse(r.stdout.isEmpty, "\(args): \(r.summary)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: ws.root).filter { $0.hasPrefix("sxk-nostate-") }, [])
        let orders = SXK.runProcess(["orders"], env: env, stdin: Data(), timeout: 20)
        XCTAssertNotEqual(orders.status, 0, orders.summary)
        XCTAssertTrue(orders.stderr.contains("cannot create folder /proc/sxk-no-home"), orders.summary)
    }
}

extension OneShotEdgesTests {
    /// `get -v` of an answer that is an error shows the exchange (request, status, headers, body)
    /// on stderr before the one error line, the token masked; stdout stays empty.
    func testVerboseShowsTheExchangeOfAFailedAnswer() {
        let ws = loggedIn()
        let r = SXK.run(["get", "/api/nonexistent", "-v"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.stdout, "", r.summary)
        for part in ["> GET /api/nonexistent", "> token: ***", "< HTTP 404", "< Content-Type: application/json", "< {\"code\":100404"] {
            XCTAssertTrue(r.stderr.contains(part), "\(part): \(r.summary)")
        }
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertFalse(r.stderr.contains(ws.token() ?? "-"), r.summary)
        let quiet = SXK.run(["get", "/api/nonexistent"], in: ws, baseURL: url)
        XCTAssertFalse(quiet.stderr.contains("< HTTP"), quiet.summary)
    }
}

extension OneShotEdgesTests {
    /// Mistakes on the command line are usage errors (2) said before anything runs: a CA file that
    /// cannot be read, a wrong `--env` beside `--base-url`.
    func testCommandLineMistakesAreUsageErrors() {
        let ws = loggedIn()
        let ca = SXK.run(["--cacert", ws.root + "/missing.pem", "whoami"], in: ws, baseURL: url)
        XCTAssertEqual(ca.status, 2, ca.summary)
        XCTAssertTrue(ca.stderr.contains("--cacert: cannot read"), ca.summary)
        let env = SXK.run(["--env", "nope", "whoami"], in: ws, baseURL: url)
        XCTAssertEqual(env.status, 2, env.summary)
        XCTAssertTrue(env.stderr.contains("--env: 'nope' is neither an environment"), env.summary)
    }

    /// A usage error quoting what was typed masks the live token in it.
    func testAUsageErrorNeverEchoesTheLiveToken() throws {
        let ws = loggedIn()
        let token = try XCTUnwrap(ws.token())
        let r = SXK.run(["orders", "--columns", "k_\(token)"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertFalse(r.stderr.contains(token), r.summary)
        XCTAssertTrue(r.stderr.contains("***"), r.summary)
    }

    /// Under --keep-going every command whose output is lost (a full disk) says so and fails, not
    /// only the first.
    func testEveryCommandWhoseOutputIsLostSaysSo() {
        let ws = loggedIn()
        let r = SXK.runProcess(["--base-url", url.absoluteString, "--state-dir", ws.stateDir, "--keep-going", "-c", "version; whoami --json; version"],
                               env: ws.environment, stdin: Data(), timeout: 20, wrapper: ["/bin/sh", "-c", "exec \"$0\" \"$@\" > /dev/full"])
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines.filter { $0.contains("the output could not be written") }.count, 3, r.summary)
    }
}

extension OneShotEdgesTests {
    /// A file the command line names that is not there, and `-c` given twice, are usage errors (2),
    /// as a missing script is.
    func testMissingFilesAndARepeatedDashCAreUsageErrors() {
        let ws = loggedIn()
        let imported = SXK.run(["import-defaults", ws.root + "/missing.plist"], in: ws, baseURL: url)
        XCTAssertEqual(imported.status, 2, imported.summary)
        XCTAssertTrue(imported.stderr.contains("no such file"), imported.summary)
        let saved = SXK.run(["-c", "get /api/app/config; har save \(ws.root)/no/such/folder/x.har"], in: ws, baseURL: url)
        XCTAssertEqual(saved.status, 2, saved.summary)
        let twice = SXK.run(["-c", "version", "-c", "whoami"], in: ws, baseURL: url)
        XCTAssertEqual(twice.status, 2, twice.summary)
        XCTAssertTrue(twice.stderr.contains("-c is given once"), twice.summary)
        XCTAssertEqual(twice.stdout, "", twice.summary)
    }
}

extension OneShotEdgesTests {
    /// `sxk --help orders` is the command's help, as `sxk help orders` is; `sxk --help` alone the
    /// program's.
    func testHelpBeforeACommandIsThatCommandsHelp() {
        let ws = Workspace()
        let command = SXK.run(["--help", "orders"], in: ws, baseURL: url)
        XCTAssertEqual(command.status, 0, command.summary)
        XCTAssertTrue(command.stdout.hasPrefix("Usage: orders"), command.summary)
        XCTAssertEqual(command.stdout, SXK.run(["help", "orders"], in: ws, baseURL: url).stdout)
        let program = SXK.run(["--help"], in: ws, baseURL: url)
        XCTAssertTrue(program.stdout.contains("sxk [OPTIONS]"), program.summary)
    }
}

extension OneShotEdgesTests {
    /// What the second review of this stop found: `--har -` writes to standard output; `watch` stops
    /// once its reader has gone; a stale SXK_CACERT does not stop commands that send nothing, a folder
    /// is no CA file; a `login` read from standard input owns the next line (the password) even
    /// without the flag; the empty state folder falls back to /tmp when TMPDIR names none.
    func testSecondReviewEdges() throws {
        let ws = loggedIn()
        let har = SXK.run(["--har", "-", "get", "/api/app/config", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(har.status, 0, har.summary)
        XCTAssertTrue(har.stdout.contains("\"creator\""), har.summary)
        let watch = SXK.runProcess(["--base-url", url.absoluteString, "--state-dir", ws.stateDir, "watch", "-n", "0.2", "orders", "--page-size", "1"],
                                   env: ws.environment, stdin: Data(), timeout: 20, wrapper: ["/bin/sh", "-c", "\"$0\" \"$@\" | head -1"])
        XCTAssertFalse(watch.timedOut, "watch kept running after its reader went: \(watch.summary)")
        let stale = SXK.run(["version"], in: ws, baseURL: url, env: ["SXK_CACERT": ws.root + "/gone.pem"])
        XCTAssertEqual(stale.status, 0, stale.summary)
        let staleSend = SXK.run(["whoami"], in: ws, baseURL: url, env: ["SXK_CACERT": ws.root + "/gone.pem"])
        XCTAssertEqual(staleSend.status, 2, staleSend.summary)
        XCTAssertTrue(staleSend.stderr.contains("SXK_CACERT: cannot read"), staleSend.summary)
        let folder = SXK.run(["--cacert", ws.root, "whoami"], in: ws, baseURL: url)
        XCTAssertEqual(folder.status, 2, folder.summary)
        XCTAssertTrue(folder.stderr.contains("it is a directory"), folder.summary)
        let piped = SXK.run(["--keep-going", "-"], in: Workspace(), baseURL: url, stdin: "login 13800000001 --accept-privacy\nsandbox123\nversion\n")
        XCTAssertFalse(piped.stderr.contains("sandbox123"), piped.summary)
        XCTAssertTrue(piped.stdout.contains("sxk 0.1.0"), piped.summary)
        // `login --help` asks no password: the line after it runs.
        let help = SXK.run(["-"], in: Workspace(), baseURL: url, stdin: "login --help\nversion\n")
        XCTAssertTrue(help.stdout.hasSuffix("sxk 0.1.0\n"), help.summary)
        let env = ["HOME": "/proc/sxk-no-home", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "TMPDIR": ws.root + "/no-such-tmp"]
        XCTAssertEqual(SXK.runProcess(["version"], env: env, stdin: Data(), timeout: 20).status, 0)
    }
}

extension OneShotEdgesTests {
    /// A record view (`whoami`, `keys`) is field and value rows for people; `--ndjson`, `--csv` and
    /// `--columns` take the record's own keys and values, as `--json` shows them.
    func testRecordViewsGiveTheirKeysToMachineFormats() throws {
        let ws = loggedIn()
        let nd = SXK.run(["whoami", "--ndjson"], in: ws, baseURL: url)
        XCTAssertEqual(nd.status, 0, nd.summary)
        let lines = nd.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, nd.summary)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(record["userId"] as? Int, 1001, nd.summary)
        let csv = SXK.run(["whoami", "--columns", "userId,roleCode", "--csv"], in: ws, baseURL: url)
        XCTAssertEqual(csv.stdout, "userId,roleCode\n1001,photographer\n", csv.summary)
        let keys = SXK.run(["keys", "--columns", "key_in_user_id", "--tsv"], in: ws, baseURL: url)
        XCTAssertEqual(keys.stdout, "key_in_user_id\n1001\n", keys.summary)
        // The table view stays the labelled one.
        XCTAssertTrue(SXK.run(["whoami"], in: ws, baseURL: url).stdout.contains("user id"))
        // `--columns` only selects: a record stays one object under `--json`; `config` is a record.
        XCTAssertEqual(SXK.run(["whoami", "--columns", "userId", "--json"], in: ws, baseURL: url).stdout, "{\"userId\":1001}\n")
        let config = SXK.run(["config", "--columns", "minVersion", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(config.status, 0, config.summary)
        let picked = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(config.stdout.utf8)) as? [String: Any], config.summary)
        XCTAssertEqual(picked.keys.map { $0.replacingOccurrences(of: "_", with: "").lowercased() }, ["minversion"], config.summary)
    }
}

extension OneShotEdgesTests {
    /// `get --paginate` gathers at most 10,000 rows: a list longer than that is cut, said as a
    /// warning, and the run fails (1), so a script does not take the partial rows for all of them.
    func testPaginateCutAtItsLimitFails() throws {
        let (server, big) = try startSandbox(SandboxConfig(ordersPerRole: 10_100))
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: big)
        let r = SXK.run(["get", "--paginate", "/api/yf-handset-app/photog/order/listv2", "pageSize=100", "--ndjson"], in: ws, baseURL: big, timeout: 120)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 10_000)
        XCTAssertTrue(r.stderr.contains("warning: --paginate stopped at 10,000 of 10,100 rows, its limit: the output is partial (page=101 goes on from there;"),
                      String(r.stderr.prefix(500)))
        // Nothing past the page that holds the row after the limit is asked for.
        let pages = server.requestLog().filter { $0.path == "/api/yf-handset-app/photog/order/listv2" }.compactMap { Int($0.queryValue("page") ?? "") }
        XCTAssertEqual(pages.sorted(), Array(1...101))
        // A cut inside a page says how many of its rows were printed.
        let odd = SXK.run(["get", "--paginate", "/api/yf-handset-app/photog/order/listv2", "pageSize=7", "--ndjson"], in: ws, baseURL: big, timeout: 120)
        XCTAssertEqual(odd.status, 1, odd.summary)
        XCTAssertEqual(odd.stdout.split(separator: "\n").count, 10_000)
        XCTAssertTrue(odd.stderr.contains("page=1429 goes on from there, repeating its first 4 rows"), String(odd.stderr.prefix(500)))
    }

    /// Pages asked together read as if asked one after another: a rejected token on a page after the
    /// one whose failure is reported does not end the session.
    func testPaginateResetsTheSessionOnlyForTheFailureItReports() throws {
        let (server, big) = try startSandbox(SandboxConfig(ordersPerRole: 1_000))
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: big)
        let path = "/api/yf-handset-app/photog/order/listv2"
        server.injectFault(SandboxFault(path: path, kind: .hang, query: "page=2"))
        server.injectFault(SandboxFault(path: path, kind: .status401, query: "page=3"))
        let r = SXK.run(["--timeout", "1", "get", "--paginate", path, "pageSize=100"], in: ws, baseURL: big)
        server.clearFaults()
        XCTAssertEqual(r.status, 4, r.summary)
        XCTAssertFalse(r.stderr.contains("session expired"), r.summary)
        XCTAssertNotNil(ws.token(), "a rejection on page 3, after page 2's failure, ended the session")
        // The rejection on the first page that fails is the one said, and it ends the session once.
        server.injectFault(SandboxFault(path: path, kind: .status401, query: "page=2"))
        let expired = SXK.run(["get", "--paginate", path, "pageSize=100"], in: ws, baseURL: big)
        XCTAssertEqual(expired.status, 3, expired.summary)
        XCTAssertNil(ws.token())
    }
}

extension OneShotEdgesTests {
    /// `watch` whose output cannot be written (a full disk) stops at once and fails (1), as any
    /// command whose output is lost does.
    func testWatchStopsWhenItsOutputIsLost() {
        let ws = loggedIn()
        let r = SXK.runProcess(["--base-url", url.absoluteString, "--state-dir", ws.stateDir, "watch", "-n", "0.1", "orders", "--limit", "1", "--ndjson"],
                               env: ws.environment, stdin: Data(), timeout: 20, wrapper: ["/bin/sh", "-c", "exec \"$0\" \"$@\" > /dev/full"])
        XCTAssertFalse(r.timedOut, r.summary)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertTrue(r.stderr.contains("the output could not be written"), r.summary)
    }
}

extension OneShotEdgesTests {
    /// A script that is a pipe (`sxk <(generate)`) runs as a file does; a folder is no script.
    func testAScriptMayBeAPipe() {
        let ws = Workspace()
        let piped = SXK.runProcess(["--state-dir", ws.stateDir, "--base-url", url.absoluteString], env: ws.environment, stdin: Data(), timeout: 20,
                                   wrapper: ["/bin/bash", "-c", "\"$0\" \"$@\" <(printf 'version\\nordrs\\n')"])
        XCTAssertEqual(piped.status, 2, piped.summary)
        XCTAssertTrue(piped.stdout.contains("sxk 0.1.0"), piped.summary)
        XCTAssertTrue(piped.stderr.contains(":2: unknown command 'ordrs'"), piped.summary)
        let folder = SXK.run([ws.root], in: ws, baseURL: url)
        XCTAssertEqual(folder.status, 2, folder.summary)
    }
}

extension OneShotEdgesTests {
    /// A `--jq` program failing on an answer inside `watch` is a failure (1), as outside it, not a
    /// usage error: the watch goes on to its next run.
    func testAJQFailureInWatchIsNotAUsageError() {
        let ws = loggedIn()
        let r = SXK.run(["-c", "watch --count 2 -n 0.1 orders --limit 1 --jq 'error(\"x\")'"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines.filter { $0.contains("--jq: x") }.count, 2, r.summary)
    }
}

extension OneShotEdgesTests {
    /// A walk with no rows writes the CSV header alone, as a page with no rows does.
    func testAnEmptyWalkWritesTheCSVHeader() {
        let ws = loggedIn()
        let walk = SXK.run(["orders", "--all", "--keyword", "zzzz-no-such", "--csv"], in: ws, baseURL: url)
        let page = SXK.run(["orders", "--keyword", "zzzz-no-such", "--csv"], in: ws, baseURL: url)
        XCTAssertEqual(walk.status, 0, walk.summary)
        XCTAssertTrue(walk.stdout.hasPrefix("orderNo,"), walk.summary)
        XCTAssertEqual(walk.stdout, page.stdout)
    }
}

extension OneShotEdgesTests {
    /// `let x = exit` is refused (2) and does not end the run after its error.
    func testLetRefusesExit() {
        let r = SXK.run(["--keep-going", "-c", "let x = exit 3; version"], in: Workspace(), baseURL: url)
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertTrue(r.stdout.contains("sxk 0.1.0"), r.summary)
        XCTAssertTrue(r.stderr.contains("ends the shell and gives no data"), r.summary)
        // `watch` without --count never ends by itself: refused before it runs, not run forever.
        let watch = SXK.run(["--keep-going", "-c", "let x = watch -n 0.1 version; version"], in: Workspace(), baseURL: url, timeout: 10)
        XCTAssertFalse(watch.timedOut, watch.summary)
        XCTAssertEqual(watch.status, 2, watch.summary)
        XCTAssertEqual(watch.errorLines, ["error: let x: 'watch' without --count runs until it is stopped and gives no data"], watch.summary)
        // Quoted, the word names the same command.
        let quoted = SXK.run(["-c", "let x = \"watch\" -n 0.1 version"], in: Workspace(), baseURL: url, timeout: 10)
        XCTAssertFalse(quoted.timedOut, quoted.summary)
        XCTAssertEqual(quoted.status, 2, quoted.summary)
    }
}

extension OneShotEdgesTests {
    /// A bad SXK_PERSIST or SXK_ENV is said by a run that uses it; help, version and the completion
    /// scripts keep working, and make no state folder.
    func testStatelessCommandsIgnoreBadSettingsAndMakeNoState() throws {
        let ws = Workspace()
        let folder = ws.root + "/fresh-state"
        for (args, env) in [(["help"], ["SXK_PERSIST": "abc"]), (["version"], ["SXK_ENV": "bogus"]), (["completion", "bash"], ["SXK_PERSIST": "abc"])] {
            let r = SXK.run(["--state-dir", folder] + args, in: ws, baseURL: nil, env: env)
            XCTAssertEqual(r.status, 0, "\(args): \(r.summary)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder), "a stateless command made the state folder")
        let used = SXK.run(["whoami"], in: ws, baseURL: url, env: ["SXK_PERSIST": "abc"])
        XCTAssertEqual(used.status, 2, used.summary)
        XCTAssertTrue(used.stderr.contains("SXK_PERSIST expects seconds"), used.summary)
    }
}
