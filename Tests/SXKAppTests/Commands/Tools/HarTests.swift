import Foundation
import SXKAPI
import SXKCore
import XCTest
@testable import SXKApp

/// HAR 1.2 export, trace and timing lines from transfer metrics, fed by a `ClosureTransport` whose
/// responses carry metrics (the transports of this build report none yet).
final class HarTests: XCTestCase {
    static let token = "sxk_tok_9f8e7d6c5b4a39281706"
    static let password = "pa55-Secret!"

    /// HAR 1.2 required fields (and optional ones sxk writes), with their JSON types.
    enum Kind { case string, number, array, object }
    static let required: [String: [(String, Kind)]] = [
        "log": [("version", .string), ("creator", .object), ("entries", .array)],
        "creator": [("name", .string), ("version", .string)],
        "entry": [("startedDateTime", .string), ("time", .number), ("request", .object), ("response", .object),
                  ("cache", .object), ("timings", .object)],
        "request": [("method", .string), ("url", .string), ("httpVersion", .string), ("cookies", .array), ("headers", .array),
                    ("queryString", .array), ("headersSize", .number), ("bodySize", .number)],
        "response": [("status", .number), ("statusText", .string), ("httpVersion", .string), ("cookies", .array),
                     ("headers", .array), ("content", .object), ("redirectURL", .string), ("headersSize", .number), ("bodySize", .number)],
        "content": [("size", .number), ("mimeType", .string)],
        "cache": [],
        "timings": [("send", .number), ("wait", .number), ("receive", .number)],
        "optionalTimings": [("blocked", .number), ("dns", .number), ("connect", .number), ("ssl", .number)],
        "nameValue": [("name", .string), ("value", .string)],
        "postData": [("mimeType", .string), ("text", .string)],
    ]

    static let metrics = TransferMetrics(
        httpVersion: "h2", connectionReused: false, remoteAddress: "127.0.0.1:8443", dnsDone: 0.001, connected: 0.002,
        tlsDone: 0.010, firstByte: 0.030, total: 0.032, requestBytes: 120, responseBodyBytes: 64)

