import Foundation
import SXKSandbox
import XCTest

/// Commands continued over several lines outside the REPL: piped input, `-c` and scripts join
/// lines by the REPL's rule (`LineJoiner`).
final class ContinuationLinesTests: SandboxTestCase {
    func testPipedInputJoinsBackslashAndOpenQuoteLines() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.resetRequestLog()
        let piped = "get /api/app/config \\\n  --json\npost /api/app/x '{\"a\":\n1}'\nversion\n"
        let r = SXK.run(["--keep-going"], in: ws, baseURL: url, stdin: piped)
        XCTAssertTrue(r.stdout.contains("enableRegister"), r.summary)
        XCTAssertTrue(r.stdout.contains("sxk "), "version ran: \(r.summary)")
        XCTAssertFalse(r.stderr.contains("unfinished") || r.stderr.contains("unterminated") || r.stderr.contains("unknown command"), r.summary)
        let bodies = server.requestLog().filter { $0.path == "/api/app/x" }.map(\.body)
        XCTAssertEqual(bodies.map { $0.filter { !$0.isWhitespace } }, ["{\"a\":1}"], r.summary)
        XCTAssertEqual(server.requestLog().filter { $0.path == "/api/app/config" }.count, 1)
    }

    func testUnclosedQuoteAtEndOfPipedInputIsOneUsageError() {
        let ws = Workspace()
        let r = SXK.run([], in: ws, baseURL: url, stdin: "version\nget '/api/app/config\n--json\n")
        XCTAssertEqual(r.status, 2, r.summary)
        // Named by the line it starts on, as a script file's error is.
        XCTAssertEqual(r.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }, ["error: -:2: unterminated single quote"], r.summary)
    }

    func testDashCAndScriptsContinueATrailingBackslash() throws {
        let ws = Workspace()
        let c = SXK.run(["-c", "get /api/app/config \\\n--json"], in: ws, baseURL: url)
        XCTAssertEqual(c.status, 0, c.summary)
        XCTAssertTrue(c.stdout.contains("enableRegister"), c.summary)
        let script = URL(fileURLWithPath: ws.root).appendingPathComponent("checks.sxk")
        try "get /api/app/config \\\n  --json\n".write(to: script, atomically: true, encoding: .utf8)
        let s = SXK.run([script.path], in: ws, baseURL: url)
        XCTAssertEqual(s.status, 0, s.summary)
        XCTAssertTrue(s.stdout.contains("enableRegister"), s.summary)
    }
}
