import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `env`, `config`, raw `get` / `post`.
extension AppCommands {
    func env(_ command: ParsedCommand) async throws -> CommandOutput {
        if command.subcommand == "use", let target = command.positionals.first {
            let environment: APIEnvironment
            if target == "-" {
                // Like `role -`: back to the environment before the last `env use` in this shell
                // (the environment choice itself lives in this process, so does what it left).
                guard let previous = host.previousEnvironment else {
                    throw AppError.failed("no previous environment to go back to in this shell")
                }
                environment = previous
            } else if target.lowercased() == "sandbox" {
                guard let url = host.sandbox?.baseURL else {
                    throw AppError.usage("no sandbox in this shell — start sxk with --sandbox")
                }
                environment = .sandbox(url)
            } else {
                environment = try APIEnvironment.parse(target)
            }
            var options = services.options
            // An explicit --profile pins the state folder; otherwise each environment keeps its own.
            if host.shellContext.options.profile == nil { options.profile = nil }
            let next = try AppServices(
                environment: environment, options: options, processEnvironment: host.shellContext.environment,
                settings: host.settings, transport: host.transport, stderr: io.stderr)
            try next.network().configuration.validate()
            let left = services.environment
            host.replaceServices(next)
            next.rememberBackend()
            host.previousEnvironment = left
            _ = try host.features().bootstrapper.restore()
        }
        let s = services
        let rows = environmentRows()
        let data: JSONValue = [
            "environment": .string(s.environment.name), "baseURL": .string(s.environment.baseURL.absoluteString),
            "profile": .string(s.paths.profile), "stateDir": .string(s.paths.profileDir),
            "environments": .array(rows),
        ]
        var output = CommandOutput(data: data)
        if command.subcommand == "use" {
            // The switch's confirmation, on stderr like every other; the table stays the data.
            output.notes.append("now on \(s.environment.name) \(s.environment.baseURL.absoluteString) (profile \(s.paths.profile))")
        }
        output.table([
            OutputColumn("current", "", priority: 95, cuttable: false) { $0.objectValue?["current"]?.boolValue == true ? "*" : "" },
            OutputColumn("name", priority: 90, cuttable: false),
            // The base URL is what tells profiles apart: kept whole, the PROFILE column (mostly the name) goes first.
            OutputColumn("baseURL", "BASE URL", priority: 80, cuttable: false),
            OutputColumn("profile", priority: 40),
            OutputColumn("session", priority: 85, cuttable: false) { $0.objectValue?["session"]?.boolValue == true ? "stored" : "–" },
            OutputColumn("account", priority: 70), OutputColumn("role", priority: 75),
            OutputColumn("validated", priority: 65) { row in
                guard let age = row.objectValue?["validatedAgeSeconds"]?.doubleValue else { return "–" }
                return Formatting.duration(age) + " ago"
            },
        ], rows)
        return output
    }

    /// test, release, sandbox, the current profile and every other profile on disk (imported ones
    /// too), each with its backend (`backend.json`, else what its name says) and its stored session
    /// as its own files say (read only: no network, no lock, nothing written).
    private func environmentRows() -> [JSONValue] {
        let s = services
        let now = s.clock.now()
        let sandboxURL = host.sandbox?.baseURL?.absoluteString ?? "(start sxk with --sandbox)"
        var entries: [(name: String, baseURL: String, profile: String)] = [
            ("test", APIEnvironment.testURL.absoluteString, "test"),
            ("release", APIEnvironment.releaseURL.absoluteString, "release"),
            ("sandbox", sandboxURL, "sandbox"),
        ]
        if !entries.contains(where: { $0.profile == s.paths.profile && $0.name == s.environment.name }) {
            entries.append((s.environment.name, s.environment.baseURL.absoluteString, s.paths.profile))
        }
        for profile in ProfileSummary.profiles(root: s.paths.root) where !entries.contains(where: { $0.profile == profile }) {
            if let backend = ProfileBackend.read(root: s.paths.root, profile: profile) {
                let url: String
                switch backend.environment {
                case "test": url = APIEnvironment.testURL.absoluteString
                case "release": url = APIEnvironment.releaseURL.absoluteString
                case "sandbox": url = sandboxURL
                default: url = backend.baseURL ?? "(unknown)"
                }
                entries.append((backend.environment, url, profile))
            } else if let dash = profile.lastIndex(of: "-"), dash != profile.startIndex,
                      let port = Int(profile[profile.index(after: dash)...]) {
                // A base-URL profile from before profiles kept their backend: named host-port (the scheme is not kept).
                entries.append(("custom", "\(profile[..<dash]):\(port)", profile))
            } else {
                entries.append(("?", "(unknown: use it once with --env or --base-url)", profile))
            }
        }
        return entries.map { entry in
            let summary = ProfileSummary.read(root: s.paths.root, profile: entry.profile)
            var o: JSONObject = [
                "name": .string(entry.name), "baseURL": .string(entry.baseURL), "profile": .string(entry.profile),
                "current": .bool(entry.name == s.environment.name && entry.profile == s.paths.profile),
                "session": .bool(summary.sessionStored),
            ]
            o["account"] = summary.account.map { .string($0) } ?? .null
            o["role"] = summary.role.map { .string($0) } ?? .null
            o["validatedAt"] = summary.validatedAt.map { .string(LocalTime.iso($0)) } ?? .null
            o["validatedAgeSeconds"] = summary.validatedAt.map { .int(max(0, Int(now.timeIntervalSince($0)))) } ?? .null
            if let problem = summary.problem { o["problem"] = .string(problem) }
            return .object(o)
        }
    }