    /// A login (password in the body, token echoed in the answer) and an authenticated GET with a
    /// query, sent through an `APIClient` over a closure transport; the ring records as the shell's does.
    func recordedSession(observer: any APIObserver = SilentObserver()) async throws -> RequestRing {
        let ring = RequestRing()
        let transport = ClosureTransport { request in
            let (number, secrets) = ring.begin(request)
            let body: String
            var metrics = HarTests.metrics
            if request.url.path.hasSuffix("/login") {
                body = #"{"code":100000,"msg":"ok","data":{"token":"\#(HarTests.token)","echo":"\#(HarTests.password)"}}"#
            } else {
                body = #"{"code":100000,"msg":"you sent \#(HarTests.token)","data":{"list":[1,2]}}"#
                metrics.connectionReused = true
            }
            let response = HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("Set-Cookie", "sid=abc")]),
                                        body: Array(body.utf8), metrics: metrics)
            ring.finish(number, response: response, bodySecrets: secrets, elapsedMs: 32)
            return response
        }
        let client = APIClient(configuration: APIConfiguration(environment: .custom(URL(string: "http://127.0.0.1:9")!)),
                               transport: transport, observer: observer, tokenProvider: { nil })
        _ = try await client.post("/api/app/v9/login", body: ["username": "13800000001", "password": .string(Self.password)])
        client.bindTokenProvider { HarTests.token }
        _ = try await client.get("/api/x", query: [("keyword", "西湖 1"), ("token", Self.token)])
        return ring
    }

    /// A server that echoes the password in a header (a debug field, a redirect's `Location`) has
    /// it masked in the ring, so no HAR file or `--print h` line carries it.
    func testAPasswordEchoedInHeadersIsNotKept() throws {
        let ring = RequestRing()
        let body = Array(#"{"username":"13800000001","password":"\#(Self.password)"}"#.utf8)
        let (number, secrets) = ring.begin(HTTPRequest(method: "POST", url: URL(string: "http://127.0.0.1:9/api/app/v9/login")!, body: body))
        let response = HTTPResponse(status: 302, headers: HTTPHeaders([("X-Debug-Pw", Self.password), ("Location", "/next?p=\(Self.password)")]), text: "{}")
        ring.finish(number, response: response, bodySecrets: secrets, elapsedMs: 1)
        let text = JSONWriter.string(HARExport.document(ring.all, secrets: [Self.token], version: "9.9"))
        XCTAssertFalse(text.contains(Self.password), text)
        XCTAssertTrue(text.contains("X-Debug-Pw"), text)
    }

    func testTheDocumentHasEveryRequiredHAR12FieldWithItsType() async throws {
        let ring = try await recordedSession()
        let text = JSONWriter.string(HARExport.document(ring.all, secrets: [Self.token], version: "9.9"))
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let log = try XCTUnwrap(doc["log"] as? [String: Any])
        check(log, "log")
        XCTAssertEqual(log["version"] as? String, "1.2")
        check(try XCTUnwrap(log["creator"] as? [String: Any]), "creator")
        let entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        for entry in entries {
            check(entry, "entry")
            let started = try XCTUnwrap(entry["startedDateTime"] as? String)
            XCTAssertNotNil(ISO8601DateFormatter.withFraction.date(from: started), "not ISO 8601: \(started)")
            let request = try XCTUnwrap(entry["request"] as? [String: Any])
            let response = try XCTUnwrap(entry["response"] as? [String: Any])
            check(request, "request")
            check(response, "response")
            check(try XCTUnwrap(response["content"] as? [String: Any]), "content")
            check(try XCTUnwrap(entry["cache"] as? [String: Any]), "cache")
            let timings = try XCTUnwrap(entry["timings"] as? [String: Any])
            check(timings, "timings")
            check(timings, "optionalTimings")
            for key in ["send", "wait", "receive"] { XCTAssertGreaterThanOrEqual(timings[key] as? Double ?? -1, 0, key) }
            for key in ["blocked", "dns", "connect", "ssl"] { XCTAssertGreaterThanOrEqual(timings[key] as? Double ?? -2, -1, key) }
            // `time` is the sum of the phases that happened (ssl is inside connect).
            let sum = ["blocked", "dns", "connect", "send", "wait", "receive"].map { timings[$0] as? Double ?? 0 }.filter { $0 > 0 }.reduce(0, +)
            XCTAssertEqual(entry["time"] as? Double ?? -1, sum, accuracy: 0.01)
            for list in [request["headers"], request["queryString"], response["headers"]] {
                for item in try XCTUnwrap(list as? [[String: Any]]) { check(item, "nameValue") }
            }
            if let post = request["postData"] as? [String: Any] { check(post, "postData") }
            XCTAssertEqual(response["httpVersion"] as? String, "HTTP/2")
            XCTAssertEqual(entry["serverIPAddress"] as? String, "127.0.0.1")
        }
        // A new TLS connection: dns 1, connect 9 (ssl included), ssl 8, wait 20, receive 2 ms.
        let first = try XCTUnwrap(entries[0]["timings"] as? [String: Double])
        XCTAssertEqual(first["dns"] ?? 0, 1, accuracy: 0.001)
        XCTAssertEqual(first["connect"] ?? 0, 9, accuracy: 0.001)
        XCTAssertEqual(first["ssl"] ?? 0, 8, accuracy: 0.001)
        XCTAssertEqual(first["wait"] ?? 0, 20, accuracy: 0.001)
        XCTAssertEqual(first["receive"] ?? 0, 2, accuracy: 0.001)
        // A reused connection: no dns, connect or ssl.
        let second = try XCTUnwrap(entries[1]["timings"] as? [String: Double])
        XCTAssertEqual([second["dns"], second["connect"], second["ssl"]], [-1, -1, -1])
        let query = try XCTUnwrap((entries[1]["request"] as? [String: Any])?["queryString"] as? [[String: String]])
        XCTAssertEqual(query.first, ["name": "keyword", "value": "西湖 1"])
        XCTAssertEqual(query.last, ["name": "token", "value": "***"])
    }

    func testNoSecretReachesTheFileAndTheMaskingMatchesTrace() async throws {
        let traced = TraceLog()
        let ring = try await recordedSession(observer: ClosureObserver(onResponse: { traced.add($0.description) }))
        let text = JSONWriter.string(HARExport.document(ring.all, secrets: [Self.token], version: "9.9"))
        XCTAssertFalse(text.contains(Self.token), "token in the HAR")
        XCTAssertFalse(text.contains(Self.password), "password in the HAR")
        XCTAssertFalse(text.contains("sid=abc"), "cookie in the HAR")
        XCTAssertTrue(text.contains(#"{\"username\":\"13800000001\",\"password\":\"***\"}"#), text)
        XCTAssertTrue(text.contains(#"\"name\":\"token\",\"value\":\"***\""#) || text.contains(#""name":"token","value":"***""#), text)
        // The response body text is what --trace printed for it.
        let entries = ring.all
        let harBody = SecretScrubber.traceBody(try XCTUnwrap(entries[1].response?.bodyHead), limit: HARExport.textLimit, secrets: [Self.token])
        XCTAssertTrue(traced.lines.contains { $0.contains(harBody) }, "trace: \(traced.lines)\nhar: \(harBody)")
    }

    func testTraceAndTimingShowProtocolReuseAndPhases() async throws {
        let traced = TraceLog()
        let ring = try await recordedSession(observer: ClosureObserver(onResponse: { traced.add($0.description) }))
        let heads = traced.lines.map { String($0.split(separator: "\n")[0]) }
        XCTAssertTrue(heads[0].hasSuffix("(h2, new connection, TLS 8.0 ms)"), heads[0])
        XCTAssertTrue(heads[1].hasSuffix("(h2, reused connection)"), heads[1])
        let timing = RequestTiming.line(ring.all[0], secrets: [Self.token])
        XCTAssertEqual(timing, "POST /api/app/v9/login 200  dns 1.0  connect 1.0  tls 8.0  first byte 20.0  total 32.0 ms  (h2, new connection, TLS 8.0 ms)")
        let reused = RequestTiming.line(ring.all[1], secrets: [Self.token])
        XCTAssertTrue(reused.contains("dns –  connect –  tls –"), reused)
        XCTAssertFalse(reused.contains(Self.token), reused)
    }

    /// Responses without metrics (the transports of this build): what is known, -1 elsewhere.
    func testWithoutMetricsOnlyTheTotalIsKnown() throws {
        let ring = RequestRing()
        let (n, _) = ring.begin(HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/api/y")!))
        ring.finish(n, response: HTTPResponse(status: 404, text: "nope"), bodySecrets: [], elapsedMs: 12.5)
        let timings = HARTimings(metrics: nil, elapsedMs: 12.5)
        XCTAssertEqual([timings.blocked, timings.dns, timings.connect, timings.ssl], [-1, -1, -1, -1])
        XCTAssertEqual(timings.wait, 12.5)
        XCTAssertEqual(timings.total, 12.5)
        XCTAssertEqual(RequestTiming.line(ring.all[0], secrets: []), "GET /api/y 404  total 12.5 ms")
        let entry = try XCTUnwrap(HARExport.entry(ring.all[0], secrets: []).objectValue)
        XCTAssertEqual(entry["response"]?.objectValue?["statusText"]?.stringValue, "Not Found")
        XCTAssertEqual(entry["response"]?.objectValue?["httpVersion"]?.stringValue, "")
        XCTAssertNil(entry["serverIPAddress"])
    }

    /// Query fields as the URL has them decoded: `+` is a plus, `%` and two hex digits a byte, and a
    /// field whose bytes are not UTF-8, or a `%` not followed by two hex digits, stays as written.
    func testQueryStringFieldsAreURLDecoded() {
        let query = HARExport.queryString("http://127.0.0.1:9/api/x?q=a+b&k=%E8%A5%BF%E6%B9%96%201&bad=%D6%D0&sign=%+4&end=%4#frag")
        XCTAssertEqual(query, .array([
            .object(["name": "q", "value": "a+b"]), .object(["name": "k", "value": "西湖 1"]),
            .object(["name": "bad", "value": "%D6%D0"]), .object(["name": "sign", "value": "%+4"]),
            .object(["name": "end", "value": "%4"]),
        ]))
        XCTAssertEqual(Redaction.percentDecoded("x%2Dapi%2dkey+1%+4"), "x-api-key 1% 4")
    }

    func testTheResponseBodyKeptIsBounded() {
        let ring = RequestRing()
        let (n, _) = ring.begin(HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/big")!))
        ring.finish(n, response: HTTPResponse(status: 200, body: [UInt8](repeating: 0x61, count: 1 << 20)), bodySecrets: [], elapsedMs: 1)
        XCTAssertEqual(ring.all[0].response?.bodyHead.count, RequestRing.bodyKeptLimit)
        XCTAssertEqual(ring.all[0].response?.bodySize, 1 << 20)
    }

    func check(_ object: [String: Any], _ table: String, file: StaticString = #filePath, line: UInt = #line) {
        for (name, kind) in Self.required[table] ?? [] {
            guard let value = object[name] else { XCTFail("\(table).\(name) missing", file: file, line: line); continue }
            let ok: Bool
            switch kind {
            case .string: ok = value is String
            case .number: ok = value is NSNumber || value is Int || value is Double
            case .array: ok = value is [Any]
            case .object: ok = value is [String: Any]
            }
            XCTAssertTrue(ok, "\(table).\(name) is not a \(kind): \(value)", file: file, line: line)
        }
    }
}

final class TraceLog: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String] = []
    func add(_ line: String) { lock.withLock { kept.append(line) } }
    var lines: [String] { lock.withLock { kept } }
}

extension ISO8601DateFormatter {
    static var withFraction: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }
}

/// `--har FILE` and `har save` through the real binary against the sandbox.
final class HARFileTests: XCTestCase {
    var url: URL { SharedSandbox.url }

    func testOneShotWithHarWritesAPrivateFileWithoutSecrets() throws {
        let ws = Workspace()
        let harPath = ws.root + "/login.har"
        let login = SXK.run(["--har", harPath, "login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url,
                            stdin: SXK.password + "\n")
        XCTAssertEqual(login.status, 0, login.summary)
        let token = try XCTUnwrap(ws.token())
        XCTAssertEqual(modeOf(harPath), 0o600)
        let data = try XCTUnwrap(ws.read(harPath))
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertFalse(text.contains(token), "token in the HAR file")
        XCTAssertFalse(text.contains(SXK.password), "password in the HAR file")
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try XCTUnwrap((doc["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let urls = entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
        XCTAssertTrue(urls.contains { $0.hasSuffix("/api/app/v9/login") }, "\(urls)")
        XCTAssertTrue(urls.contains { $0.hasSuffix("/api/yf-handset-app/userinfo") }, "\(urls)")

        // A one-shot on the session: its one request, the token header masked.
        let second = ws.root + "/get.har"
        let get = SXK.run(["--har", second, "get", "/api/yf-handset-app/userinfo"], in: ws, baseURL: url)
        XCTAssertEqual(get.status, 0, get.summary)
        let one = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(ws.read(second))) as? [String: Any])
        let only = try XCTUnwrap((one["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(only.count, 1)
        let headers = try XCTUnwrap((only.first?["request"] as? [String: Any])?["headers"] as? [[String: String]])
        XCTAssertEqual(headers.first { $0["name"] == "token" }?["value"], "***")
        XCTAssertFalse(String(decoding: ws.read(second) ?? Data(), as: UTF8.self).contains(token))
    }

    func testHarSaveWritesTheLastNRequests() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let path = ws.root + "/last.har"
        let r = SXK.run(["-c", "get /api/app/config; get /api/yf-handset-app/userinfo; har save \(path) 1"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(modeOf(path), 0o600)
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(ws.read(path))) as? [String: Any])
        let entries = try XCTUnwrap((doc["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }.map { URL(string: $0)?.path },
                       ["/api/yf-handset-app/userinfo"])
        let bad = SXK.run(["-c", "get /api/app/config; har save \(path) 0"], in: ws, baseURL: url)
        XCTAssertEqual(bad.status, 2, bad.summary)
        let none = SXK.run(["har", "save", path], in: ws, baseURL: url)
        XCTAssertEqual(none.status, 1, none.summary)
    }

    /// A FIFO, a device, a directory or a link to one is never replaced by a file: one line, exit 2,
    /// left as it was (`--har` checks before the run); `-` writes the document to stdout.
    /// A HAR file whose folder is missing is refused before anything is sent (2); one that cannot be
    /// written at the end (the folder refuses even root: /proc) makes a run that succeeded end with 1.
    func testAHARFileThatCannotBeWrittenIsNotASuccess() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let server = SharedSandbox.server
        server.resetRequestLog()
        let missing = SXK.run(["--har", ws.root + "/no/such/folder/x.har", "get", "/api/app/config"], in: ws, baseURL: url)
        XCTAssertEqual(missing.status, 2, missing.summary)
        XCTAssertTrue(missing.stderr.contains("its folder: No such file or directory"), missing.summary)
        XCTAssertTrue(server.requestLog().isEmpty, "\(server.requestLog().map(\.path))")
        let lost = SXK.run(["--har", "/proc/sxk-test.har", "get", "/api/app/config", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(lost.status, 1, lost.summary)
        XCTAssertTrue(lost.stdout.contains("latestVersion"), lost.summary)
        XCTAssertTrue(lost.stderr.contains("--har: cannot write HAR file"), lost.summary)
    }

    func testSpecialTargetsAreRefusedWithExit2() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let fifo = ws.root + "/pipe.har", link = ws.root + "/to-full.har"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(symlink("/dev/full", link), 0)
        func kind(_ path: String) -> mode_t {
            var st = stat()
            return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
        }
        for (target, reason) in [(fifo, "it is a FIFO"), (link, "it is a device"), (ws.root, "it is a directory"), ("/dev/full", "it is a device"),
                                 ("/proc/self/fd/1", "it is a FIFO")] {
            let saved = SXK.run(["-c", "get /api/app/config; har save \(target)"], in: ws, baseURL: url, timeout: 10)
            XCTAssertFalse(saved.timedOut, "har save \(target) hung")
            XCTAssertEqual(saved.status, 2, saved.summary)
            XCTAssertEqual(saved.errorLines, ["error: refusing to write \(target): \(reason)"], saved.summary)
            let run = SXK.run(["--har", target, "get", "/api/app/config"], in: ws, baseURL: url, timeout: 10)
            XCTAssertFalse(run.timedOut, "--har \(target) hung")
            XCTAssertEqual(run.status, 2, run.summary)
            XCTAssertEqual(run.errorLines.count, 1, run.summary)
            XCTAssertTrue(run.stderr.contains("refusing to write \(target): \(reason)"), run.summary)
        }
        XCTAssertEqual(kind(fifo), S_IFIFO)
        XCTAssertEqual(kind(link), S_IFLNK)
        XCTAssertEqual(kind("/dev/full"), S_IFCHR)
        // The null device discards, as in sh.
        let discarded = SXK.run(["-c", "get /api/app/config; har save /dev/null"], in: ws, baseURL: url)
        XCTAssertEqual(discarded.status, 0, discarded.summary)
        XCTAssertEqual(kind("/dev/null"), S_IFCHR)
        let out = SXK.run(["-c", "get /api/app/config --json; har save -"], in: ws, baseURL: url)
        XCTAssertEqual(out.status, 0, out.summary)
        XCTAssertTrue(out.stdout.contains("\"creator\""), out.stdout)
        // `-` is the command's stdout: the line's own redirection takes it, as any command's output.
        let file = ws.root + "/redirected.har"
        let redirected = SXK.run(["-c", "get /api/app/config --json >/dev/null; har save - > '\(file)'"], in: ws, baseURL: url)
        XCTAssertEqual(redirected.status, 0, redirected.summary)
        XCTAssertEqual(redirected.stdout, "", redirected.summary)
        XCTAssertTrue(ws.read(file).map { String(decoding: $0, as: UTF8.self) }?.contains("\"creator\"") == true, redirected.summary)
    }
}

extension HarTests {
    /// A body whose live token straddles the HAR's cut shows no part of it, and a whole body whose
    /// masked copy is shorter is not said to be cut.
    func testTheHARCutShowsNoPartOfATokenAndSaysCutOnlyWhenItIs() throws {
        let token = Self.token
        let ring = RequestRing()
        let at = HARExport.textLimit - 15
        let long = Array(("{\"note\":\"" + String(repeating: "x", count: at - 9) + token + String(repeating: "y", count: 4000) + "\"}").utf8)
        let (n, _) = ring.begin(HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/cut")!))
        ring.finish(n, response: HTTPResponse(status: 200, body: long), bodySecrets: [], elapsedMs: 1)
        let small = Array("{\"token\":\"\(token)\",\"echo\":\"\(token)\"}".utf8)
        let (m, _) = ring.begin(HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/small")!))
        ring.finish(m, response: HTTPResponse(status: 200, body: small), bodySecrets: [], elapsedMs: 1)
        let text = JSONWriter.string(HARExport.document(ring.all, secrets: [token], version: "9.9"))
        XCTAssertFalse(text.contains(String(token.prefix(8))), "a part of the token in the HAR")
        XCTAssertEqual(text.components(separatedBy: "text is the first").count, 2, "only the long body is said to be cut: \(text.suffix(400))")
    }
}
