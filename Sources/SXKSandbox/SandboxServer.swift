import FoundationEssentials
import SXKCore
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded Suixinkan backend on loopback: every contract endpoint over seeded demo data,
/// plus fault injection and a request log for tests (Swift API here, HTTP under `/__sandbox/`).
public final class SandboxServer: @unchecked Sendable {
    public let config: SandboxConfig
    /// The instant the generated orders end at; statistics agree with it.
    public let referenceDate: Date

    let tokens: SandboxTokens
    let faults: SandboxFaultBook
    let log = SandboxRequestLog()
    let api: SandboxAPI
    let hostileMode: HostileSwitch

    private let lock = Lock()
    private var listener: HTTPListener?
    private var boundURL: URL?

    public init(config: SandboxConfig = SandboxConfig()) {
        self.config = config
        let reference = config.referenceDate ?? config.clock.now()
        let referenceUnix = Int(reference.timeIntervalSince1970)
        self.referenceDate = Date(timeIntervalSince1970: TimeInterval(referenceUnix))
        tokens = SandboxTokens(ttl: config.tokenTTL, clock: config.clock, keeper: config.tokenKeeper)
        faults = SandboxFaultBook(seed: config.seed, latencyMs: config.latencyMs, failRate: config.failRate)
        api = SandboxAPI(config: config, tokens: tokens, referenceUnix: referenceUnix)
        hostileMode = HostileSwitch(config.hostile)
    }

    /// Binds and starts serving; returns the base URL (`http://127.0.0.1:PORT`).
    @discardableResult
    public func start() throws(SandboxError) -> URL {
        try config.validate()
        guard lock.withLock({ self.listener == nil }) else { throw .alreadyStarted }
        let listener = HTTPListener(
            maxHeaderBytes: config.maxHeaderBytes, maxBodyBytes: config.maxBodyBytes, maxConnections: config.maxConnections,
            idleTimeout: config.idleTimeout
        ) { [unowned self] request in handle(request) }
        let host = config.host.lowercased() == "localhost" ? "127.0.0.1" : config.host.trimming { $0 == "[" || $0 == "]" }
        try listener.start(host: host, port: config.port)
        let urlHost = host.contains(":") ? "[\(host)]" : host
        let url = URL(string: "http://\(urlHost):\(listener.port)")!
        lock.withLock {
            self.listener = listener
            boundURL = url
        }
        return url
    }

    public var baseURL: URL? { lock.withLock { boundURL } }
    public var port: Int? { lock.withLock { listener?.port } }

    /// Closes the listener and every connection (hanging ones too) and joins their threads.
    public func stop() {
        let listener: HTTPListener? = lock.withLock {
            defer {
                self.listener = nil
                boundURL = nil
            }
            return self.listener
        }
        listener?.stop()
    }

    deinit { lock.withLock { listener }?.stop() }

    // MARK: - Test controls

    /// Makes the next `count` requests to `path` (exact, without query; `*` = any) misbehave.
    public func injectFault(path: String, kind: SandboxFaultKind, count: Int = 1, location: String? = nil) {
        faults.add(SandboxFault(path: path, kind: kind, count: max(1, count), location: location))
    }

    public func injectFault(_ fault: SandboxFault) { faults.add(fault) }
    /// Clears the pending faults and turns the scope leak off.
    public func clearFaults() {
        faults.clear()
        api.scopeLeak.rowsPerPage = 0
    }
    public var pendingFaults: [SandboxFault] { faults.pending }

    /// Contract requests received so far, oldest first.
    public func requestLog() -> [SandboxRequestRecord] { log.all }
    public func resetRequestLog() { log.reset() }

    /// Every temporary and formal token stops working (the next call answers 100401).
    public func expireTokens() { tokens.expireAll() }

    public func setLatency(milliseconds: Int) { faults.setLatency(milliseconds) }
    public func setFailRate(_ rate: Double) { faults.setFailRate(rate) }
    public func setTokenTTL(_ ttl: TimeInterval?) { tokens.tokenTTL = ttl }
    /// The first `rows` rows of every order page and daily-statistics page come from another
    /// scenic area or store (an authorization bug to catch); 0 turns it off.
    public func setScopeLeak(rows: Int) { api.scopeLeak.rowsPerPage = rows }
    public var scopeLeakRows: Int { api.scopeLeak.rowsPerPage }
    /// Turns the hostile-server mode (`SandboxHostile`) on or off.
    public func setHostile(_ on: Bool) { hostileMode.isOn = on }
    public var isHostile: Bool { hostileMode.isOn }

    /// Replaces the role list `role-permission` answers for `userId` (nil restores the account's own).
    func replaceRoles(_ roles: [SandboxRole]?, userId: Int) { api.roleOverrides.set(roles, userId: userId) }
    /// The same, from code: `(roleCode, scenicIds)` pairs.
    public func setRoles(_ roles: [(roleCode: String, scenicIds: [Int])]?, userId: Int) {
        api.roleOverrides.set(roles?.map { SandboxRole(roleCode: $0.roleCode, scenicIds: $0.scenicIds) }, userId: userId)
    }

