import Foundation
import SXKCore
import SXKSandbox
import XCTest

/// What sxk says and sends where an operator could be misled: stats periods, completion of raw
/// calls, the demo banner and counts of one.
final class OperatorWordingTests: SandboxTestCase {
    override class var spellings: [SandboxSpelling] { SandboxSpelling.allCases }

    /// `--period week` and `--period month` send the last 7 and 30 days (today included), as
    /// `stats --help` says; a calendar month so far is a single day on the 1st.
    func testStatsPeriodsSendTheLastSevenAndThirtyDays() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        for (period, days) in [("week", 7), ("month", 30)] {
            server.resetRequestLog()
            // Today as the run saw it: the day may turn (midnight in Shanghai) while it runs.
            let today = [WireDate.day(Date())]
            let r = SXK.run(["stats", "summary", "--period", period, "--json"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            let call = try XCTUnwrap(server.requestLog().last { $0.path == "/api/app/store/analyse" }, "no store analyse call")
            let start = try XCTUnwrap(call.queryValue("startDate").flatMap(WireDate.parseDay))
            let end = try XCTUnwrap(call.queryValue("endDate").flatMap(WireDate.parseDay))
            XCTAssertTrue((today + [WireDate.day(Date())]).contains(call.queryValue("endDate") ?? "-"), "\(period): \(call.rawQuery)")
            let span: Int? = Int(end.timeIntervalSince(start)) / 86_400
            XCTAssertEqual(span.map { $0 + 1 }, days, "\(period): \(call.rawQuery)")
        }
    }

    /// `get` offers only GET paths and `post` only POST ones.
    func testRawCallsCompleteOnlyTheirMethod() throws {
        let ws = Workspace()
        let get = SXK.run(["__complete", "--", "get", "/api/app/"], in: ws, baseURL: url)
        XCTAssertEqual(get.status, 0, get.summary)
        let getPaths = get.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        XCTAssertTrue(getPaths.contains("/api/app/config"), get.stdout)
        XCTAssertFalse(getPaths.contains("/api/app/v9/login"), get.stdout)
        let post = SXK.run(["__complete", "--", "post", "/api/app/"], in: ws, baseURL: url)
        let postPaths = post.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        XCTAssertTrue(postPaths.contains("/api/app/v9/login"), post.stdout)
        XCTAssertFalse(postPaths.contains("/api/app/config"), post.stdout)
        XCTAssertFalse(postPaths.contains("/api/app/store/order/list"), post.stdout)
    }

    /// A phone with several accounts (13800000004 has three) is listed once as a login.
    func testDemoBannerListsEachLoginOnce() throws {
        XCTAssertEqual(SandboxDemo.phones, ["13800000001", "13800000002", "13800000003", "13800000004"])
        let summary = SandboxDemo.summary()
        XCTAssertEqual(summary.components(separatedBy: "13800000004").count - 1, 1, summary)
        // Every account is still there, under its phone.
        for account in SandboxDemo.accounts { XCTAssertTrue(summary.contains("userId \(account.userId)"), summary) }
    }

    /// One order, one page: the footers say "1 order" and "1 page", not "1 orders"/"1 pages".
    func testCountsOfOneAreSingular() throws {
        let (server, url) = try startSandbox(SandboxConfig(ordersPerRole: 1))
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let page = SXK.run(["orders"], in: ws, baseURL: url, env: ["COLUMNS": "200"])
        XCTAssertEqual(page.status, 0, page.summary)
        let all = SXK.run(["orders", "--all"], in: ws, baseURL: url, env: ["COLUMNS": "200"])
        XCTAssertEqual(all.status, 0, all.summary)
        let text = page.stdout + page.stderr + all.stdout + all.stderr
        XCTAssertTrue(text.contains("1 order"), text)
        XCTAssertTrue(text.contains("1 page"), text)
        XCTAssertFalse(text.contains("1 orders"), text)
        XCTAssertFalse(text.contains("1 pages"), text)
    }
}

/// How `sxk WORD` is read: a mistyped command, a missing script, an error inside a script.
final class ScriptInvocationTests: XCTestCase {
    func testMistypedCommandWithFlagsSuggestsTheCommand() {
        let ws = Workspace()
        for args in [["ordrs"], ["ordrs", "--json"]] {
            let r = SXK.run(args, in: ws, baseURL: nil)
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertEqual(r.errorLines, ["error: unknown command 'ordrs' (did you mean 'orders'?)"], r.summary)
        }
    }

    func testMissingScriptFileIsNamedAsSuch() {
        let ws = Workspace()
        for args in [["missing.sxk"], ["./missing"], ["missing.sxk", "extra"]] {
            let r = SXK.run(args, in: ws, baseURL: nil)
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertEqual(r.errorLines.count, 1, r.summary)
            XCTAssertTrue(r.errorLines.first?.hasPrefix("error: no such script file '\(args[0])'") == true, r.summary)
        }
    }

