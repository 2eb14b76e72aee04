import Foundation
import SXKCore
import SXKSandbox
import XCTest

/// `--jq` end to end, and the hostile sandbox's echoed tokens and controls through every format.
final class JQAndMaskingTests: XCTestCase {
    func testJQFiltersCompileErrorsSendNothingAndLetKeepsTheResult() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let numbers = SXK.run(["orders", "--jq", ".list[].orderNo"], in: ws, baseURL: url)
        XCTAssertEqual(numbers.status, 0, numbers.summary)
        let lines = numbers.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 20, numbers.summary)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("SX") }, "strings print raw: \(numbers.stdout)")
        let first = String(lines[0])
        let selected = SXK.run(["orders", "--jq", "[.list[] | select(.orderNo == \"\(first)\")] | length"], in: ws, baseURL: url)
        XCTAssertEqual(selected.stdout, "1\n", selected.summary)

        let before = server.requestLog().count
        let bad = SXK.run(["orders", "--jq", ".list["], in: ws, baseURL: url)
        XCTAssertEqual(bad.status, 2, bad.summary)
        XCTAssertEqual(bad.errorLines.count, 1, bad.summary)
        XCTAssertEqual(server.requestLog().count, before, "a request was sent for a bad --jq")
        let runtime = SXK.run(["orders", "--jq", ".list | error(\"boom\")"], in: ws, baseURL: url)
        XCTAssertEqual(runtime.status, 1, runtime.summary)
        XCTAssertEqual(runtime.errorLines, ["error: --jq: boom"], runtime.summary)
        XCTAssertEqual(SXK.run(["orders", "--jq", ".", "--csv"], in: ws, baseURL: url).status, 2)

        let kept = SXK.run(["-c", "let n = orders --jq .list[0].orderNo; orders --all --limit 30 --ndjson; let m = .[29].orderNo; vars --json"], in: ws, baseURL: url)
        XCTAssertEqual(kept.status, 0, kept.summary)
        let vars = try XCTUnwrap(kept.stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, kept.summary)
        XCTAssertEqual(vars["n"] as? String, first)
        XCTAssertEqual((vars["m"] as? String)?.hasPrefix("SX"), true, kept.summary)
    }

    func testHostileTokensAndControlsNeverReachOutput() throws {
        let (server, url) = try startSandbox(SandboxConfig(ordersPerRole: 30, hostile: true))
        defer { server.stop() }
        let ws = Workspace()
        let login = SXK.login("13800000001", in: ws, baseURL: url)
        var runs: [([String], RunResult)] = [(["login"], login)]
        let userinfo = ["get", "/api/yf-handset-app/userinfo"]
        for extra in [[], ["--json"], ["--raw"], ["--jq", ".debug"]] { runs.append((userinfo + extra, SXK.run(userinfo + extra, in: ws, baseURL: url))) }
        for args in [["profile"], ["profile", "--json"], ["watch", "--count", "1", "-n", "0.1"] + userinfo, ["whoami"], ["accounts"],
                     ["compare", "--as", "role:photographer", "--"] + userinfo] {
            runs.append((args, SXK.run(args, in: ws, baseURL: url)))
        }
        for format in [[], ["--json"], ["--ndjson"], ["--csv"], ["--tsv"], ["--expanded"], ["--jq", ".list[].customerName"]] {
            runs.append((["orders"] + format, SXK.run(["orders"] + format, in: ws, baseURL: url)))
        }
        let tokens = Set(server.requestLog().flatMap { $0.headers.filter { $0.name == "token" }.map(\.value) }).filter { !$0.isEmpty }
        XCTAssertFalse(tokens.isEmpty)
        for (args, r) in runs {
            XCTAssertEqual(r.status, 0, "\(args): \(r.summary)")
            for token in tokens { XCTAssertFalse(r.stdout.contains(token) || r.stderr.contains(token), "\(args): token printed") }
            // --raw into a pipe is byte-exact (README, Output); every other output is inert.
            if args.contains("--raw") { continue }
            for (name, text) in [("stdout", r.stdout), ("stderr", r.stderr)] {
                let found = text.unicodeScalars.filter { $0 != "\n" && !(args.contains("--tsv") && $0 == "\t") && TerminalText.isControl($0) }
                XCTAssertTrue(found.isEmpty, "\(args) \(name): raw controls \(found.map { $0.value })")
            }
        }
        let raw = try XCTUnwrap(runs.first { $0.0.contains("--raw") }?.1)
        XCTAssertTrue(raw.stdout.unicodeScalars.contains("\u{202E}"), "--raw into a pipe is no longer byte-exact")
    }
}
