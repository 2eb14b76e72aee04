import Foundation
import SXKAPI
import SXKCore
import SXKTestSupport
import XCTest

/// Seeded fuzz of the response path: JSONParser, the client's envelope reading and
/// every model decoder, through the typed client, every declared endpoint, over a transport that answers with mutated
/// copies of real sandbox bodies. Whatever arrives, the call returns or throws one short, redacted
/// `APIError` naming its endpoint, quickly.
final class ResponseFuzzTests: XCTestCase {
    /// A token the transport's "server" echoes into bodies; no error line may ever show it.
    static let sentinelToken = "sxk_FUZZSENTINEL0123456789abcdef01"

    struct Case: Sendable {
        let path: String
        let call: @Sendable (APIClient) async throws(APIError) -> Void
    }

    /// A value for every parameter the catalog declares; a required one missing here fails
    /// `testEveryEndpointHasACase`, naming it.
    static let values: Endpoint.Arguments = [
        .username: "13800000001", .password: "pw-not-real", .userId: 1001, .accountType: "scenic", .token: "tmp_x",
        .page: 1, .pageSize: 3, .startDate: "2026-11-01", .endDate: "2026-11-29", .staffId: 1001, .scenicId: 1, .storeId: 101,
    ]

    /// The required parameters of `endpoint` with their values, and the names of those without one.
    static func arguments(_ endpoint: Endpoint) -> (Endpoint.Arguments, missing: [String]) {
        var arguments: Endpoint.Arguments = [:]
        var missing: [String] = []
        for parameter in endpoint.parameters where parameter.required {
            if let value = values[parameter] { arguments[parameter] = value } else { missing.append(parameter.name) }
        }
        return (arguments, missing)
    }

    /// Every declared endpoint (`Endpoint.typed`), called through the typed client with its model.
    static let cases: [Case] = Endpoint.typed.compactMap { _, declaration in
        let (arguments, missing) = ResponseFuzzTests.arguments(declaration.endpoint)
        guard missing.isEmpty else { return nil }
        return Case(path: declaration.endpoint.path) { client throws(APIError) in try await call(declaration, client, arguments) }
    }

    private static func call<Declared: AnyTypedEndpoint>(_ declaration: Declared, _ client: APIClient, _ arguments: Endpoint.Arguments) async throws(APIError) {
        _ = try await client.call(declaration.typed, arguments)
    }

    func testEveryEndpointHasACase() {
        for (name, declaration) in Endpoint.typed {
            let missing = Self.arguments(declaration.endpoint).missing
            XCTAssertEqual(missing, [], "\(name): no value for \(missing.joined(separator: ", ")) in ResponseFuzzTests.values")
        }
        XCTAssertEqual(Self.cases.map(\.path), Endpoint.all.map(\.path))
    }

    /// The demo logins tried in turn for an endpoint's real body: the first whose call succeeds gives it.
    static let phones = ["13800000001", "13800000002", "13800000003"]

