import Foundation
import SXKCore
import SXKSandbox
import XCTest

/// One backend in the two spellings the wire contract allows, side by side: the same data, the same
/// clock, one sandbox answering camelCase, the other snake_case with numbers and booleans as strings
/// and `message` for `msg`. Everything sxk decodes — tables, `whoami`, `keys`, the replays, the
/// stored state — must come out the same; only `--raw` / `--json` of a payload may differ, since
/// they show it as received.
final class SpellingParityTests: XCTestCase {
    private struct Pair {
        let camel: (server: SandboxServer, url: URL)
        let snake: (server: SandboxServer, url: URL)
    }

    /// Same seed, same reference date, same frozen clock: only the spelling differs.
    private static let pair: Pair? = {
        let clock = FixedClock(Date())
        func start(_ spelling: SandboxSpelling) -> (SandboxServer, URL)? {
            try? startSandbox(SandboxConfig(ordersPerRole: 200, referenceDate: clock.now(), clock: clock), spelling: spelling)
        }
        guard let camel = start(.camel), let snake = start(.snake) else { return nil }
        return Pair(camel: camel, snake: snake)
    }()

    private func sandboxes() throws -> Pair { try XCTUnwrap(Self.pair, "the two sandboxes did not start") }

    /// Commands that print what sxk decoded (never the payload as received).
    private static let typedViews = [
        "whoami", "keys", "accounts", "role", "scenic", "store", "permissions", "permissions --all", "menus", "menus common",
        "location", "location detail", "orders --page-size 5", "orders --page-size 3 --csv", "orders --page-size 2 --expanded",
        "orders --page-size 3 --columns orderNo,customerPhone,createTime --tsv", "orders --page-size 6 --columns orderNo,customerName,amount --csv", "orders --all --limit 3",
        "stats", "stats --period week", "stats --period month --chart", "profile", "config",
        "home --offline", "home", "boot", "explain dialog", "explain scope", "explain key key_in_role_name", "context diff",
        "whoami --json", "keys --json", "accounts --json", "home --json", "boot --json", "context diff --json", "explain dialog --json",
        // An error envelope: its code and message (`msg` or `message`) in one error line.
        "get /api/app/nope",
    ]