    func config(_ command: ParsedCommand) async throws -> CommandOutput {
        let result = try await guarded { try await services.network().account.config() }
        var output = dataOutput(result.response)
        let rows: [JSONValue] = result.response.data.objectValue?.entries.map {
            ["key": .string($0.key), "value": $0.value]
        } ?? []
        output.table([OutputColumn("key", priority: 90, cuttable: false), OutputColumn("value", priority: 80)], rows)
        return output
    }

    /// `get PATH ITEM…` / `post PATH JSON|ITEM…`: the same client, headers and envelope rules.
    /// Items as HTTPie takes them (`RequestItems`); `--print`/`-v` show headers on stderr, so stdout
    /// stays the data; `--paginate` walks a list endpoint's pages into one list.
    func raw(_ command: ParsedCommand, method: String) async throws -> CommandOutput {
        guard var path = command.positionals.first else { throw AppError.usage("\(method.lowercased()) needs a PATH") }
        if !path.hasPrefix("/") { path = "/" + path }
        let rest = Array(command.positionals.dropFirst())
        let show = try Self.printParts(command)
        let client = try services.network().client
        var body: JSONValue?
        var items = RequestItems()
        if method == "POST", rest.count == 1, let first = rest.first, first.hasPrefix("{") || first.hasPrefix("[") {
            body = try Self.postBody(rest)
        } else {
            items = try RequestItems.parse(rest)
            if method == "POST" { body = items.object }
        }
        let query = method == "GET" ? try items.query() : []
        let headers = items.headers.map { ($0.name, $0.value) }
        func send(_ query: [(String, String)]) async throws -> APIResponse {
            try await guarded {
                method == "GET" ? try await client.get(path, query: query, headers: headers)
                    : try await client.post(path, body: body, query: query, headers: headers)
            }
        }
        if command.has("paginate") {
            return try await paginate(path: path, query: query, show: show, send: send)
        }
        let response = try await send(query)
        var output = dataOutput(response)
        output.notes = requestNotes(show) + ["\(response.status) · code \(response.code) \(response.msg) · \(String(format: "%.1f", response.elapsedMs)) ms"]
            + (show.contains("h") ? Self.headerLines(response) : [])
        if show.contains("b") {
            output.blocks = [.json(response.data)]
        } else {
            output.data = nil
            output.raw = []
        }
        return output
    }

    /// `--print WHAT` (letters of `HBhb`, as HTTPie: request headers and body, response headers and
    /// body); `-v` is `HBhb`; default `b`. Everything but the response body goes to stderr.
    static func printParts(_ command: ParsedCommand) throws -> Set<Character> {
        if command.has("verbose") { return ["H", "B", "h", "b"] }
        guard let what = command.option("print") else { return ["b"] }
        let parts = Set(what)
        guard !parts.isEmpty, parts.isSubset(of: ["H", "B", "h", "b"]) else {
            throw AppError.usage("--print takes letters of HBhb (H request headers, B request body, h response headers, b response body), got '\(what)'")
        }
        return parts
    }