    func testScriptErrorsNameFileAndLine() throws {
        let ws = Workspace()
        let path = ws.root + "/checks.sxk"
        try "# first a comment\nversion\n\nordrs --json\nversion\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = SXK.run([path], in: ws, baseURL: nil)
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertEqual(r.errorLines, ["error: \(path):4: unknown command 'ordrs' (did you mean 'orders'?)"], r.summary)
        // It stopped there: one `version` ran, not the second.
        XCTAssertEqual(r.stdout.components(separatedBy: "sxk ").count - 1, 1, r.summary)
        // --keep-going runs the rest and still names the line.
        let going = SXK.run(["--keep-going", path], in: ws, baseURL: nil)
        XCTAssertEqual(going.errorLines, ["error: \(path):4: unknown command 'ordrs' (did you mean 'orders'?)"], going.summary)
        XCTAssertEqual(going.stdout.components(separatedBy: "sxk ").count - 1, 2, going.summary)
    }

    /// `-c` text runs line by line, as the same lines in a file: a line that cannot be read (an open
    /// quote, a `|` with nothing after it) fails alone, after the lines before it, and names its line.
    func testCommandTextRunsLineByLineAsAScriptFile() throws {
        let ws = Workspace()
        let path = ws.root + "/same.sxk"
        for (text, error) in [("version\nwhoami --jq \"abc", "unterminated"), ("version\nversion |", "nothing after '|'")] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let file = SXK.run(["--keep-going", path], in: ws, baseURL: nil)
            let c = SXK.run(["--keep-going", "-c", text], in: ws, baseURL: nil)
            for r in [file, c] {
                XCTAssertEqual(r.status, 2, r.summary)
                XCTAssertEqual(r.stdout, "sxk 0.1.0\n", r.summary)
                XCTAssertEqual(r.errorLines.count, 1, r.summary)
                XCTAssertTrue(r.stderr.contains(error), r.summary)
            }
            XCTAssertTrue(c.errorLines.first?.hasPrefix("error: -c:2: ") == true, c.summary)
        }
        // One line names no place.
        XCTAssertEqual(SXK.run(["-c", "ordrs"], in: ws, baseURL: nil).errorLines, ["error: unknown command 'ordrs' (did you mean 'orders'?)"])
    }

    /// `set format` applies to the commands that take its flag: `stats` (no `--csv`) keeps its table
    /// view, `stats daily` prints CSV; JSON goes to both.
    func testSetFormatAppliesToTheCommandsThatTakeIt() throws {
        let ws = Workspace()
        let summary = SXK.run(["--sandbox", "-c", "login 13800000001 --password-stdin --accept-privacy\nset format csv; stats; stats daily"],
                              in: ws, baseURL: nil, stdin: "sandbox123\n")
        XCTAssertEqual(summary.status, 0, summary.summary)
        XCTAssertTrue(summary.stdout.contains("SUMMARY"), summary.summary)
        XCTAssertFalse(summary.stdout.contains("summary,value"), summary.summary)
        XCTAssertTrue(summary.stdout.contains("date,orderCount,orderAmount"), summary.summary)
        let json = SXK.run(["--sandbox", "-c", "set format json; stats"], in: ws, baseURL: nil)
        XCTAssertEqual(json.status, 0, json.summary)
        XCTAssertTrue(json.stdout.hasPrefix("{"), json.summary)
        // A view flag the global --json rules out names that flag as the one given.
        let chart = SXK.run(["--sandbox", "--json", "stats", "--chart"], in: ws, baseURL: nil)
        XCTAssertEqual(chart.status, 2, chart.summary)
        XCTAssertEqual(chart.errorLines, ["error: --chart draws bars in the table view; it cannot be combined with the global --json"], chart.summary)
    }

