import FoundationEssentials
import Synchronization
import SXKCore

/// Builds requests with the common headers, sends them through a transport, reads the envelope
/// and maps every failure to one `APIError` (seed 000 §2). Shared by all endpoint groups.
public final class APIClient: Sendable {
    public let configuration: APIConfiguration
    public let transport: any HTTPTransport
    private let observer: any APIObserver
    private let tokens: TokenSource
    private let expiry = ExpiryGate()
    /// Tokens the shell holds besides the one sent (a rejected one, another profile's): masked in the
    /// trace and the errors of every request as the sent one is.
    private let heldSecrets: @Sendable () -> [String]

    public init(
        configuration: APIConfiguration, transport: any HTTPTransport, observer: any APIObserver = SilentObserver(),
        tokenProvider: @escaping @Sendable () -> String? = { nil }, heldSecrets: @escaping @Sendable () -> [String] = { [] }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.observer = observer
        self.tokens = TokenSource(tokenProvider)
        self.heldSecrets = heldSecrets
    }

    /// Replaces the token provider (seed 000 §2: `bindAuthTokenProvider`).
    public func bindTokenProvider(_ provider: @escaping @Sendable () -> String?) { tokens.set(provider) }

    // MARK: - Raw calls (the `get` / `post` commands)

    /// GET `path` with `query` as a percent-encoded query string.
    public func get(_ path: String, query: [(String, String)] = [], headers: [(String, String)] = [], tokenOverride: String? = nil) async throws(APIError) -> APIResponse {
        try await send(method: "GET", path: path, query: query, body: nil, headers: headers, tokenOverride: tokenOverride)
    }

    /// POST `path` with `body` as JSON (an empty object when nil).
    public func post(_ path: String, body: JSONValue? = nil, query: [(String, String)] = [], headers: [(String, String)] = [], tokenOverride: String? = nil) async throws(APIError) -> APIResponse {
        try await send(method: "POST", path: path, query: query, body: body ?? .object(JSONObject()), headers: headers, tokenOverride: tokenOverride)
    }

    /// Calls a declared endpoint with values for its parameters and reads `data` into its model. The
    /// method, path and parameter names come from the declaration (`EndpointCatalog`).
    public func call<Value: Sendable>(_ endpoint: TypedEndpoint<Value>, _ arguments: Endpoint.Arguments = [:]) async throws(APIError) -> APIResult<Value> {
        let wire = endpoint.endpoint.wire(arguments)
        // The same GET already answered in this command (`AnswerMemo`) is not sent again.
        let memo = endpoint.method == .get ? AnswerMemo.current : nil
        let key = memo.map { _ in
            AnswerMemo.key(url: APIClient.urlString(base: configuration.baseURL, path: endpoint.path, query: wire.query),
                           token: wire.token.flatMap { $0.isEmpty ? nil : $0 } ?? tokens.current())
        }
        if let memo, let key, let kept = memo.answer(key) { return try APIClient.decode(kept, endpoint.decode) }
        var response = try await send(
            method: endpoint.method.rawValue, path: endpoint.path, query: wire.query, body: wire.body, tokenOverride: wire.token,
            withSession: !endpoint.endpoint.sessionless)
        // An answer kept in a file is masked for what earlier requests sent too (a login's password,
        // its temporary token), which a later answer may repeat (set-user the password, userinfo the
        // temporary token); what is only shown is masked as it is shown.
        if endpoint.endpoint.kept, let earlier = SecretMemory.matcher {
            response.data = Redaction.maskingRepeated(response.data, matcher: earlier)
        }
        // A declared call's secret body values (a login's password) stay secrets once the server has
        // taken them: a refused one is no one's password, and may be any word found in the data.
        if let body = wire.body { SecretMemory.remember(SecretScrubber.secretValues(in: body)) }
        if let memo, let key { memo.keep(response, key) }
        return try APIClient.decode(response, endpoint.decode)
    }

