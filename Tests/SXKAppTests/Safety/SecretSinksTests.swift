import Foundation
import SXKCore
import SXKSandbox
import XCTest

/// The one secret rule in every sink, through the real binary against the hostile sandbox's echo
/// route (`SandboxHostile.echo`): what is sent under a secret name, what the server plants under
/// one, and the token it echoes back in other forms never reach stdout, stderr, the trace, `curl N`
/// or a HAR file; names that only look like secret ones stay visible.
final class SecretSinksTests: XCTestCase {
    private static let sandbox: (SandboxServer, URL)? = try? startSandbox(SandboxConfig(ordersPerRole: 10, hostile: true))
    private var url: URL { Self.sandbox!.1 }

    override func setUpWithError() throws {
        try XCTSkipIf(Self.sandbox == nil, "the hostile sandbox did not start")
    }

    private let sent = ["PW-CAP1", "RT-3333", "AK-QUERY", "CS-SENT9"]
    private var planted: [String] { SandboxHostile.plantedSecrets.map(\.value) + ["NP-PLANT-7", "XK-PLANT-8"] }

    /// No secret in `text`, and (but for `--raw` into a pipe, byte-exact by design) no raw control.
    private func assertClean(_ text: String, _ what: String, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) {
        for secret in sent + planted + extra where text.contains(secret) {
            XCTFail("\(what) holds \(secret):\n\(text.prefix(1500))", file: file, line: line)
        }
        if what.contains("--raw") && what.contains("stdout") { return }
        let raw = text.unicodeScalars.filter { $0 != "\n" && $0 != "\t" && TerminalText.isControl($0) }
        XCTAssertTrue(raw.isEmpty, "\(what): raw \(raw.map { String(format: "U+%04X", $0.value) })", file: file, line: line)
    }

    private func loggedIn() throws -> (Workspace, String) {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        return (ws, try XCTUnwrap(ws.token()))
    }

    func testQueryNamesAndResponseMembersInEveryFormat() throws {
        let (ws, token) = try loggedIn()
        let query = ["Password=PW-CAP1", "refresh_token=RT-3333", "X-Api-Key=AK-QUERY", "client-secret=CS-SENT9", "passport=E-VISIBLE"]
        for (global, format) in [([], []), ([], ["--json"]), ([], ["--raw"]), (["--trace"], []), (["--json"], []), ([], ["--print", "hb"])] {
            let r = SXK.run(global + ["get", SandboxHostile.echoPath] + query + format, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, "\(format) \(r.summary)")
            assertClean(r.stdout, "\(global)\(format) stdout", extra: [token])
            assertClean(r.stderr, "\(global)\(format) stderr", extra: [token])
        }
        // The echo route repeats the query in a response header: the HAR keeps it masked.
        let har = ws.root + "/get.har"
        let saved = SXK.run(["-c", "get \(SandboxHostile.echoPath) \(query.joined(separator: " ")); har save \(har)"], in: ws, baseURL: url)
        XCTAssertEqual(saved.status, 0, saved.summary)
        let file = String(decoding: try XCTUnwrap(ws.read(har)), as: UTF8.self)
        XCTAssertTrue(file.contains(SandboxHostile.echoHeaderName), "the echoed header is in the HAR")
        assertClean(file, "HAR file", extra: [token])
        let json = SXK.run(["--json", "get", SandboxHostile.echoPath] + query, in: ws, baseURL: url)
        for (_, value) in SandboxHostile.plantedVisible { XCTAssertTrue(json.stdout.contains(value), "\(value) stays visible: \(json.stdout)") }
        XCTAssertTrue(json.stdout.contains("E-VISIBLE"), json.stdout)
    }

    func testPostedPasswordsInTraceCurlAndHAR() throws {
        let (ws, token) = try loggedIn()
        let har = ws.root + "/echo.har"
        let body = #"{"oldPassword":"PW-CAP1","newPassword":"RT-3333","profile":{"apiKey":"AK-QUERY"}}"#
        // The echo route sends the body back in a header as well: shown (`--print h`) and saved masked.
        let r = SXK.run(["--trace", "-c", "post \(SandboxHostile.echoPath) '\(body)' --print hb; curl 1; curl 1 --json; har save \(har)"],
                        in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("< \(SandboxHostile.echoHeaderName):"), r.summary)
        assertClean(r.stdout, "stdout", extra: [token])
        assertClean(r.stderr, "stderr", extra: [token])
        let file = String(decoding: try XCTUnwrap(ws.read(har)), as: UTF8.self)
        assertClean(file, "HAR file", extra: [token])
        XCTAssertTrue(file.contains("E1234567"), "visible members kept in the HAR")
    }