    /// Real bodies for every endpoint, fetched once from the sandbox with `get PATH --raw` (or `post`), as
    /// the first demo login the sandbox answers with success; login and set-user are written here (fetching
    /// them would put a password in argv).
    static let realBodies: [String: [UInt8]] = {
        let today = WireDate.day(Date())
        let start = WireDate.day(Date().addingTimeInterval(-10 * 86_400))
        var bodies: [String: [UInt8]] = [
            Endpoint.login.path: Array(#"{"code":100000,"msg":"success","data":{"token":"tmp_0123456789abcdef","accounts":[{"userId":4001,"accountType":"scenic","accountDisplayName":"千岛湖 · 摄影师","userName":"湖畔阿杰","realName":"周杰","phone":"13800000004","roleCode":"photographer","roleName":"摄影师","scenicId":3,"scenicName":"千岛湖"},{"user_id":"4003","account_type":"store","role_code":"storeAdmin","store_id":301}]}}"#.utf8),
            Endpoint.setUser.path: Array("{\"code\":\"100000\",\"msg\":\"success\",\"data\":{\"token\":\"\(sentinelToken)\",\"user\":{\"userId\":1001,\"accountType\":\"scenic\",\"roleCode\":\"photographer\",\"scenicId\":\"1\"}}}".utf8),
        ]
        var live = values
        live[.startDate] = start
        live[.endDate] = today
        let workspaces = phones.map { phone in
            let ws = Workspace()
            SXK.login(phone, in: ws, baseURL: SharedSandbox.url)
            return ws
        }
        for endpoint in Endpoint.all where bodies[endpoint.path] == nil {
            var words = [endpoint.method == .get ? "get" : "post", endpoint.path]
            for parameter in endpoint.parameters where parameter.required && parameter.location != .header {
                if let value = live[parameter] ?? nil { words.append("\(parameter.name)=\(value.wireText)") }
            }
            for ws in workspaces {
                let r = SXK.run(words + ["--raw"], in: ws, baseURL: SharedSandbox.url)
                let envelope = try? JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
                if r.status == 0, let code = envelope?["code"], "\(code)" == "100000" {
                    bodies[endpoint.path] = Array(r.stdout.split(separator: "\n")[0].utf8)
                    break
                }
            }
            XCTAssertNotNil(bodies[endpoint.path], "no demo login got a successful body for \(endpoint)")
        }
        return bodies
    }()

    func testCorpusDecodesUnmutated() async throws {
        let bodies = Self.realBodies
        for c in Self.cases {
            let body = try XCTUnwrap(bodies[c.path], "no corpus body for \(c.path)")
            let client = Self.client { _ in HTTPResponse(status: 200, body: body) }
            do { try await c.call(client) } catch { XCTFail("\(c.path): the real body does not decode: \(error)") }
        }
    }

    func testMutatedResponsesGiveOneShortAPIErrorOrAValue() async throws {
        let run = FuzzRun("response fuzz", fast: 4_000, long: 100_000)
        print("\(run.replay)")
        let bodies = Self.realBodies
        let corpus = Self.cases.compactMap { bodies[$0.path] }
        XCTAssertEqual(corpus.count, Self.cases.count, "corpus incomplete")
        var rng = SplitMix64(seed: run.seed)
        let mutator = Mutator(dictionary: ["\"code\":100401", "\"code\":\"100000\"", "\"data\":null", "\"token\":\"\(Self.sentinelToken)\"",
                                           "\"list\":[]", "\"total\":\"7\"", "\"user_id\":\"x\"", "1.5e308", "-9223372036854775809", "{}", "[]"],
                              maxRun: run.maxRun)
        let trees = JSONTreeMutator()
        let watchdog = FuzzWatchdog(run: run)
        defer { watchdog.stop() }
        let statuses = [200, 200, 200, 200, 201, 204, 301, 400, 401, 404, 500, 502]
        var outcomes: [String: Int] = [:]
        var failures = 0
        for index in 0..<run.cases {
            let c = rng.pick(Self.cases)
            var body = bodies[c.path]!
            let structural = rng.chance(60)
            if structural, let tree = try? JSONParser.parse(body) { body = JSONWriter.bytes(trees.mutate(tree, rng: &rng)) }
            if !structural || rng.chance(15) { body = mutator.mutate(body, corpus: corpus, rng: &rng) }
            let status = structural && rng.chance(70) ? 200 : rng.pick(statuses)
            let reply = HTTPResponse(status: status, body: body)
            let client = Self.client { _ in reply }
            let sent = body
            watchdog.begin("case \(index) \(c.path) HTTP \(status)", input: { String(decoding: sent.prefix(2000), as: UTF8.self) })
            var problem: String?
            do {
                try await c.call(client)
                outcomes["value", default: 0] += 1
                if status == 401 { problem = "HTTP 401 decoded as a value" }
            } catch {
                outcomes[error.kind.rawValue, default: 0] += 1
                problem = Self.check(error, path: c.path, status: status)
            }
            let took = watchdog.end()
            if took > run.caseDeadline { problem = (problem.map { $0 + "; " } ?? "") + "took \(String(format: "%.2f", took)) s" }
            if let problem {
                failures += 1
                if failures <= 5 {
                    XCTFail("case \(index) (\(c.path), HTTP \(status), \(body.count) bytes): \(problem)\n\(run.replay)\nbody: \(String(decoding: body.prefix(300), as: UTF8.self).debugDescription)")
                }
            }
        }
        print("response fuzz outcomes over \(run.cases) cases: \(outcomes.sorted { $0.key < $1.key })")
        XCTAssertEqual(failures, 0, run.replay)
        // The mutations must reach past the parser: some bodies still decode, some fail in decoders.
        XCTAssertGreaterThan(outcomes["value"] ?? 0, 0, "no mutated body decoded: mutations too coarse")
        XCTAssertGreaterThan((outcomes["decoding"] ?? 0) + (outcomes["server"] ?? 0), 0, "no mutation reached the envelope or the models")
    }

    /// What is wrong with an error for a response that did arrive (nil when nothing).
    static func check(_ error: APIError, path: String, status: Int) -> String? {
        let line = error.description
        if [.network, .cancelled, .configuration, .redirect].contains(error.kind) { return "kind \(error.kind) for a response that arrived: \(line)" }
        // The login page's calls carry no session: a 401 there is their refusal, never a session's end.
        let sessionless = Endpoint.all.contains { $0.sessionless && $0.path == path }
        if status == 401 && !sessionless && error.kind != .sessionExpired { return "HTTP 401 not a session expiry: \(line)" }
        if sessionless && error.kind == .sessionExpired { return "a call without the session ended it: \(line)" }
        if !line.contains(path) { return "error does not name \(path): \(line)" }
        if line.contains("\n") || line.contains("\r") { return "error spans lines: \(line.debugDescription)" }
        if line.count > 600 { return "error line of \(line.count) characters: \(line.prefix(200))…" }
        if line.contains(sentinelToken) { return "error shows the token: \(line)" }
        return nil
    }

    static func client(_ reply: @escaping @Sendable (HTTPRequest) -> HTTPResponse) -> APIClient {
        APIClient(configuration: APIConfiguration(environment: .custom(URL(string: "https://api.fuzz.test")!)),
                  transport: ClosureTransport { reply($0) }, tokenProvider: { sentinelToken })
    }
}