    /// A password written on the line after `login --password-stdin` in a script or `-c` text (where that
    /// flag reads standard input, not the next line) runs as an unknown command whose word is not shown.
    func testAPasswordWrittenAfterAPasswordReadingLineIsNotShown() throws {
        let ws = Workspace()
        let text = "login 13800000001 --password-stdin --accept-privacy\nHunter2secret\nversion\nordrs"
        let path = ws.root + "/login.sxk"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        for argv in [["--keep-going", path], ["--keep-going", "-c", text]] {
            let r = SXK.run(argv, in: ws, baseURL: nil, stdin: "")
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertFalse(r.stderr.contains("Hunter2secret") || r.stdout.contains("Hunter2secret"), r.summary)
            XCTAssertTrue(r.stderr.contains(":2: the line after one that reads a password does not start with a command's name: not run and not shown"), r.summary)
            // Only that line: a later unknown command is named as always.
            XCTAssertTrue(r.stderr.contains(":4: unknown command 'ordrs'"), r.summary)
            XCTAssertEqual(r.stdout, "sxk 0.1.0\n", r.summary)
        }
        // A comment between them changes nothing, and a password that reads as a variable is not quoted either.
        for (text, said) in [("login 13800000001 --password-stdin --accept-privacy\n# a comment\nHunter2secret", "does not start with a command's name"),
                             ("login 13800000001 --password-stdin --accept-privacy\nHunter2$ecret", "does not start with a command's name")] {
            let r = SXK.run(["--keep-going", "-c", text], in: ws, baseURL: nil, stdin: "")
            XCTAssertFalse(r.stderr.contains("Hunter2") || r.stderr.contains("$ecret") || r.stderr.contains("ecret'"), r.summary)
            XCTAssertTrue(r.stderr.contains(said), r.summary)
        }
        // Such a line is not run at all: a `>` or `|` in it neither writes a file nor starts a program.
        let written = ws.root + "/q", started = ws.root + "/started"
        for password in ["p>\(written)", "ab|touch \(started)"] {
            let r = SXK.run(["--keep-going", "-c", "login 13800000001 --password-stdin --accept-privacy\n" + password], in: ws, baseURL: nil, stdin: "")
            XCTAssertTrue(r.stderr.contains("the line after one that reads a password does not start with a command's name"), r.summary)
            XCTAssertFalse(FileManager.default.fileExists(atPath: written) || FileManager.default.fileExists(atPath: started), r.summary)
        }
    }
}

/// `-` goes back to the scope or account before the last switch, across runs (kept per profile).
final class GoBackTests: SandboxTestCase {
    override class var spellings: [SandboxSpelling] { SandboxSpelling.allCases }

    private func scenicId(_ ws: Workspace) throws -> Int? {
        let r = SXK.run(["whoami", "--json"], in: ws, baseURL: url)
        let object = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        return ((object["scenic"] as? [String: Any])?["scenicId"] as? Int) ?? (object["scenicId"] as? Int)
    }

    func testScenicDashGoesBackAndForth() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        let none = SXK.run(["scenic", "-"], in: ws, baseURL: url)
        XCTAssertNotEqual(none.status, 0, none.summary)
        XCTAssertEqual(none.errorLines, ["error: no previous scenic to go back to in this profile"], none.summary)
        let first = try scenicId(ws)
        XCTAssertEqual(SXK.run(["scenic", "2"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(try scenicId(ws), 2)
        let back = SXK.run(["scenic", "-"], in: ws, baseURL: url)
        XCTAssertEqual(back.status, 0, back.summary)
        XCTAssertEqual(try scenicId(ws), first)
        XCTAssertEqual(SXK.run(["scenic", "-"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(try scenicId(ws), 2)
    }

    func testStoreConfirmationNamesTheStoreAndDashGoesBack() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        let r = SXK.run(["store", "101"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        // A confirmation: on stderr, stdout stays data.
        XCTAssertEqual(r.stdout, "", r.summary)
        let line = try XCTUnwrap(r.stderrLines.first { $0.hasPrefix("now ") }, r.summary)
        XCTAssertTrue(line.contains("store 101 "), r.summary)  // followed by the store's name
        XCTAssertFalse(line.hasSuffix("store 101"), r.summary)
        let json = SXK.run(["store", "-", "--json"], in: ws, baseURL: url)
        XCTAssertNotEqual(json.status, 0, "no store before 101: \(json.summary)")
    }

    func testRoleDashGoesBackAndForth() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        func role() throws -> String? { try (SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])?["roleCode"] as? String }
        let none = SXK.run(["role", "-"], in: ws, baseURL: url)
        XCTAssertNotEqual(none.status, 0, none.summary)
        XCTAssertEqual(none.errorLines, ["error: no previous role to go back to in this profile"], none.summary)
        let first = try XCTUnwrap(try role())
        XCTAssertEqual(SXK.run(["role", "photographer"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(try role(), "photographer")
        let back = SXK.run(["role", "-"], in: ws, baseURL: url)
        XCTAssertEqual(back.status, 0, back.summary)
        XCTAssertEqual(try role(), first)
        XCTAssertNotEqual(first, "photographer")
        XCTAssertEqual(SXK.run(["role", "-"], in: ws, baseURL: url).status, 0)
        XCTAssertEqual(try role(), "photographer")
    }

    func testSwitchAccountDash() throws {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: url, account: "4001")
        XCTAssertEqual(SXK.run(["switch-account", "4002"], in: ws, baseURL: url).status, 0)
        let back = SXK.run(["-c", "switch-account -; whoami --json"], in: ws, baseURL: url)
        XCTAssertEqual(back.status, 0, back.summary)
        XCTAssertTrue(back.stdout.contains("4001"), back.summary)
    }
}