    /// The request as sent (the last one this shell recorded), for `--print H`/`B`; masked as `--trace` masks it.
    private func requestNotes(_ show: Set<Character>) -> [String] {
        guard show.contains("H") || show.contains("B"), let sent = host.transport.ring.all.last else { return [] }
        var lines: [String] = []
        if show.contains("H") {
            lines.append("> \(sent.method) \(sent.pathAndQuery)")
            let masked = SecretScrubber.headers(HTTPHeaders(sent.headers), secrets: host.secrets)
            lines += masked.fields.map { "> \($0.name): \($0.value)" }
        }
        if show.contains("B"), let body = sent.body { lines.append("> " + body) }
        return lines
    }

    /// The response's status and headers, `< Name: value`, masked and made inert.
    static func headerLines(_ response: APIResponse) -> [String] {
        ["< HTTP \(response.status)"] + SecretScrubber.headers(response.headers, secrets: []).fields.map { "< \($0.name): \($0.value)" }
    }

    /// `--paginate`: page 1 (or the `page` given) to the last, as the page shape (`list`, `total`,
    /// `page`, `pageSize`) says; the rows as one list, at most `paginateLimit`.
    private func paginate(path: String, query: [(String, String)], show: Set<Character>,
                          send: ([(String, String)]) async throws -> APIResponse) async throws -> CommandOutput {
        var page = Int(query.first { $0.0 == "page" }?.1 ?? "") ?? 1
        let rest = query.filter { $0.0 != "page" }
        var rows: [JSONValue] = []
        var bodies: [String] = []
        var notes: [String] = requestNotes(show)
        var pages = 0
        while true {
            let response = try await send(rest + [("page", String(page))])
            pages += 1
            bodies.append(response.bodyText)
            if show.contains("h") { notes += Self.headerLines(response) }
            guard let object = response.data.objectValue, let list = object["list"]?.arrayValue, let total = object["total"]?.intValue else {
                throw AppError.usage("--paginate: \(path) answered no page (a data object with list and total)")
            }
            rows += list
            let pageSize = object["pageSize"]?.intValue ?? list.count
            if list.isEmpty || rows.count >= total || pageSize <= 0 || page * pageSize >= total { break }
            if rows.count >= Self.paginateLimit {
                notes.append("--paginate stopped at \(Formatting.count(rows.count, "row")) (of \(Formatting.count(total))); --page N goes on from a later page")
                break
            }
            page += 1
        }
        var output = CommandOutput(data: .array(rows), blocks: show.contains("b") ? [.json(.array(rows))] : [])
        if !show.contains("b") { output.data = nil }
        output.raw = bodies
        output.notes = notes + ["\(Formatting.count(pages, "page")) · \(Formatting.count(rows.count, "row"))"]
        return output
    }

    /// Rows `--paginate` gathers at most (memory stays bounded on a huge list).
    static let paginateLimit = 10_000

    /// `post`'s body: one JSON argument as is, or items made into one object (`RequestItems`).
    static func postBody(_ rest: [String]) throws -> JSONValue {
        if rest.count == 1, let first = rest.first, first.hasPrefix("{") || first.hasPrefix("[") {
            do { return try JSONParser.parse(first) } catch {
                throw AppError.usage("body is not valid JSON: \(error)")
            }
        }
        let items = try RequestItems.parse(rest)
        guard items.headers.isEmpty else { throw AppError.usage("headers (Name:value) are sent by get and post only") }
        return items.object
    }

    /// `get`'s query words for `compare`: fields only.
    static func queryItems(_ rest: [String]) throws -> [(String, String)] {
        let items = try RequestItems.parse(rest)
        guard items.headers.isEmpty else { throw AppError.usage("headers (Name:value) are sent by get and post only") }
        return try items.query()
    }

    /// A response's `data` member (for `--json`, `$_`) and its body as received (for `--raw`).
    func dataOutput(_ responses: APIResponse...) -> CommandOutput {
        var output = CommandOutput(data: responses.first?.data)
        output.raw = responses.map(\.bodyText)
        return output
    }

    /// Runs an API call outside a facade; a session-expired answer resets the session once.
    func guarded<T>(_ body: () async throws -> T) async throws -> T {
        let token = services.contexts.session.token
        do {
            return try await body()
        } catch let error as APIError where error.kind == .sessionExpired {
            services.sessionGuard.sessionExpired(token: token)
            throw error
        }
    }
}
