import SXKAPI
import SXKCore
import Synchronization
import SXKFeatures
import SXKShell

/// `get` / `post` (and `compare`'s raw requests): items, the request, `--print` parts, `--paginate`.
extension AppCommands {
    /// `get PATH ITEM…` / `post PATH JSON|ITEM…`: the same client, headers and envelope rules.
    /// Items as HTTPie takes them (`RequestItems`); `--print`/`-v` show headers on stderr, so stdout
    /// stays the data; `--paginate` walks a list endpoint's pages into one list.
    /// The PATH of `get`/`post` (and of `compare`'s request), `/` put in front when left out; an empty
    /// one is a usage error, not a request for the server's root.
    static func requestPath(_ command: ParsedCommand, name: String) throws -> String {
        guard let path = command.positionals.first, path.contains(where: { !$0.isWhitespace }) else {
            throw AppError.usage("\(name) needs a PATH")
        }
        return path.hasPrefix("/") ? path : "/" + path
    }

    func raw(_ command: ParsedCommand, method: String) async throws -> CommandOutput {
        let path = try Self.requestPath(command, name: method.lowercased())
        let rest = Array(command.positionals.dropFirst())
        let show = try Self.printParts(command)
        let client = try services.network().client
        var body: JSONValue?
        var items = RequestItems()
        if method == "POST", rest.count == 1, let first = rest.first, first.hasPrefix("{") || first.hasPrefix("[") {
            body = try Self.postBody(rest)
        } else {
            items = try RequestItems.parse(rest, sendsBody: method == "POST")
            if method == "POST" { body = items.object }
        }
        let query = method == "GET" ? try items.query() : []
        let headers = items.headers.map { ($0.name, $0.value) }
        // What was sent under a secret name, masked wherever the answer shows it (as `--trace` does).
        let itemSecrets = SecretScrubber.requestSecrets(body: body, query: query, headers: headers)
        let (target, sent) = (path, body)
        // Plain: the caller resets the session on a rejected token (`SessionGuard.guarding`), once, for the
        // failure it reports (a page walk reports the first in page order).
        @Sendable func send(_ query: [(String, String)]) async throws -> APIResponse {
            let (path, body) = (target, sent)
            return method == "GET" ? try await client.get(path, query: query, headers: headers)
                : try await client.post(path, body: body, query: query, headers: headers)
        }
        if command.has("paginate") {
            return try await paginate(path: path, query: query, show: show, secrets: itemSecrets,
                                      keepBodies: try format(command).kind == .raw, send: send)
        }
        let response: APIResponse
        do {
            response = try await services.sessionGuard.guarding { try await send(query) }
        } catch {
            // A failed answer is where its parts matter most: asked for, they are shown before the
            // error line (from what this shell recorded of the exchange, masked as `--trace` masks it).
            if show != "b" { failedExchangeNotes(show, secrets: itemSecrets).forEach(diagnostics.note) }
            throw error
        }
        var output = dataOutput(response)
        // What was sent under a secret name is masked wherever this command shows the answer, `--raw` too.
        output.secrets = itemSecrets.filter(SecretMemory.keeps)
        output.notes = requestNotes(show) + ["\(response.status) · code \(response.code) \(response.msg) · \(NumberText.milliseconds(response.elapsedMs))"]
            + (show.contains("h") ? Self.headerLines(response, secrets: itemSecrets) : [])
        if show.contains("b") {
            output.blocks = [.json(response.data)]
        } else {
            output.data = nil
            output.raw = []
        }
        return output
    }

    /// `--print WHAT` (letters of `HBhb`, as HTTPie: request headers and body, response headers and
    /// body); `-v` is `HBhb`; default `b`. Everything but the response body goes to stderr. The letters
    /// as a string, not a `Set`: a set's first use looks up `Hashable` across the binary's conformances.
    static func printParts(_ command: ParsedCommand) throws -> String {
        if command.has("verbose") { return "HBhb" }
        guard let what = command.option("print") else { return "b" }
        let parts = what
        guard !parts.isEmpty, parts.allSatisfy({ "HBhb".contains($0) }) else {
            throw AppError.usage("--print takes letters of HBhb (H request headers, B request body, h response headers, b response body), got '\(what)'")
        }
        return parts
    }

