import SXKAPI
import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    enum Compare: AppCommand {
        static let spec = CommandSpec(
            "compare", summary: "run one request under several identities of this login: the permission matrix",
            discussion: "Identities: account:ID (user id or list number; its token comes from set-user for this command only), role:CODE (the account of this login with that role, else the current account acting in that role), scenic:ID|NAME and store:ID|NAME (the session's token with the request's scenicId / storeId set: an ID as typed, a NAME matched as `scenic NAME` and `store NAME` match it), current. The first identity is the baseline the bodies are compared with; one identity alone is compared with current. The request is get PATH [k=v…], post PATH [JSON|k=v…] or orders [--status S] [--keyword Q] [--page N] [--page-size N] (each identity's role picks the endpoint and scope). The session is not changed, whatever the answers; exit 4 when an identity got no answer.",
            arguments: [
                ArgumentSpec("COMMAND", kind: .choice(["get", "post", "orders"]), summary: "the request to send"),
                ArgumentSpec("ARGS", optional: true, variadic: true, summary: "the command's path, parameters and filters"),
            ],
            flags: [
                FlagSpec("as", value: .provider("identity"), valueName: "ID,ID…", required: true, summary: "identities, comma-separated (repeatable; required)"),
                FlagSpec("json", summary: "the whole matrix as JSON, with each identity's data"),
                FlagSpec("password-stdin", summary: "read the password from standard input if account: needs a new login"),
            ],
            examples: [
                "compare --as role:photographer,role:storeAdmin -- get /api/app/store/all",
                "compare --as account:4001,account:4002,account:4003 orders --page-size 5",
                "compare --as scenic:1,scenic:2 -- get /api/app/scenic-admin/order/list scenicId=1 pageSize=3",
            ]
        ).passingCommand(flags: ["json", "status", "keyword", "page", "page-size"])

        static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool { true }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.compare(command)
        }
    }
}

/// The same request under each identity of this login, as a permission matrix. The session is
/// never changed: other accounts' tokens come from set-user for this command only and every probe
/// carries its token explicitly, so no answer (not even "session expired") ends the shell's session.
extension AppCommands {
    fileprivate func compare(_ command: ParsedCommand) async throws -> CommandOutput {
        let identities = try CompareIdentity.parseList(command.options["as"] ?? [])
        guard let parser = io.parser else { throw AppError.usage("compare runs inside the shell only") }
        let (request, innerJSON) = try CompareRequest.parse(parser: parser, command.positionals)
        // Arguments are checked before anything is sent; then a restored session is validated as usual.
        let expired = try await validateRestoredSession().expired
        let features = try host.features()
        let contexts = services.contexts
        guard let sessionToken = contexts.session.token else { throw expired.map(AppError.notLoggedIn) ?? FeatureError.notLoggedIn }
        // In a new process the login's account list comes from the profile (account:ID, role:CODE).
        _ = features.auth.knownAccounts()
        var targets: [CompareTarget] = []
        for (label, identity) in identities {
            targets.append(try await CompareTarget.resolve(label, identity, contexts: contexts, scope: features.scope,
                                                           keptStores: StoreListCache.read(services.storage)))
        }
        let client = try services.network().client

        let asked = PasswordFailure()
        let password = passwordSource(fromStdin: command.has("password-stdin"), failure: asked)
        // `account:` identities may need a password once their set-user has answered: typed-ahead keys are not shown.
        var results = try await io.withEchoOff(prompting: asksForPassword(command)) {
            try await probeAll(targets, request: request, sessionToken: sessionToken, auth: features.auth,
                               client: client, password: password, asked: asked)
        }
        if let base = results.first {
            for i in results.indices.dropFirst() { results[i].diff = CompareDiff.between(base.data, results[i].data) }
        }
        var output = CommandOutput(data: matrixJSON(results, request: request))
        if innerJSON { output.format = OutputFormat(kind: .json) }
        output.notes = ["\(request.title) · \(Formatting.count(results.count, "identity", plural: "identities")) · diff against \(results.first?.target.label ?? "–")"]
        output.blocks = [.table(matrix(results))]
        // Tokens asked for this command only: masked in every format like the session's.
        output.secrets = results.compactMap(\.probeToken)
        output.status = results.contains { $0.noAnswer } ? ExitStatus.network : ExitStatus.ok
        return output
    }