    /// A value sent under a secret name is a live secret for the rest of the run: an answer that
    /// repeats it under another name (`note`) is masked in every format, `--raw` too; a secret pair
    /// typed into the path's own query, after its first pair, counts as one in every view.
    func testATypedSecretIsMaskedWhereverTheAnswerRepeatsIt() throws {
        let (ws, token) = try loggedIn()
        for format in [[], ["--json"], ["--raw"], ["--print", "hb"]] {
            let r = SXK.run(["get", SandboxHostile.echoPath, "password=PW-TYPED42", "note=PW-TYPED42"] + format, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, "\(format) \(r.summary)")
            assertClean(r.stdout, "\(format) stdout", extra: [token, "PW-TYPED42"])
            assertClean(r.stderr, "\(format) stderr", extra: [token, "PW-TYPED42"])
        }
        // `curl N` and a HAR file show the request as sent: the copy under another name masked too.
        let har = ws.root + "/typed.har"
        let recorded = SXK.run(["-c", "get \(SandboxHostile.echoPath) password=PW-TYPED46 note=PW-TYPED46; post \(SandboxHostile.echoPath) password=PW-TYPED47 repeat=PW-TYPED47; curl 1; curl 2; har save \(har)"],
                               in: ws, baseURL: url)
        XCTAssertEqual(recorded.status, 0, recorded.summary)
        assertClean(recorded.stdout, "curl stdout", extra: [token, "PW-TYPED46", "PW-TYPED47"])
        assertClean(String(decoding: try XCTUnwrap(ws.read(har)), as: UTF8.self), "HAR file", extra: [token, "PW-TYPED46", "PW-TYPED47"])
        for args in [["--trace", "get", SandboxHostile.echoPath + "?a=1&password=PW-INLINE43", "--json"],
                     ["watch", "--count", "1", "get", SandboxHostile.echoPath + "?a=1&password=PW-INLINE44"],
                     ["compare", "--as", "current", "get", SandboxHostile.echoPath + "?password=PW-INLINE45"]] {
            let r = SXK.run(args, in: ws, baseURL: url, timeout: 20)
            XCTAssertEqual(r.status, 0, "\(args) \(r.summary)")
            let inline = args.first { $0.contains("PW-INLINE") }.map { String($0.split(separator: "=").last!) } ?? ""
            assertClean(r.stdout, "\(args.prefix(2)) stdout", extra: [token, inline])
            assertClean(r.stderr, "\(args.prefix(2)) stderr", extra: [token, inline])
        }
    }

    /// `watch` and `compare` print through the same rule.
    func testWatchAndCompare() throws {
        let (ws, token) = try loggedIn()
        let query = ["Password=PW-CAP1", "refresh_token=RT-3333", "X-Api-Key=AK-QUERY"]
        for args in [["watch", "--count", "1", "get", SandboxHostile.echoPath] + query,
                     ["compare", "--as", "current", "get", SandboxHostile.echoPath] + query + ["--json"],
                     ["compare", "--as", "current", "get", SandboxHostile.echoPath] + query] {
            let r = SXK.run(args, in: ws, baseURL: url, timeout: 20)
            XCTAssertEqual(r.status, 0, "\(args) \(r.summary)")
            assertClean(r.stdout, "\(args.prefix(2)) stdout", extra: [token])
            assertClean(r.stderr, "\(args.prefix(2)) stderr", extra: [token])
        }
    }

    /// A server message quoting what it was sent: masked by name and by value in the error line.
    func testAnErrorMessageQuotingItsInput() throws {
        let (ws, token) = try loggedIn()
        let r = SXK.run(["get", SandboxHostile.echoPath, "fail=1", "Password=PW-CAP1", "api_key=AK-QUERY"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        assertClean(r.stderr, "error line", extra: [token])
        XCTAssertTrue(r.stderr.contains("rejected"), r.stderr)
        let posted = SXK.run(["post", SandboxHostile.echoPath + "?fail=1", #"{"newPassword":"RT-3333","x":1}"#], in: ws, baseURL: url)
        XCTAssertEqual(posted.status, 1, posted.summary)
        assertClean(posted.stderr, "error line of a post", extra: [token])
    }

    /// The token echoed upper-cased, as base64 and as its first 20 characters, in every format.
    func testTheTokenInEchoedForms() throws {
        let (ws, token) = try loggedIn()
        let forms = [token, token.uppercased(), Data(token.utf8).base64EncodedString(), String(token.prefix(20))]
        for (global, format) in [([], []), ([], ["--json"]), ([], ["--raw"]), (["--trace"], [])] {
            let r = SXK.run(global + ["get", "/api/yf-handset-app/userinfo"] + format, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            assertClean(r.stdout, "\(global)\(format) stdout", extra: forms)
            assertClean(r.stderr, "\(global)\(format) stderr", extra: forms)
        }
    }
}
