import Foundation
import SXKSandbox
import XCTest

/// Variables, aliases and history through the real binary against a sandbox: `let` over real order data,
/// `$_` without a second request, aliases, the startup file staying out of non-interactive runs,
/// and `history --here` matching the app's profile and scope.
final class VariablesAndAliasesTests: SandboxTestCase {
    static let storeOrders = "/api/app/store/order/list"


    func orderCalls() -> [SandboxRequestRecord] { server.requestLog().filter { $0.path == Self.storeOrders } }

    func testLetKeepsAnOrderIdAndALaterCommandUsesIt() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let first = SXK.run(["orders", "--limit", "1", "--json"], in: ws, baseURL: url)
        let page = try XCTUnwrap(try first.json() as? [String: Any], first.summary)
        let row = try XCTUnwrap((page["list"] as? [[String: Any]])?.first, first.summary)
        let orderId = try XCTUnwrap(row["orderId"] as? Int)
        let orderNo = try XCTUnwrap(row["orderNo"] as? String)

        server.resetRequestLog()
        let r = SXK.run(["-c", """
            let id = orders --limit 1 .list[0].orderId
            let no = $_ .list[0].orderNo
            get \(Self.storeOrders) storeId=101 keyword=$no --json
            vars --json
            """], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, "let printed something: \(r.summary)")
        let found = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any], r.summary)
        XCTAssertEqual(found["total"] as? Int, 1, r.summary)
        XCTAssertEqual((found["list"] as? [[String: Any]])?.first?["orderId"] as? Int, orderId)
        let vars = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any], r.summary)
        XCTAssertEqual(vars["id"] as? Int, orderId)
        XCTAssertEqual(vars["no"] as? String, orderNo)
        // One request for the let, one for the get: reading $_ asked the server for nothing.
        let calls = orderCalls()
        XCTAssertEqual(calls.count, 2, "\(paths(server.requestLog()))")
        XCTAssertEqual(calls.last?.queryValue("keyword"), orderNo)
    }

    func testDollarUnderscoreIsTheLastTableCommandsData() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let json = SXK.run(["orders", "--limit", "2", "--json"], in: ws, baseURL: url)
        let list = try XCTUnwrap((try json.json() as? [String: Any])?["list"] as? [[String: Any]], json.summary)
        server.resetRequestLog()
        let r = SXK.run(["-c", "orders --limit 2; let second = .list[1].orderNo; let roles = whoami .roleCode; vars --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stdout.contains("ORDER NO"), "the table was not printed: \(r.summary)")
        let last = try XCTUnwrap(r.stdout.split(separator: "\n").last.map(String.init))
        let vars = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], r.summary)
        XCTAssertEqual(vars["second"] as? String, list[1]["orderNo"] as? String)
        XCTAssertEqual(vars["roles"] as? String, "storeAdmin")
        XCTAssertEqual(orderCalls().count, 1)
    }

    func testUnknownVariableIsOneUsageErrorAndNoRequest() {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        server.resetRequestLog()
        let r = SXK.run(["-c", "let id = orders --limit 1 .list[0].orderId; get \(Self.storeOrders) storeId=101 keyword=$idd; whoami"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertEqual(r.errorLines, ["error: unknown variable '$idd' (did you mean '$id'?)"], r.summary)
        XCTAssertEqual(r.stderrLines.count, 1, r.summary)
        XCTAssertEqual(orderCalls().count, 1, "the bad line reached the server")
        XCTAssertEqual(r.stdout, "", "the line after the error ran")

        let path = SXK.run(["-c", "let id = orders --limit 1 .list[0].orderid"], in: ws, baseURL: url)
        XCTAssertEqual(path.status, 1, path.summary)
        XCTAssertEqual(path.errorLines.count, 1, path.summary)
        XCTAssertTrue(path.stderr.contains("did you mean 'orderId'"), path.summary)
    }

    func testNoTokenInAnyVariable() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let token = try XCTUnwrap(ws.token())
        let r = SXK.run(["-c", "let t = whoami .token; let w = whoami; let k = keys; let p = post /api/app/v9/set-user userId=3001 accountType=store; vars; vars --json"],
                        in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertFalse(r.stdout.contains(token) || r.stderr.contains(token), "the session token reached output")
        let formal = try NSRegularExpression(pattern: "(sxk|tmp)_[0-9a-f]{32}")
        XCTAssertEqual(formal.numberOfMatches(in: r.stdout, range: NSRange(r.stdout.startIndex..., in: r.stdout)), 0,
                       "a token reached a variable: \(r.stdout)")
        let last = try XCTUnwrap(r.stdout.split(separator: "\n").last.map(String.init))
        let vars = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        XCTAssertEqual(vars["t"] as? String, "***")
    }

    func testAliasesInOneRunAndInsideLet() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let r = SXK.run(["-c", "alias so='orders --role storeAdmin'; let no = so --limit 1 .list[0].orderNo; so --keyword $no --json; alias"],
                        in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.last, "alias so='orders --role storeAdmin'")
        let page = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any], r.summary)
        XCTAssertEqual(page["total"] as? Int, 1, r.summary)
        let loop = SXK.run(["-c", "alias a=b; alias b=a"], in: ws, baseURL: url)
        XCTAssertEqual(loop.status, 2)
        XCTAssertEqual(loop.errorLines, ["error: alias b not defined: it would loop (b → a → b)"])
    }

    /// `watch` and `compare` run the command they are given as it would be typed alone: its alias
    /// is expanded (after their own flags, and after `--`), not a quoted word; an alias for several
    /// commands is refused, since they run one.
    func testWatchAndCompareExpandTheAliasTheyAreGiven() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let r = SXK.run(["-c", "alias so='orders --role storeAdmin --page-size 2'; alias two='orders --page-size 2'; watch -n 0.1 --count 1 so --json; compare --as role:storeAdmin -- two --json"],
                        in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("Every 0.1s: orders --role storeAdmin --page-size 2 --json"), r.summary)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let page = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any], r.summary)
        XCTAssertEqual((page["list"] as? [Any])?.count, 2, r.summary)
        XCTAssertTrue(lines.dropFirst().joined().contains("role:storeAdmin"), r.summary)
        let several = SXK.run(["-c", "alias two='whoami; version'; watch --count 1 two"], in: ws, baseURL: url)
        XCTAssertEqual(several.status, 2, several.summary)
        XCTAssertEqual(several.errorLines, ["error: watch: 'two' stands for several commands; watch runs one"], several.summary)
        let quoted = SXK.run(["-c", "alias so=orders; watch --count 1 'so'"], in: ws, baseURL: url)
        XCTAssertEqual(quoted.status, 2, quoted.summary)
        XCTAssertTrue(quoted.stderr.contains("unknown command 'so'"), quoted.summary)
        // As typed alone: an alias starting with flags gives watch none of them; one with a
        // redirection redirects the line; `let` takes the command's data through it.
        let flags = SXK.run(["-c", "alias fast='-n 0.1 --count 2 orders'; watch fast"], in: ws, baseURL: url)
        XCTAssertEqual(flags.status, 2, flags.summary)
        XCTAssertEqual(flags.errorLines, ["error: alias fast='-n 0.1 --count 2 orders': unknown command '-n'"], flags.summary)
        // The alias named in that error shows its secret items masked, as every listing of it does.
        let secret = SXK.run(["-c", "alias a='foo token=abcdef123456'; watch --count 1 a"], in: ws, baseURL: url)
        XCTAssertEqual(secret.status, 2, secret.summary)
        XCTAssertEqual(secret.errorLines, [#"error: alias a='foo '\''token=***'\''': unknown command 'foo'"#], secret.summary)
        let file = ws.root + "/watched.txt"
        let redirected = SXK.run(["-c", "alias so='orders --page-size 2 --json > \(file)'; watch --count 1 so"], in: ws, baseURL: url)
        XCTAssertEqual(redirected.status, 0, redirected.summary)
        XCTAssertEqual(((try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))) as? [String: Any])?["pageSize"] as? Int, 2,
                       redirected.summary)
        let kept = SXK.run(["-c", "alias two='orders --page-size 2'; let x = compare --as role:storeAdmin -- two; let y = watch --count 1 two .list[0].orderNo; vars --json"],
                           in: ws, baseURL: url)
        XCTAssertEqual(kept.status, 0, kept.summary)
        let vars = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(kept.stdout.utf8)) as? [String: Any], kept.summary)
        XCTAssertTrue((vars["y"] as? String ?? "").hasPrefix("SX"), kept.summary)
        XCTAssertNotNil(vars["x"] as? [String: Any], kept.summary)
    }

    func testStartupFileRunsOnlyInTheREPL() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let dir = ws.configHome + "/sxk"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "alias w=whoami\nversion\n".write(toFile: dir + "/sxkrc", atomically: true, encoding: .utf8)
        chmod(dir + "/sxkrc", 0o600)
        for run in [SXK.run(["-c", "w"], in: ws, baseURL: url), SXK.run(["w"], in: ws, baseURL: url),
                    SXK.run([], in: ws, baseURL: url, stdin: "w\n")] {
            XCTAssertEqual(run.status, 2, "the startup file ran outside the REPL: \(run.summary)")
            XCTAssertFalse(run.stdout.contains("sxk 0."), run.summary)
        }
    }

    func testHistoryHereMatchesTheSessionsProfileAndScope() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        // Lines as a REPL would have saved them: the --base-url run's profile (`127.0.0.1-PORT`), two stores.
        func line(_ command: String, store: String, role: String = "storeAdmin") -> String {
            let context = #"{"profile":"\#(ws.profile)","env":"custom","role":"\#(role)","scenicId":"1","scenicName":"西湖景区","storeId":"\#(store)","at":1700000000}"#
            return (command + "\t#@sxk " + context).replacingOccurrences(of: " ", with: "\\040").replacingOccurrences(of: "\t", with: "\\011")
        }
        let file = ["_HiStOrY_V2_", line("orders --limit 1", store: "101"), line("store 102", store: "101"),
                    line("orders --limit 2", store: "102"), "whoami", line("stats", store: "101")].joined(separator: "\n") + "\n"
        try file.write(toFile: ws.historyFile, atomically: true, encoding: .utf8)
        server.resetRequestLog()
        let r = SXK.run(["history", "--here", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let rows = try XCTUnwrap(try r.json() as? [[String: Any]], r.summary)
        XCTAssertEqual(rows.map { $0["line"] as? String }, ["orders --limit 1", "store 102", "stats"])
        XCTAssertEqual(rows.map { $0["n"] as? Int }, [1, 2, 5])
        let all = SXK.run(["history"], in: ws, baseURL: url)
        XCTAssertTrue(all.stdout.contains("\(ws.profile) storeAdmin@西湖景区/102  orders --limit 2"), all.summary)
        XCTAssertEqual(server.requestLog().count, 0, "history asked the server")
    }

    /// `vars`, `alias` and `history` print through the renderer in the real binary: `--csv`, `--jq`,
    /// and the session's live token masked in an alias's words.
    func testBuiltinsPrintCSVAndJQWithTheTokenMasked() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let token = try XCTUnwrap(ws.token(), "no token after login")
        let r = SXK.run(["-c", """
            let no = orders --limit 1 .list[0].orderNo
            unset _
            vars --csv
            vars --jq .no
            alias so='orders --role storeAdmin' t='echo \(token)'
            alias --csv
            alias so --jq .so
            alias t --json
            """], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 8, r.summary)
        XCTAssertEqual(lines[0], "name,value,from")
        XCTAssertTrue(lines[1].hasPrefix("no,") && lines[1].hasSuffix(",orders --limit 1 .list[0].orderNo"), r.summary)
        let orderNo = String(lines[1].dropFirst(3).prefix { $0 != "," })
        XCTAssertEqual(lines[2], orderNo)
        XCTAssertEqual(Array(lines[3...6]), ["name,words", "so,orders --role storeAdmin", "t,echo '***'", "orders --role storeAdmin"])
        // Masked as `history` shows a masked word: quoted, so the line reads back as one word.
        XCTAssertEqual(lines[7], #"{"t":"echo '***'"}"#)
        XCTAssertFalse(r.stdout.contains(token) || r.stderr.contains(token), r.summary)

        let history = SXK.run(["history", "--csv"], in: ws, baseURL: url)
        XCTAssertEqual(history.status, 0, history.summary)
        XCTAssertEqual(history.stdout, "n,line,profile,env,role,scenicId,scenicName,storeId,at\n", "-c runs keep no history: \(history.summary)")
        let none = SXK.run(["history", "--jq", "length"], in: ws, baseURL: url)
        XCTAssertEqual(none.stdout, "0\n", none.summary)
    }
}