    /// Every identity's token, then every identity's request, each step side by side: the set-user calls
    /// go out together, then the requests together, and the rows come back in the order of `--as`. A
    /// token that needs the password is asked for afterwards, one identity at a time, as the prompt
    /// asks once. Ctrl-C cancels whatever is in flight.
    private func probeAll(_ targets: [CompareTarget], request: CompareRequest, sessionToken: String,
                          auth: AuthSessionCoordinator, client: APIClient,
                          password: @escaping AuthSessionCoordinator.PasswordSource, asked: PasswordFailure) async throws -> [CompareResult] {
        var results = targets.map { CompareResult(target: $0, tokenSource: $0.probeAccount == nil ? "session" : "set-user") }
        var tokens: [String?] = targets.map { $0.probeAccount == nil ? sessionToken : nil }
        let accounts = targets.map(\.probeAccount)
        let probes = try await Self.sideBySide(targets.indices.filter { accounts[$0] != nil }) { i -> Result<String, FeatureError> in
            do throws(FeatureError) { return .success(try await auth.probeToken(for: accounts[i]!)) } catch { return .failure(error) }
        }
        var reloggedIn = false
        for (i, probe) in probes {
            guard let account = accounts[i] else { continue }
            var refusal: FeatureError
            switch probe {
            case .success(let token):
                tokens[i] = token
                continue
            case .failure(let error):
                refusal = error
            }
            if Task.isCancelled { throw CancellationError() }
            if auth.asksPassword(after: refusal) {
                do throws(FeatureError) {
                    // After one login again the new temporary token is tried first, as `switch-account` does.
                    tokens[i] = reloggedIn ? try await auth.probeToken(for: account, password: password)
                                           : try await auth.probeTokenWithPassword(for: account, password: password)
                    reloggedIn = true
                    continue
                } catch {
                    refusal = error
                }
                if let error = asked.error { throw error }
            }
            if refusal.isCancelled { throw CancellationError() }
            if let api = refusal.apiError { results[i].fill(with: api) }
            results[i].problem = "set-user refused: \(refusal.apiError.map(Self.shortMessage) ?? refusal.description)"
            results[i].noAnswer = refusal.apiError?.kind == .network
        }
        var sends: [Int: (method: String, path: String, query: [(String, String)], body: JSONValue?)] = [:]
        for i in targets.indices {
            if let token = tokens[i] {
                if targets[i].probeAccount != nil { results[i].probeToken = token }
            } else {
                continue
            }
            switch request.concrete(for: targets[i]) {
            case .success(let made):
                results[i].method = made.method
                results[i].path = made.path
                results[i].query = made.query
                sends[i] = made
            case .failure(let problem):
                results[i].problem = problem.message
            }
        }
        let (sent, held) = (sends, tokens)
        let answers = try await Self.sideBySide(sends.keys.sorted()) { i -> (Result<APIResponse, APIError>, Double) in
            let made = sent[i]!
            // Timed here as well, so a failed request has its time too (an answer carries its own).
            let clock = ContinuousClock(), start = clock.now
            let result: Result<APIResponse, APIError>
            do throws(APIError) {
                result = .success(try await client.send(method: made.method, path: made.path, query: made.query, body: made.body, tokenOverride: held[i]))
            } catch {
                result = .failure(error)
            }
            return (result, (clock.now - start).milliseconds)
        }
        for (i, (answer, took)) in answers {
            results[i].elapsedMs = took
            switch answer {
            case .success(let response):
                results[i].status = response.status
                results[i].code = response.code
                results[i].msg = response.msg
                results[i].data = response.data
                results[i].elapsedMs = response.elapsedMs
            case .failure(let error):
                if error.kind == .cancelled { throw CancellationError() }
                results[i].fill(with: error)
            }
        }
        return results
    }

