import FoundationEssentials
import SXKCore

/// The HTTP control API under `/__sandbox/` (not part of the contract; never logged).
extension SandboxServer {
    func control(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case ("POST", "/__sandbox/faults"): return addFault(request)
        case ("GET", "/__sandbox/faults"):
            return .success(.array(faults.pending.map(SandboxServer.faultJSON)))
        case ("DELETE", "/__sandbox/faults"), ("POST", "/__sandbox/clear-faults"):
            clearFaults()
            return .success(.null)
        case ("GET", "/__sandbox/requests"):
            return .success(.array(requestLog().map(\.json)))
        case ("POST", "/__sandbox/reset-log"):
            resetRequestLog()
            return .success(.null)
        case ("POST", "/__sandbox/expire-tokens"):
            expireTokens()
            return .success(.null)
        case ("POST", "/__sandbox/config"): return updateConfig(request)
        case ("GET", "/__sandbox/status"): return .success(status())
        case ("POST", "/__sandbox/roles"): return setRoles(request)
        default:
            return .envelope(code: SandboxCode.notFound, msg: "控制接口不存在: \(request.method) \(request.path)", status: 404)
        }
    }

    static func faultJSON(_ fault: SandboxFault) -> JSONValue {
        var object: JSONObject = ["path": .string(fault.path), "kind": .string(fault.kind.rawValue), "count": .int(fault.remaining)]
        if let location = fault.location { object["location"] = .string(location) }
        if let query = fault.query { object["query"] = .string(query) }
        return .object(object)
    }

    private func controlBody(_ request: HTTPRequest) -> JSONObject? {
        if request.body.isEmpty { return JSONObject() }
        return (try? JSONParser.parse(request.body))?.objectValue
    }

    private static func bad(_ msg: String) -> HTTPResponse { .envelope(code: SandboxCode.badRequest, msg: msg, status: 400) }

    private func addFault(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = controlBody(request) else { return SandboxServer.bad("body is not a JSON object") }
        guard let path = body.string("path"), path == "*" || path.hasPrefix("/") else {
            return SandboxServer.bad("path must start with / or be *")
        }
        let kinds = SandboxFaultKind.allCases.map(\.rawValue).joined(separator: "|")
        guard let kindText = body.string("kind"), let kind = SandboxFaultKind(rawValue: kindText) else {
            return SandboxServer.bad("kind must be one of \(kinds)")
        }
        let count = body.int("count") ?? 1
        guard count >= 1 else { return SandboxServer.bad("count must be at least 1") }
        let location = body.string("location")
        if kind == .redirect && (location ?? "").isEmpty { return SandboxServer.bad("redirect needs a location") }
        let fault = SandboxFault(path: path, kind: kind, count: count, location: location, query: body.string("query"))
        injectFault(fault)
        return .success(SandboxServer.faultJSON(fault))
    }

    /// `{"userId": 2001, "roles": [{"roleCode": "photographer", "scenicIds": [1]}]}` replaces what
    /// role-permission answers for that user; `"roles": null` restores the account's own list.
    private func setRoles(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = controlBody(request) else { return SandboxServer.bad("body is not a JSON object") }
        guard let userId = body.int("userId"), SandboxDirectory.account(userId) != nil else { return SandboxServer.bad("userId must name a demo account") }
        guard let value = body["roles"], value != .null else {
            replaceRoles(nil, userId: userId)
            return .success(.null)
        }
        guard let items = value.arrayValue else { return SandboxServer.bad("roles must be an array or null") }
        var roles: [SandboxRole] = []
        for item in items {
            guard let o = item.objectValue, let code = o.string("roleCode"), !code.isEmpty,
                  let ids = o["scenicIds"]?.arrayValue?.compactMap(\.intValue), ids.allSatisfy({ SandboxDirectory.scenic($0) != nil }) else {
                return SandboxServer.bad("each role needs roleCode and scenicIds of known scenic areas")
            }
            roles.append(SandboxRole(roleCode: code, scenicIds: ids))
        }
        replaceRoles(roles, userId: userId)
        return .success(.int(roles.count))
    }

    private func updateConfig(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = controlBody(request) else { return SandboxServer.bad("body is not a JSON object") }
        if let value = body.field("latencyMs") {
            guard let ms = value.intValue, ms >= 0 else { return SandboxServer.bad("latencyMs must be a non-negative integer") }
            setLatency(milliseconds: ms)
        }
        if let value = body.field("failRate") {
            guard let rate = value.doubleValue, rate >= 0, rate <= 1 else { return SandboxServer.bad("failRate must be within 0…1") }
            setFailRate(rate)
        }
        if let value = body.field("leakRows") {
            guard let rows = value.intValue, rows >= 0 else { return SandboxServer.bad("leakRows must be a non-negative integer") }
            setScopeLeak(rows: rows)
        }
        if let value = body.field("hostile") {
            guard let on = value.boolValue else { return SandboxServer.bad("hostile must be true or false") }
            setHostile(on)
        }
        if body.keys.contains("tokenTTL") || body.keys.contains("token_ttl") {
            let value = body.field("tokenTTL")
            if value == nil || value?.doubleValue == 0 {
                setTokenTTL(nil)
            } else if let ttl = value?.doubleValue, ttl > 0 {
                setTokenTTL(ttl)
            } else {
                return SandboxServer.bad("tokenTTL must be a positive number of seconds, 0 or null")
            }
        }
        return .success(status())
    }

    func status() -> JSONValue {
        [
            "baseURL": .string(baseURL?.absoluteString ?? ""),
            "seed": .number(String(config.seed)),
            "ordersPerRole": .int(config.ordersPerRole),
            "referenceDate": .string(ShanghaiCalendar.timestamp(unix: Int(referenceDate.timeIntervalSince1970))),
            "latencyMs": .int(faults.latency),
            "failRate": .double(faults.failRate),
            "tokenTTL": tokens.tokenTTL.map { .double($0) } ?? .null,
            "leakRows": .int(scopeLeakRows),
            "hostile": .bool(isHostile),
            "spelling": .string(config.spelling.rawValue),
            "requests": .int(log.all.count),
            "pendingFaults": .array(faults.pending.map(SandboxServer.faultJSON)),
        ]
    }
}