    /// Reads a response's `data` into a model; a `FieldError` becomes `.decoding` naming endpoint and field.
    public static func decode<Value: Sendable>(_ response: APIResponse, _ decode: (JSONValue) throws(FieldError) -> Value) throws(APIError) -> APIResult<Value> {
        do {
            return APIResult(value: try decode(response.data), response: response)
        } catch {
            var field = error
            if field.field != "data" && !field.field.hasPrefix("data.") && !field.field.hasPrefix("data[") { field.field = "data." + field.field }
            throw APIError.decoding(field, request: RequestLabel(method: response.method, path: response.path, status: response.status))
        }
    }

    // MARK: - The one request path

    private static let activityCounter = Mutex<UInt64>(0)
    static func nextActivityID() -> UInt64 { activityCounter.withLock { $0 += 1; return $0 } }

    /// Sends one request and returns the success envelope, or throws the one `APIError` describing why not.
    /// `headers` (a raw call's `Name:value` words) replace the common headers of the same name; a
    /// secret-named one's value is masked like the token wherever the request is shown.
    public func send(method: String, path: String, query: [(String, String)] = [], body: JSONValue?, headers extra: [(String, String)] = [],
                     tokenOverride: String? = nil, withSession: Bool = true) async throws(APIError) -> APIResponse {
        let method = method.uppercased()
        if method != "GET" { AnswerMemo.current?.forget() }
        var label = RequestLabel(method: method, path: path)
        guard path.hasPrefix("/") else { throw APIError.invalidRequest(reason: "a request path must start with /", request: label) }
        // A `#` starts a fragment, which no client sends: what follows it (a query, the items
        // after it) would be dropped without a word.
        guard !path.contains("#") else {
            throw APIError.invalidRequest(reason: "a # in the path starts a fragment, which is never sent; write %23 for a # in a name or value", request: label)
        }
        if configuration.isInsecureRemote {
            guard configuration.insecureHTTP else { throw APIError.insecureURL(url: configuration.baseURL.absoluteString) }
            observer.warning("plain http to \(configuration.baseURL.host ?? "?"): token and data travel unencrypted")
        }
        let urlText = APIClient.urlString(base: configuration.baseURL, path: path, query: query)
        // The URL as it goes on the wire; the trace, `curl N` and HAR all show this one.
        let wireText = APIClient.wireURL(urlText, base: configuration.baseURL)
        // Servers refuse far shorter ones (and libcurl a megabyte with "out of memory"): said before
        // sending, of the URL as sent (a Chinese character is 9 bytes there).
        guard wireText.utf8.count <= APIClient.longestURL else {
            throw APIError.invalidRequest(reason: "with its query the URL is \(wireText.utf8.count) bytes; at most \(APIClient.longestURL) are sent (send large values in a POST body)", request: label)
        }
        guard let url = URL(string: wireText) else { throw APIError.invalidURL(urlText, reason: "is not a valid URL") }

        let sessionToken = tokens.current()
        let token = tokenOverride.flatMap { $0.isEmpty ? nil : $0 } ?? (withSession ? sessionToken : nil)
        var headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("Accept", "application/json"),
            ("X-APP-VERSION", configuration.appVersion), ("X-OS-TYPE", configuration.osType),
        ])
        if let token { headers.append("token", token) }
        for (name, value) in extra { headers[name] = value }
        let bodyBytes = body.map { JSONWriter.bytes($0) } ?? []
        // The tokens, and what the caller sent under a secret name (a header, a body member, a query
        // value: `get /x password=…`), are masked wherever the server repeats them.
        // A secret-named pair typed into the path's own query (`get '/x?password=…'`) is one too.
        let inline = APIClient.queryPairs(of: path)
        let itemSecrets = SecretScrubber.requestSecrets(body: body, query: query + inline, headers: extra)
        // A token handed in (a login's temporary token at set-user, a probe's, the new one the
        // context pair carries) stays a secret after this request, whatever it gets.
        SecretMemory.remember([tokenOverride].compactMap { $0 })
        var secrets = [sessionToken, tokenOverride].compactMap { $0 } + itemSecrets
        for held in heldSecrets() where !secrets.contains(held) { secrets.append(held) }

        var request = HTTPRequest(method: method, url: url, headers: headers, body: bodyBytes, timeout: configuration.timeout)
        request.secrets = secrets
        request.carriesTypedSecret = !itemSecrets.isEmpty || Redaction.queryCarriesSecret(urlText)
        let tracing = observer.isTracing
        let traceURL = tracing ? SecretMemory.mask(SecretScrubber.url(wireText, secrets: secrets)) : ""
        // The path as the trace lines and the status line show it: a live token or a secret-named query
        // value typed into a raw `get /x/<token>?password=…` masked like the URL.
        let shownPath = SecretScrubber.url(path, secrets: secrets)
        label = RequestLabel(method: method, path: shownPath)  // and every error line names it so
        if tracing {
            observer.requestWillSend(TraceRequest(
                method: method, url: traceURL, path: shownPath, headers: APIClient.remembered(SecretScrubber.headers(headers, secrets: secrets)),
                bodyExcerpt: SecretMemory.mask(SecretScrubber.traceBody(bodyBytes, secrets: secrets))))
        }

        let epoch = expiry.currentEpoch
        let clock = ContinuousClock()
        let start = clock.now
        func elapsed() -> Double {
            (clock.now - start).milliseconds
        }
        func traceFailure(_ failure: String) {
            guard tracing else { return }
            observer.responseReceived(TraceResponse(
                method: method, url: traceURL, path: shownPath, status: nil, elapsedMs: elapsed(), headers: HTTPHeaders(),
                bodyExcerpt: "", failure: Redaction.redact(failure, secrets: secrets)))
        }

        if Task.isCancelled { traceFailure("cancelled"); throw APIError.cancelled(request: label) }
        let activity = RequestActivity(id: APIClient.nextActivityID(), method: method, path: shownPath)
        observer.requestStarted(activity)
        let response: HTTPResponse
        do {
            defer { observer.requestFinished(activity) }
            response = try await transport.send(request)
        } catch {
            let mapped = APIClient.mapTransportError(error, label: label, timeout: configuration.timeout, secrets: secrets)
            traceFailure(mapped.description)
            throw mapped
        }
        let ms = elapsed()
        // What the answer itself carries under a secret name (set-user's new token), read once from
        // its head: masked wherever else the answer shows it (a name, a message, the trace).
        let carried = Redaction.secretMemberValues(response.body)
        label.status = response.status
        if tracing {
            // Masked for what earlier requests sent too (`SecretMemory`), with its prepared matcher.
            let shown = secrets + carried
            observer.responseReceived(TraceResponse(
                method: method, url: traceURL, path: shownPath, status: response.status, elapsedMs: ms,
                headers: APIClient.remembered(SecretScrubber.headers(response.headers, secrets: shown)),
                bodyExcerpt: SecretMemory.mask(SecretScrubber.traceBody(response.body, secrets: shown)), failure: nil, metrics: response.metrics))
        }
        if Task.isCancelled { throw APIError.cancelled(request: label) }

        do {
            var answer = try interpret(response, label: label, url: urlText, elapsedMs: ms, secrets: secrets + carried, ofSession: withSession)
            // A secret the server repeats (a password or temporary token in an account's name, the
            // session's token or the answer's own in a user name) is masked in the answer itself,
            // before anything keeps it (accounts.json, defaults.json: files that outlive the session)
            // or shows it. The session's token is looked for in answers of the size the stored ones
            // have (a long list is masked as it is shown, with the live secrets); what the request
            // carried under a secret name, and the answer's own (no view knows them later), in any. A password may be short or digits that turn up in a
            // phone or an id by chance: only one of 6 or more characters is looked for, and never in
            // number-like text (`maskingRepeated`).
            let sent = [tokenOverride].compactMap { $0 } + itemSecrets.filter { $0.count >= SecretMemory.shortest }
            let repeated = response.body.count <= 65_536 ? sent + [sessionToken].compactMap { $0 } + carried : sent + carried
            if !repeated.isEmpty { answer.data = Redaction.maskingRepeated(answer.data, secrets: repeated) }
            return answer
        } catch {
            if case .sessionExpired(let cause, _) = error, tokenOverride == nil, withSession, let sessionToken,
               let generation = expiry.report(sentAtEpoch: epoch, token: sessionToken) {
                observer.sessionExpired(SessionExpiry(request: label, cause: cause, generation: generation))
            }
            throw error
        }
    }

    /// Reads status and envelope into a success response or an error.
    /// `secrets`: what an error line quotes is masked for (the request's and the answer's own).
    /// A call of the login page (`ofSession` false: `Endpoint.sessionless`) has no session to end: a
    /// 401 or an expiry code is its refusal (a wrong password), with the server's message. Any other
    /// call's is the session's end, or, sent without a token, that there is none.
    private func interpret(_ response: HTTPResponse, label: RequestLabel, url: String, elapsedMs: Double, secrets: [String],
                           ofSession: Bool) throws(APIError) -> APIResponse {
        let status = response.status
        if status == 401, ofSession { throw APIError.sessionExpired(.http401, request: label) }
        let ok = (200..<300).contains(status)
        let excerpt = { SecretScrubber.excerpt(response.body, secrets: secrets) }
        if response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw APIError.notJSON(status: status, reason: "empty body", excerpt: "", request: label)
        }
        let envelope: JSONValue
        do {
            envelope = try JSONParser.parse(response.body)
        } catch {
            throw APIError.notJSON(status: status, reason: APIClient.notJSONReason(response.body, error), excerpt: excerpt(), request: label)
        }
        guard let object = envelope.objectValue, let codeValue = object.field("code"), let rawCode = codeValue.stringValue else {
            if ok { throw APIError.decoding(FieldError(field: "code", reason: "is missing: the body is not an envelope"), request: label) }
            throw APIError.http(status: status, excerpt: excerpt(), request: label)
        }
        // A message may quote what it was sent: masked by the rule for names as well as by value.
        let msg = APIClient.clip(Redaction.redact(Redaction.scrubText([object.string("msg"), object.string("message")].compactMap { $0 }.first { !$0.unicodeScalars.allSatisfy { $0.properties.isWhitespace || TerminalText.isControl($0) } } ?? ""), secrets: secrets), limit: 200)
        let code = codeValue.intValue
        // A numeric code is the server's, not a copy of a secret that happens to share its digits.
        let codeText = APIClient.clip(Redaction.isNumberLike(rawCode) ? rawCode : Redaction.redact(rawCode, secrets: secrets), limit: 32)
        if let code, ofSession, configuration.authExpiredCodes.contains(code) {
            throw APIError.sessionExpired(ExpiryCause(code: codeText, message: msg), request: label)
        }
        guard code == APIConfiguration.successCode else {
            throw APIError.serverCode(code: codeText, msg: msg, request: label)
        }
        guard ok else { throw APIError.http(status: status, excerpt: excerpt(), request: label) }
        return APIResponse(
            method: label.method, path: label.path, url: url, status: status, code: codeText, msg: msg,
            data: object.field("data") ?? .null, envelope: envelope, body: response.body, headers: response.headers,
            elapsedMs: elapsedMs)
    }

    /// Header values with what earlier requests sent masked (`SecretMemory`).
    static func remembered(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard SecretMemory.matcher != nil else { return headers }
        return HTTPHeaders(headers.fields.map { ($0.name, SecretMemory.mask($0.value)) })
    }

    /// The pairs of the query typed into a path (`/x?a=1&b=2`), decoded; a fragment ends it.
    static func queryPairs(of path: String) -> [(String, String)] {
        guard let query = QueryText.split(Substring(path)).query else { return [] }
        return QueryText.pairs(query).compactMap { pair in
            pair.value.map { (Redaction.percentDecoded(pair.name), Redaction.percentDecoded($0)) }
        }
    }

    /// Server-sent text for an error or status line: controls shown as the escapes every other line
    /// shows (`TerminalText`), and past `limit` characters cut with `…` (a hostile `msg` or `code` must
    /// not flood the terminal).
    static func clip(_ text: String, limit: Int) -> String {
        var out = ""
        var count = 0
        for scalar in TerminalText.sanitize(text).unicodeScalars {
            if count == limit { return out + "…" }
            out.unicodeScalars.append(scalar)
            count += 1
        }
        return out
    }

    static func notJSONReason(_ body: [UInt8], _ error: JSONParseError) -> String {
        let head = body.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if head.first == UInt8(ascii: "<") { return "body is HTML, not JSON" }
        if error.reason.contains("end of input") || error.reason.contains("unterminated") {
            return "body is cut off (\(error.reason) at byte \(error.offset))"
        }
        return "body is not JSON (\(error))"
    }

    /// Wraps whatever the transport threw, once, with method and path.
    static func mapTransportError(_ error: any Error, label: RequestLabel, timeout: TimeInterval, secrets: [String]) -> APIError {
        if let e = error as? TransportError {
            switch e {
            case .cancelled: return .cancelled(request: label)
            case .network(let failure): return .network(failure, request: label)
            case .redirectRefused(let location): return .redirectRefused(location: location, request: label)
            case .tooManyRedirects(let count): return .tooManyRedirects(count: count, request: label)
            case .unreadable(let reason): return .unreadable(reason: reason, request: label)
            case .truncatedBody(let status, let received):
                var labelled = label
                labelled.status = status
                return .notJSON(
                    status: status, reason: "body is cut off (connection closed after \(received.count) bytes)",
                    excerpt: SecretScrubber.excerpt(received, secrets: secrets), request: labelled)
            case .bodyTooLarge(let status, let limit):
                var labelled = label
                labelled.status = status
                return .notJSON(status: status, reason: "body larger than the \(limit >> 20) MiB limit, not read", excerpt: "", request: labelled)
            case .plainHTTPRefused(let host, let address):
                return .insecureURL(url: "http://\(host) resolves to \(address)")
            case .proxyRefused(let proxy, let address):
                return .insecureURL(url: "the proxy \(proxy) resolves to \(address)")
            }
        }
        if let e = error as? APIError { return e }
        if error is CancellationError { return .cancelled(request: label) }
        return .network(.other(Redaction.redact(String(describing: error), secrets: secrets)), request: label)
    }

    // MARK: - URLs

    /// The longest URL a request is sent with.
    public static let longestURL = 65_536

    /// `base + path + ?query`, each query name and value percent-encoded as UTF-8.
    public static func urlString(base: URL, path: String, query: [(String, String)]) -> String {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        if !query.isEmpty {
            text += path.contains("?") ? "&" : "?"
            text += query.map { percentEncode($0.0) + "=" + percentEncode($0.1) }.joined(separator: "&")
        }
        return text
    }

    /// `text` (the base URL, then the path and query) with the path and query escaped for the wire
    /// (`escapedForURL`); the base as it is (an IPv6 host's brackets).
    static func wireURL(_ text: String, base: URL) -> String {
        var baseText = base.absoluteString
        while baseText.hasSuffix("/") { baseText.removeLast() }
        guard text.hasPrefix(baseText) else { return escapedForURL(text) }
        return baseText + escapedForURL(String(text.dropFirst(baseText.count)))
    }

    /// `text` as a URL sends it: the bytes RFC 3986 allows in a URL, and a `%` that starts an escape,
    /// as typed; every other byte (a Chinese name, a space, a `%` that starts none) as `%XX`. Done here,
    /// not left to `URL(string:)`, which on such a text escapes the query's `%` too (`Pass%77ord` would go
    /// out as `Pass%2577ord`, a name other than the one shown and masked).
    static func escapedForURL(_ text: String) -> String {
        let bytes = text.utf8
        // Most URLs are all allowed bytes and go as they are.
        guard bytes.contains(where: { !urlByteAllowed[Int($0)] }) else { return text }
        let array = Array(bytes)
        func isHex(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66) }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(array.count + 16)
        for (i, b) in array.enumerated() {
            let escape = b == UInt8(ascii: "%") && i + 2 < array.count && isHex(array[i + 1]) && isHex(array[i + 2])
            if urlByteAllowed[Int(b)] || escape {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes RFC 3986 allows unescaped in a path and query, by value: unreserved and reserved but
    /// `[` and `]` (a host's only; `URL(string:)` refuses them in a query and then escapes every `%`).
    /// `%` is not among them (`escapedForURL` keeps one that starts an escape).
    private static let urlByteAllowed: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#@!$&'()*+,;=".utf8 { table[Int(b)] = true }
        return table
    }()

    /// RFC 3986 unreserved characters stay; every other byte of the UTF-8 form becomes `%XX`.
    public static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(b)
            default:
                out.append(UInt8(ascii: "%")); out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
