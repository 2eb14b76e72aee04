import Foundation
import XCTest

/// The small things a first day turns up, each fixed and held here through the real binary.
final class PapercutTests: SandboxTestCase {
    private func loggedIn(_ phone: String = "13800000002") -> Workspace {
        let ws = Workspace()
        SXK.login(phone, in: ws, baseURL: url)
        return ws
    }

    func testLoginWithoutAPhoneSaysWhichPhoneItUses() {
        let ws = loggedIn()
        let r = SXK.run(["login", "--password-stdin"], in: ws, baseURL: url, stdin: "sandbox123\n")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stderrLines.first, "phone 138****0002 (the last login's; `login PHONE` for another)", r.summary)
        let given = SXK.run(["login", "13800000002", "--password-stdin"], in: ws, baseURL: url, stdin: "sandbox123\n")
        XCTAssertFalse(given.stderr.contains("the last login's"), given.summary)
    }

    func testLocationChangesSayTheyAreKeptLocallyOnly() {
        let ws = loggedIn("13800000001")
        for change in ["online", "report", "offline"] {
            let r = SXK.run(["location", change], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            XCTAssertTrue(r.stderrLines.contains("\(change): stored locally only (as the app keeps it on the device); nothing was sent to the server"), r.summary)
        }
        XCTAssertFalse(SXK.run(["location"], in: ws, baseURL: url).stderr.contains("locally only"))
    }

    func testWhoamiTableLabelsAreWordsAndJSONKeepsTheKeys() throws {
        let ws = loggedIn()
        let table = SXK.run(["whoami"], in: ws, baseURL: url)
        XCTAssertEqual(table.status, 0, table.summary)
        for label in ["snapshot saved", "validated", "base URL", "user id", "state folder"] {
            XCTAssertTrue(table.stdout.split(separator: "\n").contains { $0.hasPrefix(label + " ") }, "no '\(label)' row: \(table.summary)")
        }
        for key in ["snapshotAgeSeconds", "validatedAgeSeconds", "accountDisplayName", "stateDir"] {
            XCTAssertFalse(table.stdout.contains(key), table.summary)
        }
        let json = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertNotNil(json["snapshotAgeSeconds"])
    }

    func testKeysShowStoredTimesAsLocalTimes() throws {
        let ws = loggedIn()
        // sxk's own time keys are listed with --all (plain `keys` shows the app's keys only).
        let r = SXK.run(["keys", "--all"], in: ws, baseURL: url, env: ["TZ": "Asia/Shanghai"])
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix("sxk_session_validated_at") }, r.summary)
        XCTAssertNotNil(line.range(of: #"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+08:00 \(\d+(\.\d+)?\)$"#, options: .regularExpression), String(line))
        // The data stays as stored.
        let json = try XCTUnwrap(try SXK.run(["keys", "--all", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertTrue(json["sxk_session_validated_at"] is NSNumber)
    }

    func testCountsOfOneAreSingular() throws {
        let ws = Workspace()
        let export = ws.root + "/one.json"
        try JSONSerialization.data(withJSONObject: ["key_last_login_username": "13800000004"]).write(to: URL(fileURLWithPath: export))
        let r = SXK.run(["import-defaults", export], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderrLines.contains { $0.hasPrefix("imported 1 key (json) into profile imported") }, r.summary)
    }

    /// Switching to the account already current keeps the role chosen in it (set-user would load the account's own).
    func testSwitchAccountToTheCurrentAccountKeepsTheRole() throws {
        let ws = loggedIn()
        XCTAssertEqual(SXK.run(["role", "photographer"], in: ws, baseURL: url).status, 0)
        server.resetRequestLog()
        let r = SXK.run(["switch-account", "2001"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderrLines.contains { $0.hasPrefix("already on 西湖景区 · 景区管理员 (user 2001, scenic, role photographer)") }, r.summary)
        XCTAssertFalse(paths(server.requestLog()).contains("/api/app/v9/set-user"))
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(who["roleCode"] as? String, "photographer")
    }

    func testAnAliasToAnUnknownCommandNamesTheAlias() {
        let ws = Workspace()
        let r = SXK.run(["-c", "alias a='ordrs --json'; a"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertEqual(r.errorLines, ["error: alias a='ordrs --json': unknown command 'ordrs' (did you mean 'orders'?)"], r.summary)
    }

    func testHelpOfScopeCommandsDocumentsDash() {
        for command in ["role", "scenic", "store"] {
            let r = SXK.run(["help", command], in: Workspace(), baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            XCTAssertTrue(r.stdout.contains("- for the one before"), "\(command): \(r.summary)")
            XCTAssertTrue(r.stdout.contains("\(command) -"), "\(command) has no '-' example: \(r.summary)")
        }
    }

    func testStatsSummaryPrintsItsDateRangeAndRefusesChart() throws {
        let ws = loggedIn()
        let r = SXK.run(["stats", "summary", "--period", "month"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let first = try XCTUnwrap(r.stdout.split(separator: "\n").first.map(String.init))
        let days = first.components(separatedBy: " · ").last?.components(separatedBy: " → ") ?? []
        XCTAssertTrue(first.hasPrefix("scenicAdmin · "), first)
        XCTAssertEqual(days.count, 2, first)
        let parse = DateFormatter()
        parse.dateFormat = "yyyy-MM-dd"
        let from = try XCTUnwrap(parse.date(from: days[0])), to = try XCTUnwrap(parse.date(from: days[1]))
        XCTAssertEqual(Int((to.timeIntervalSince(from) / 86400).rounded()), 29, first)

        let chart = SXK.run(["stats", "summary", "--chart"], in: ws, baseURL: url)
        XCTAssertEqual(chart.status, 2, chart.summary)
        XCTAssertEqual(chart.errorLines.count, 1, chart.summary)
        XCTAssertEqual(chart.stdout, "")
    }

    /// `menus common` on a profile with none stored: the list on stdout, what it is (the default the
    /// home would write, not stored by listing) on stderr, the same each time.
    func testMenusCommonDefaultIsAStatusLine() {
        let ws = loggedIn()
        XCTAssertEqual(SXK.run(["role", "photographer"], in: ws, baseURL: url).status, 0)  // a role with none stored yet
        let first = SXK.run(["menus", "common"], in: ws, baseURL: url)
        XCTAssertEqual(first.status, 0, first.summary)
        XCTAssertTrue(first.stderrLines.contains { $0.hasPrefix("(no common menus are stored: these are the first 4 visible menus") }, first.summary)
        XCTAssertFalse(first.stdout.contains("stored"), first.summary)
        let again = SXK.run(["menus", "common"], in: ws, baseURL: url)
        XCTAssertEqual(again.stdout, first.stdout, again.summary)
        XCTAssertTrue(again.stderr.contains("no common menus are stored"), again.summary)
    }

    func testChartAmountsAreRightAligned() throws {
        let ws = loggedIn()
        let r = SXK.run(["stats", "--period", "week", "--chart"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let rows = r.stdout.split(separator: "\n").filter { $0.range(of: #"^\d{4}-\d\d-\d\d  "#, options: .regularExpression) != nil }
        XCTAssertEqual(rows.count, 7, r.summary)
        // Every amount ends in the last column: the rows are equally long and end in a digit.
        XCTAssertEqual(Set(rows.map(\.count)).count, 1, r.summary)
        XCTAssertTrue(rows.allSatisfy { $0.last?.isNumber == true }, r.summary)
    }
}