    /// What may differ between two runs whatever the spelling: ports and paths, token tails, save
    /// times and ages, call timings, and whether two sub-millisecond calls happened to overlap.
    private func normalized(_ text: String, _ ws: Workspace, _ url: URL) -> String {
        var out = text.replacingOccurrences(of: ws.stateDir, with: "STATE")
            .replacingOccurrences(of: url.absoluteString, with: "BASE")
            .replacingOccurrences(of: "127.0.0.1-\(url.port!)", with: "PROFILE")
        let patterns = [
            (#"sxk_…[0-9a-f]{4}"#, "TOKEN"),
            (#"1[0-9]{9}\.[0-9]{1,3}"#, "SAVED"),
            (#""(ms|startMs|endMs)":[0-9.]+"#, #""$1":N"#),
            (#"[0-9]+(\.[0-9]+)? ms\b"#, "N ms"),
            (#"[0-9]+\.[0-9]{2} s\b"#, "N s"),
            (#"\b[0-9]+[0-9hms]*s ago\b"#, "AGE ago"),
            (#""(snapshotAgeSeconds|validatedAgeSeconds)":[0-9.]+"#, #""$1":N"#),
            ("loaded (concurrently|one after the other)", "loaded"),
            (#"(stored|snapshot last saved) [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} [+-][0-9:]{5}"#, "$1 AT"),
        ]
        for (pattern, template) in patterns {
            out = out.replacingOccurrences(of: pattern, with: template, options: .regularExpression)
        }
        return out
    }

    /// The profile's stored state without what differs by run (token, save and validation times).
    private func storedState(_ ws: Workspace) throws -> [String: NSObject] {
        var object = try XCTUnwrap(try ws.defaultsObject() as? [String: NSObject])
        for key in ["key_in_token", "sxk_snapshot_saved_at", "sxk_session_validated_at"] { object.removeValue(forKey: key) }
        return object
    }

    private func session(_ script: [String], phone: String, account: String?, against url: URL) -> (Workspace, RunResult, login: [String: NSObject]?) {
        let ws = Workspace()
        SXK.login(phone, in: ws, baseURL: url, account: account)
        let afterLogin = try? storedState(ws)
        let run = SXK.run(["--keep-going", "-c", script.joined(separator: "\n")], in: ws, baseURL: url, timeout: 60)
        return (ws, run, afterLogin)
    }

    /// Fails at the first line that differs, showing both.
    private func assertSameLines(_ camel: String, _ snake: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        guard camel != snake else { return }
        let camelLines = camel.split(separator: "\n", omittingEmptySubsequences: false)
        let snakeLines = snake.split(separator: "\n", omittingEmptySubsequences: false)
        let first = Array(zip(camelLines, snakeLines)).firstIndex { $0 != $1 } ?? min(camelLines.count, snakeLines.count)
        XCTFail("\(label): output differs from line \(first + 1):\n camel: \(camelLines.dropFirst(first).first ?? "(end)")\n snake: \(snakeLines.dropFirst(first).first ?? "(end)")",
                file: file, line: line)
    }

    /// A CSV/TSV header line of camelCase keys (letters only, separated by `,` or a tab) in snake_case.
    static func snakeHeaders(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let sep: Character = line.contains("\t") ? "\t" : ","
            let fields = line.split(separator: sep, omittingEmptySubsequences: false)
            guard fields.count > 1, fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isLetter } }) else { return String(line) }
            return fields.map { JSONObject.snakeCase(String($0)) }.joined(separator: String(sep))
        }.joined(separator: "\n")
    }

    func testEveryTypedViewAndTheStoredStateAreTheSameUnderBothSpellings() throws {
        let pair = try sandboxes()
        for (phone, account, switchTo) in [("13800000001", nil, nil), ("13800000002", nil, nil), ("13800000003", nil, nil), ("13800000004", "1", "3")] as [(String, String?, String?)] {
            var script = Self.typedViews
            if let switchTo { script += ["switch-account \(switchTo)"] + Self.typedViews }
            let (camelWS, camel, camelLogin) = session(script, phone: phone, account: account, against: pair.camel.url)
            let (snakeWS, snake, snakeLogin) = session(script, phone: phone, account: account, against: pair.snake.url)
            XCTAssertNotNil(camelLogin, phone)
            XCTAssertEqual(camelLogin, snakeLogin, "\(phone): the state stored by login differs between the spellings")
            XCTAssertEqual(camel.status, snake.status, "\(phone)\n--- camel\n\(camel.summary)\n--- snake\n\(snake.summary)")
            // CSV and TSV headers are the keys the server sent (`--columns` selects, never renames):
            // the one place the spelling shows in a typed view, so headers are compared respelled.
            let camelOut = Self.snakeHeaders(normalized(camel.stdout, camelWS, pair.camel.url))
            let snakeOut = normalized(snake.stdout, snakeWS, pair.snake.url)
            assertSameLines(camelOut, snakeOut, phone)
            XCTAssertEqual(normalized(camel.stderr, camelWS, pair.camel.url), normalized(snake.stderr, snakeWS, pair.snake.url), phone)
            XCTAssertEqual(try storedState(camelWS), try storedState(snakeWS), "\(phone): the state stored after the views differs")
            XCTAssertEqual(try XCTUnwrap(camelWS.read(camelWS.profileDir + "/accounts.json")), try XCTUnwrap(snakeWS.read(snakeWS.profileDir + "/accounts.json")), phone)
        }
    }

    /// A device export whose stored lists are spelled snake_case with numbers and booleans as strings
    /// (an app talking to such a backend keeps the lists as received) imports to the same state, and
    /// the offline views of it agree, as an export with the lists in camelCase.
    func testAnExportWithSnakeCaseListsImportsToTheSameState() throws {
        let pair = try sandboxes()
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: pair.camel.url, account: "3")
        var device = try ws.defaultsObject()
        for key in device.keys where key.hasPrefix("sxk_") { device.removeValue(forKey: key) }
        device["key_in_token"] = try XCTUnwrap(ws.token())
        // One file name in two folders: the snapshot's source (`whoami`) names the file.
        try FileManager.default.createDirectory(atPath: ws.root + "/camel", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: ws.root + "/snake", withIntermediateDirectories: true)
        let camelFile = ws.root + "/camel/device.json", snakeFile = ws.root + "/snake/device.json"
        let camelData = try JSONSerialization.data(withJSONObject: device)
        try camelData.write(to: URL(fileURLWithPath: camelFile))
        var snakeDevice = try XCTUnwrap(try JSONParser.parse([UInt8](camelData)).objectValue)
        var respelled = 0
        for entry in snakeDevice.entries where entry.value.arrayValue?.first?.objectValue != nil {
            snakeDevice[entry.key] = SandboxSpelling.snake.respell(entry.value)
            respelled += 1
        }
        XCTAssertGreaterThanOrEqual(respelled, 3, "the role list, the permissions and the scenic list")
        let snakeText = JSONWriter.string(.object(snakeDevice))
        XCTAssertTrue(snakeText.contains(#""role_code":"storeAdmin""#) && snakeText.contains(#""scenic_id":"3""#), snakeText)
        try Data(snakeText.utf8).write(to: URL(fileURLWithPath: snakeFile))

        var views: [String: String] = [:]
        for (profile, file) in [("camel", camelFile), ("snake", snakeFile)] {
            let imported = SXK.run(["import-defaults", "--profile", profile, file], in: ws, baseURL: pair.camel.url)
            XCTAssertEqual(imported.status, 0, imported.summary)
            let run = SXK.run(["--profile", profile, "--keep-going", "-c", "keys --json; whoami; home --offline; explain dialog; explain scope; menus; role; scenic"],
                              in: ws, baseURL: pair.camel.url)
            XCTAssertEqual(run.status, 0, run.summary)
            XCTAssertFalse(run.stdout.contains("_store_key_in_permission = 0 permissions"), run.stdout)
            views[profile] = run.stdout.replacingOccurrences(of: ws.stateDir + "/" + profile, with: "PROFILE")
                .replacingOccurrences(of: ws.root + "/" + profile + "/device.json", with: "FILE")
                .replacingOccurrences(of: "(profile\\s+)\(profile)\\b", with: "$1P", options: .regularExpression)
        }
        assertSameLines(views["camel"] ?? "", views["snake"] ?? "", "imported")
    }

    /// A refused login says the server's message, read from `msg` or `message`.
    func testServerMessagesAreTheSameUnderBothSpellings() throws {
        let pair = try sandboxes()
        var lines: [[String]] = []
        for url in [pair.camel.url, pair.snake.url] {
            let r = SXK.run(["login", "13800000001", "--password-stdin", "--accept-privacy"], in: Workspace(), baseURL: url, stdin: "not-the-password\n")
            XCTAssertEqual(r.status, 1, r.summary)
            lines.append(r.errorLines)
        }
        XCTAssertEqual(lines.first?.count, 1)
        XCTAssertTrue(lines.first?.first?.contains("100010") == true && lines.first?.first?.contains("账号或密码错误") == true, "\(lines)")
        XCTAssertEqual(lines.first, lines.last)
    }

    /// The views that show the payload as received do follow the spelling: that is what the user asked to see.
    func testRawAndJSONShowThePayloadAsReceived() throws {
        let pair = try sandboxes()
        let script = "get /api/yf-handset-app/userinfo --raw\norders --page-size 1 --json"
        let (_, camel, _) = session([script], phone: "13800000001", account: nil, against: pair.camel.url)
        let (_, snake, _) = session([script], phone: "13800000001", account: nil, against: pair.snake.url)
        XCTAssertTrue(camel.stdout.contains(#""msg":"success""#) && camel.stdout.contains(#""userId":1001"#), camel.summary)
        XCTAssertTrue(snake.stdout.contains(#""message":"success""#) && snake.stdout.contains(#""user_id":"1001""#), snake.summary)
        XCTAssertTrue(snake.stdout.contains(#""order_id":""#) && !snake.stdout.contains(#""orderId""#), snake.summary)
    }
}

/// The spelling option where the sandbox is started: `SXK_SANDBOX_SPELLING` for `sxk --sandbox`,
/// `--spelling` for `sxk-sandbox`.
final class SandboxSpellingOptionTests: XCTestCase {
    func testSXKSandboxSpellingEnvironmentVariable() throws {
        let ws = Workspace()
        let script = "login 13800000001 --password-stdin --accept-privacy; get /api/yf-handset-app/userinfo --raw; whoami --json"
        let snake = SXK.run(["--sandbox", "-c", script], in: ws, baseURL: nil, stdin: SXK.password + "\n", env: ["SXK_SANDBOX_SPELLING": "snake"])
        XCTAssertEqual(snake.status, 0, snake.summary)
        XCTAssertTrue(snake.stdout.contains(#""message":"success""#) && snake.stdout.contains(#""user_id":"1001""#), snake.summary)
        XCTAssertTrue(snake.stdout.contains(#""userId":1001"#), "whoami is typed: \(snake.summary)")

        let camel = SXK.run(["--sandbox", "-c", script], in: Workspace(), baseURL: nil, stdin: SXK.password + "\n", env: ["SXK_SANDBOX_SPELLING": "camel"])
        XCTAssertTrue(camel.stdout.contains(#""msg":"success""#) && camel.stdout.contains(#""userId":1001,"#), camel.summary)

        let bad = SXK.run(["--sandbox", "whoami"], in: Workspace(), baseURL: nil, env: ["SXK_SANDBOX_SPELLING": "kebab"])
        XCTAssertEqual(bad.status, 2, bad.summary)
        XCTAssertEqual(bad.errorLines, ["error: SXK_SANDBOX_SPELLING must be camel|snake, not 'kebab'"], bad.summary)
    }

    func testStandaloneSandboxSpellingOption() throws {
        let binary = URL(fileURLWithPath: SXKBinary.path).deletingLastPathComponent().appendingPathComponent("sxk-sandbox").path
        let ws = Workspace()
        let bad = SXK.runProcess(["--spelling", "kebab"], executable: binary, env: ws.environment, stdin: Data(), timeout: 10)
        XCTAssertEqual(bad.status, 2, bad.summary)
        XCTAssertTrue(bad.stderr.contains("--spelling wants camel|snake, got 'kebab'"), bad.summary)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--spelling", "snake", "--orders", "5"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let drain = PipeDrain(out.fileHandleForReading)
        let deadline = Date().addingTimeInterval(10)
        var banner = ""
        while Date() < deadline {
            banner = String(decoding: drain.snapshot, as: UTF8.self)
            if banner.contains("\n") { break }
            usleep(20_000)
        }
        XCTAssertTrue(banner.contains("snake_case answers"), banner)
        let address = try XCTUnwrap(banner.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init), banner)
        let config = SXK.run(["config", "--raw"], in: ws, baseURL: try XCTUnwrap(URL(string: address)))
        XCTAssertEqual(config.status, 0, config.summary)
        XCTAssertTrue(config.stdout.contains(#""code":"100000","message":"success""#) && config.stdout.contains(#""enable_register":"0""#), config.summary)
    }
}