    // MARK: - Request pipeline

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path.hasPrefix("/__sandbox/") { return control(request) }
        let entry = log.append(request, time: config.clock.now())
        defer { log.answered(entry) }
        sleepLatency()
        if let fault = faults.take(path: request.path, rawQuery: request.rawQuery) { return faultResponse(fault, request) }
        if faults.rollFailure() { return SandboxServer.html502() }
        let response: HTTPResponse
        if hostileMode.isOn {
            let answer = request.path == SandboxHostile.echoPath ? SandboxHostile.echo(request) : api.handle(request)
            response = SandboxHostile.apply(answer, to: request)
        } else {
            response = api.handle(request)
        }
        return spelled(response)
    }

    /// The answer in the configured spelling (`SandboxSpelling`), rewritten once on the way out;
    /// the hostile mode's raw control characters stay raw.
    func spelled(_ response: HTTPResponse) -> HTTPResponse {
        guard let body = config.spelling.respell(body: response.body) else { return response }
        var out = response
        out.body = hostileMode.isOn ? SandboxHostile.rawControls(body) : body
        return out
    }

    private func sleepLatency() {
        let latency = faults.latency
        guard latency > 0 else { return }
        let deadline = DispatchTime.now() + .milliseconds(latency)
        while true {
            if lock.withLock({ listener?.isStopping ?? true }) { return }
            // Read the clock once: the deadline passing between two reads made the unsigned difference
            // wrap, and converting that to Int trapped the whole process.
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline.uptimeNanoseconds else { return }
            usleep(UInt32(min(5_000, max(1, (deadline.uptimeNanoseconds - now) / 1000))))
        }
    }

    static func html502() -> HTTPResponse {
        let html = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
        return HTTPResponse(status: 502, headers: [("Content-Type", "text/html")], body: Array(html.utf8))
    }

    private func faultResponse(_ fault: SandboxFault, _ request: HTTPRequest) -> HTTPResponse {
        switch fault.kind {
        case .malformed:
            let body = config.spelling == .snake
                ? #"{"code":"100000","message":"success","data":{"list":["1","2",}]"#
                : #"{"code":100000,"msg":"success","data":{"list":[1,2,}]"#
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(body.utf8))
        case .empty:
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: [])
        case .notHTTP:
            var response = HTTPResponse(status: 200, body: Array("SSH-2.0-OpenSSH_9.2p1\r\n".utf8))
            response.delivery = .raw
            return response
        case .truncated:
            var response = spelled(api.handle(request))
            response.delivery = .truncated(response.body.count / 2)
            return response
        case .html502:
            return SandboxServer.html502()
        case .status500:
            return spelled(.envelope(code: SandboxCode.serverError, msg: "服务器内部错误", status: 500))
        case .hang:
            var response = HTTPResponse(status: 200)
            response.delivery = .hang
            return response
        case .redirect:
            return HTTPResponse(status: 302, headers: [("Location", fault.location ?? "/")], body: [])
        case .huge, .oversized:
            var response = spelled(api.handle(request))
            response.body = SandboxServer.padded(response.body, to: fault.kind.paddedSize ?? 0)
            return response
        case .status401:
            return HTTPResponse(status: 401, headers: [("Content-Type", "text/plain; charset=utf-8")], body: [])
        case .pageIgnored, .pagesEndless:
            var first = request
            first.query = request.query.filter { $0.name != "page" } + [("page", "1")]
            first.rawQuery = first.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return spelled(SandboxServer.reshaped(api.handle(first)) { data in
                // Endless: no total and no page named, so nothing in one answer gives it away.
                if fault.kind == .pagesEndless { data["total"] = nil; data["page"] = nil }
            })
        case .pageCapped:
            var capped = request
            let asked = request.param("pageSize").flatMap { Int($0) } ?? 20
            capped.query = request.query.filter { $0.name != "pageSize" && $0.name != "page_size" } + [("pageSize", String(min(asked, 10)))]
            capped.rawQuery = capped.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return spelled(SandboxServer.reshaped(api.handle(capped)) { data in data["pageSize"] = nil })
        case .pageUnsized:
            return spelled(SandboxServer.reshaped(api.handle(request)) { data in
                data["pageSize"] = nil
                data["page"] = nil
            })
        case .pageWithoutList:
            return spelled(SandboxServer.reshaped(api.handle(request)) { data in data["list"] = nil })
        case .dataEmpty:
            return spelled(SandboxServer.reshaped(api.handle(request)) { data in data = JSONObject() })
        case .listNull:
            return spelled(SandboxServer.reshaped(api.handle(request)) { data in data["list"] = .null })
        case .tokenEmpty:
            return spelled(SandboxServer.reshaped(api.handle(request)) { data in data["token"] = "" })
        case .userOther:
            return spelled(SandboxServer.reshaped(api.handle(request)) { data in
                guard var user = data["user"]?.objectValue, let id = user["userId"]?.intValue else { return }
                user["userId"] = .int(id + 1)
                data["user"] = .object(user)
            })
        case .deepNesting:
            let depth = 100_000
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")],
                                body: [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth))
        }
    }

    /// The answer with its `data` object changed by `change` (an answer without one is left as it is).
    static func reshaped(_ response: HTTPResponse, _ change: (inout JSONObject) -> Void) -> HTTPResponse {
        guard let envelope = try? JSONParser.parse(response.body, maxDepth: 64), var object = envelope.objectValue,
              var data = object["data"]?.objectValue else { return response }
        change(&data)
        object["data"] = .object(data)
        var out = response
        out.body = JSONWriter.bytes(.object(object))
        return out
    }

    /// `{"padding":"xxx…",` + the rest of a JSON object, `size` bytes in all (the object is unchanged otherwise).
    static func padded(_ object: [UInt8], to size: Int) -> [UInt8] {
        guard object.first == UInt8(ascii: "{") else { return object }
        let head = Array(#"{"padding":""#.utf8)
        let tail = object.count > 2 ? Array(#"","#.utf8) : Array(#"""#.utf8)
        let rest = tail + object.dropFirst()
        let total = max(size, head.count + rest.count)
        // Filled in one go: element-wise appends of tens of megabytes take seconds in a debug build.
        var body = [UInt8](repeating: UInt8(ascii: "x"), count: total)
        body.replaceSubrange(0..<head.count, with: head)
        body.replaceSubrange((total - rest.count)..<total, with: rest)
        return body
    }
}