    /// The request as sent (the last one this shell recorded), for `--print H`/`B`; masked as `--trace` masks it.
    private func requestNotes(_ show: String) -> [String] {
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

    /// Bytes of a failed answer's body shown with `-v` (the trace's excerpt).
    static let failedBodyLimit = 2000

    /// The `--print` parts of an exchange that ended in an error: the request's, then the answer's
    /// status, headers and (with `b`) the head of its body, as recorded; nothing of an answer that
    /// never came.
    private func failedExchangeNotes(_ show: String, secrets: [String]) -> [String] {
        var lines = requestNotes(show)
        guard let sent = host.transport.ring.all.last, let answer = sent.response else { return lines }
        let masked = secrets + host.secrets
        if show.contains("h") {
            lines.append("< HTTP \(sent.status.map(String.init) ?? "?")")
            lines += SecretScrubber.headers(HTTPHeaders(answer.headers.map { ($0.name, $0.value) }), secrets: masked).fields.map { "< \($0.name): \($0.value)" }
        }
        if show.contains("b"), !answer.bodyHead.isEmpty {
            let text = SecretScrubber.traceBody(answer.bodyHead, limit: Self.failedBodyLimit, secrets: masked)
            lines += text.split(separator: "\n", omittingEmptySubsequences: false).map { "< " + $0 }
            if answer.bodySize > Self.failedBodyLimit { lines.append("< … (\(answer.bodySize) bytes in all)") }
        }
        return lines
    }

    /// The response's status and headers, `< Name: value`, masked and made inert.
    static func headerLines(_ response: APIResponse, secrets: [String]) -> [String] {
        ["< HTTP \(response.status)"] + SecretScrubber.headers(response.headers, secrets: secrets).fields.map { "< \($0.name): \($0.value)" }
    }

    /// `--paginate`: page 1 (or the `page` given) to the last, as the page shape (`list`, `total`,
    /// `pageSize`, either spelling) and `PageRule` say; the rows as one list, at most `paginateLimit`
    /// rows and `paginateBytes` of answers. The pages the first answer makes known go out together
    /// (`PageWalker`), never past the page that holds the row after the limit, and are read in page
    /// order: the first failure in that order is the one reported, and a rejected token resets the
    /// session only when that failure is it. The answers' bodies are kept only for `--raw`.
    private func paginate(path: String, query: [(String, String)], show: String, secrets: [String], keepBodies: Bool,
                          send: @escaping @Sendable ([(String, String)]) async throws -> APIResponse) async throws -> CommandOutput {
        let given = query.first(where: { $0.0 == "page" })?.1
        guard let first = given.map({ Int($0) }) ?? 1, first >= 1 else {
            throw AppError.usage(TerminalText.sanitize("--paginate: page must be a whole number, 1 or more, got '\(given ?? "")'"))
        }
        let rest = query.filter { $0.0 != "page" }
        // Each page's answer, kept until its rows are read (for `--raw` and `--print h`).
        let answers = Mutex<[Int: (response: APIResponse, isLast: Bool)]>([:])
        var rows: [JSONValue] = []
        var bodies: [String] = []
        var notes: [String] = requestNotes(show)
        var pages = 0, bytes = 0
        var total: Int?
        var endedOnLastPage = false
        var rowsBeforeLastPage = 0
        let outcome = try await services.sessionGuard.guarding {
            try await PageWalker.walk(first: first, limit: Self.paginateLimit + 1, same: { $0 == $1 }, fetch: { @Sendable page -> PageWalker.Answer<JSONValue> in
                let response = try await send(rest + [("page", String(page))])
                // `"data": null` and `"list": null` are an empty page; an answer with no list is not a page:
                // the first one says the endpoint is no list (the command line's mistake), a later one
                // is the server's.
                let object = response.data == .null ? JSONObject() : response.data.objectValue
                guard let object, let list = response.data == .null ? [] : try? PageRule.list(object) else {
                    if page == first { throw AppError.usage("--paginate: \(path) answered no page (a data object with a list)") }
                    throw AppError.failed("--paginate: page \(page) of \(path) answered no page (a data object with a list)")
                }
                if let named = object.int("page"), named != page {
                    throw AppError.failed("--paginate: the server answered page \(named) when asked for page \(page): it does not page \(path) as asked; stopped there")
                }
                let total = PageRule.total(object)
                let size = PageRule.pageSize(object, listCount: list.count)
                let isLast = PageRule.isLast(count: list.count, page: page, pageSize: size, total: total)
                answers.withLock { $0[page] = (response, isLast) }
                return (list, total, isLast, size)
            }, onPage: { pageRows, progress in
                let page = first + (progress.pages - 1)
                if let answer = answers.withLock({ $0.removeValue(forKey: page) }) {
                    pages += 1
                    bytes += answer.response.body.count
                    if keepBodies { bodies.append(answer.response.bodyText) }
                    if show.contains("h") { notes += Self.headerLines(answer.response, secrets: secrets) }
                    endedOnLastPage = answer.isLast
                }
                rowsBeforeLastPage = rows.count
                rows += pageRows
                total = progress.total
                return bytes <= Self.paginateBytes
            })
        }
        if outcome.stop == .cancelled { throw CancellationError() }
        // The row after the limit says there is more: the list is cut, and the run fails.
        var cut: String?
        if rows.count > Self.paginateLimit || outcome.stop == .stoppedByCaller && !endedOnLastPage {
            let byRows = rows.count > Self.paginateLimit
            if byRows { rows.removeLast(rows.count - Self.paginateLimit) }
            let page = first + (pages - 1), kept = rows.count - rowsBeforeLastPage
            let from = !byRows ? "page=\(page + 1) goes on from there" : kept == 0 ? "page=\(page) goes on from there"
                : "page=\(page) goes on from there, repeating its first \(Formatting.count(kept, "row"))"
            let limit = byRows ? "its limit" : "past its limit of \(Self.paginateBytes >> 20) MB of answers"
            cut = "--paginate stopped at \(Formatting.count(rows.count, of: total, "row")), \(limit): the output is partial (\(from); `orders --all` streams any number)"
        } else if outcome.stop == .emptyBeforeTotal {
            cut = "--paginate stopped at page \(first + pages): the server listed no rows there though its total is \(outcome.progress.total.map(String.init) ?? "larger"); the output is partial"
        } else if outcome.stop == .repeated {
            let page = first + pages
            cut = "--paginate stopped at page \(page): the server answered it with the same rows as page \(page - 1) (it does not page this list); the output may be partial"
        } else if pages > 0, first + (pages - 1) == Int.max, !endedOnLastPage {
            cut = "--paginate stopped at page \(Int.max), the largest page number, before the server's last page: the output is partial"
        }
        var output = CommandOutput(data: .array(rows), blocks: show.contains("b") ? [.json(.array(rows))] : [])
        if !show.contains("b") { output.data = nil }
        output.raw = bodies
        output.secrets = secrets.filter(SecretMemory.keeps)
        output.notes = notes + ["\(Formatting.count(pages, "page")) · \(Formatting.count(rows.count, "row"))"]
        // Rows left out are a failure a script must see, not a note it may miss.
        if let cut {
            output.warnings.append(cut)
            output.status = ExitStatus.failure
        }
        return output
    }

    /// Rows `--paginate` gathers at most, and bytes of answers (memory stays bounded on a huge list,
    /// and on huge rows).
    static let paginateLimit = 10_000
    static let paginateBytes = 64 << 20

    /// `post`'s body: one JSON argument as is, or items made into one object (`RequestItems`).
    static func postBody(_ rest: [String]) throws -> JSONValue {
        if rest.count == 1, let first = rest.first, first.hasPrefix("{") || first.hasPrefix("[") {
            do { return try JSONParser.parse(first) } catch {
                throw AppError.usage("body is not valid JSON: \(error)")
            }
        }
        let items = try RequestItems.parse(rest, sendsBody: true)
        guard items.headers.isEmpty else { throw AppError.usage("headers (Name:value) are sent by get and post only") }
        return items.object
    }

    /// `get`'s query words for `compare`: fields only.
    static func queryItems(_ rest: [String]) throws -> [(String, String)] {
        let items = try RequestItems.parse(rest, sendsBody: false)
        guard items.headers.isEmpty else { throw AppError.usage("headers (Name:value) are sent by get and post only") }
        return try items.query()
    }
}