    /// Runs `body` for every index at once and returns the results in index order; cancelled as a whole.
    private static func sideBySide<T: Sendable>(_ indices: [Int], _ body: @escaping @Sendable (Int) async -> T) async throws -> [(Int, T)] {
        let gathered = await withTaskGroup(of: (Int, T).self) { group in
            for i in indices { group.addTask { (i, await body(i)) } }
            var out: [(Int, T)] = []
            for await item in group { out.append(item) }
            return out
        }
        if Task.isCancelled { throw CancellationError() }
        return gathered.sorted { $0.0 < $1.0 }
    }

    /// An API error's line without the `METHOD /path: ` it starts with (the matrix shows the request).
    static func shortMessage(_ error: APIError) -> String {
        let text = error.description
        if let label = error.request?.description, text.hasPrefix(label + ": ") { return String(text.dropFirst(label.count + 2)) }
        return text
    }

    /// The matrix as a table. The identity is never cut (it is what tells rows apart on a narrow
    /// terminal); AS and REQUEST go first when there is no room.
    private func matrix(_ results: [CompareResult]) -> OutputTable {
        let showRequest = Set(results.map(\.requestSummary)).count > 1
        var columns = [OutputColumn("identity", priority: 100, cuttable: false), OutputColumn("as", priority: 30)]
        if showRequest { columns.append(OutputColumn("request", priority: 20)) }
        columns += [OutputColumn("http", alignment: .right, priority: 90, cuttable: false), OutputColumn("code", priority: 80, cuttable: false),
                    OutputColumn("msg", priority: 50), OutputColumn("rows", alignment: .right, priority: 70, cuttable: false),
                    // The title above the matrix names the baseline: a header naming it again only takes room.
                    OutputColumn("diff", "DIFF", priority: 85)]
        let rows: [JSONValue] = results.map { r in
            let msg = r.problem.map { p in r.msg.map { "\($0) — \(p)" } ?? p } ?? (r.msg ?? "")
            return ["identity": .string(r.target.label), "as": .string(r.target.summary), "request": .string(r.requestSummary),
                    "http": .string(r.status.map(String.init) ?? "–"), "code": .string(r.code ?? "–"), "msg": .string(msg),
                    "rows": .string(r.rows.map { Formatting.count($0) } ?? "–"), "diff": .string(r.diff.summary)]
        }
        return OutputTable(columns: columns, rows: rows)
    }

    private func matrixJSON(_ results: [CompareResult], request: CompareRequest) -> JSONValue {
        let items: [JSONValue] = results.map { r in
            let t = r.target
            var o: JSONObject = ["identity": .string(t.label)]
            o["userId"] = t.userId.map { .int($0) } ?? .null
            o["accountType"] = t.accountType.map { .string($0) } ?? .null
            o["roleCode"] = t.roleCode.map { .string($0) } ?? .null
            o["scenicId"] = t.scenicId.map { .int($0) } ?? .null
            o["storeId"] = t.storeId.map { .int($0) } ?? .null
            o["tokenSource"] = .string(r.tokenSource)
            if let method = r.method, let path = r.path {
                var query = JSONObject()
                for (k, v) in r.query { query[k] = .string(v) }
                o["request"] = ["method": .string(method), "path": .string(path), "query": .object(query)]
            } else {
                o["request"] = .null
            }
            o["status"] = r.status.map { .int($0) } ?? .null
            o["code"] = r.code.map { .string($0) } ?? .null
            o["msg"] = r.msg.map { .string($0) } ?? .null
            o["rows"] = r.rows.map { .int($0) } ?? .null
            o["total"] = r.total.map { .int($0) } ?? .null
            o["elapsedMs"] = r.elapsedMs.map { .double(($0 * 10).rounded() / 10) } ?? .null
            o["problem"] = r.problem.map { .string($0) } ?? .null
            var diff: JSONObject = ["same": .bool(r.diff.same), "summary": .string(r.diff.summary)]
            diff["added"] = r.diff.added.map { .int($0) } ?? .null
            diff["removed"] = r.diff.removed.map { .int($0) } ?? .null
            diff["changedKeys"] = .array(r.diff.changedKeys.map { .string($0) })
            o["diff"] = .object(diff)
            o["data"] = r.data.map(Redaction.redact) ?? .null
            return .object(o)
        }
        return [
            "request": .string(request.title), "baseline": .string(results.first?.target.label ?? ""), "results": .array(items),
        ]
    }
}
