import SXKCore
import SXKFeatures
import SXKModels
import SXKShell

/// What `compare` sends under each identity: a raw `get`/`post` as typed, or one page of `orders`
/// with the endpoint and scope parameter of the identity's role.
enum CompareRequest {
    case raw(method: String, path: String, query: [(String, String)], body: JSONValue?)
    case orders(page: Int, pageSize: Int, status: Int?, keyword: String?)

    /// The words after `--` (or after the flags): `get PATH k=v…`, `post PATH JSON|k=v…`, `orders [filters]`.
    /// Returns the request and whether the inner command asked for `--json`.
    static func parse(parser: CommandParser, _ words: [String]) throws -> (CompareRequest, json: Bool) {
        guard let first = words.first else {
            throw AppError.usage("compare needs a command after the identities: get PATH, post PATH or orders")
        }
        guard let spec = parser.command(named: first), CommandRegistry.declaration(for: spec.name)?.comparable == true else {
            throw AppError.usage("compare runs get, post or orders, not '\(first)'")
        }
        guard case .run(let command) = try parser.parse(words) else {
            throw AppError.usage("compare: '\(first) --help' is not a request; see `help \(first)`")
        }
        let json = command.has("json")
        let refused = command.switches.union(command.options.keys).subtracting(Commands.Compare.spec.passedFlags ?? [])
        if let flag = refused.sorted().first {
            throw AppError.usage("compare shows one page per identity in its own matrix; '--\(flag)' is not used there")
        }
        switch spec.name {
        case "orders":
            // Read and refused as `orders` reads them, in its words.
            let page = try AppCommands.number(command, "page", in: 1...Int.max) ?? 1
            let pageSize = try AppCommands.number(command, "page-size", in: OrdersFeature.pageSizes) ?? OrdersFeature.defaultPageSize
            return (.orders(page: page, pageSize: pageSize, status: try command.option("status").map(OrderStatus.code),
                            keyword: command.option("keyword")), json)
        default:
            let path = try AppCommands.requestPath(command, name: spec.name)
            let rest = Array(command.positionals.dropFirst())
            if spec.name == "get" {
                return (.raw(method: "GET", path: path, query: try AppCommands.queryItems(rest), body: nil), json)
            }
            return (.raw(method: "POST", path: path, query: [], body: try AppCommands.postBody(rest)), json)
        }
    }

    /// `get /api/app/store/all`, for headings.
    var title: String {
        switch self {
        case .raw(let method, let path, let query, _):
            return ([method.lowercased(), Redaction.maskWord(path)] + query.map { Redaction.maskWord("\($0.0)=\($0.1)") }).joined(separator: " ")
        case .orders(let page, let pageSize, let status, let keyword):
            var text = "orders --page \(page) --page-size \(pageSize)"
            if let status { text += " --status \(status)" }
            if let keyword { text += " --keyword \(keyword)" }
            return text
        }
    }

    /// The request for one identity, or why there is none (e.g. a storeAdmin with no store).
    func concrete(for target: CompareTarget) -> Result<(method: String, path: String, query: [(String, String)], body: JSONValue?), CompareProblem> {
        switch self {
        case .raw(let method, let path, var query, var body):
            if let (parameter, value) = target.override {
                let name = parameter.name
                if method == "GET" {
                    CompareRequest.set(name, String(value), in: &query)
                } else if case .object(var object)? = body {
                    object[JSONObject.snakeCase(name)] = nil
                    object[name] = .int(value)
                    body = .object(object)
                } else {
                    return .failure(CompareProblem("\(target.label) needs a JSON object body to set \(name)"))
                }
            }
            return .success((method, path, query, body))
        case .orders(let page, let pageSize, let status, let keyword):
            // The session's rule for a role's endpoints and scope (a stored store 0 is none); an id the
            // identity names (`store:0`) is sent as typed. The page is the request `orders` sends.
            let planned: PlannedRequest<Page<Order>>
            do {
                let role = try RoleEndpoints.of(target.roleCode ?? "none", scenicId: target.scenicId, storeId: target.storeId,
                                                typed: target.override != nil, feature: "orders")
                planned = try OrdersFeature.request(role, page: page, pageSize: pageSize, filter: OrderFilter(status: status, keyword: keyword))
            } catch {
                return .failure(CompareProblem("\(error)"))
            }
            var query = planned.endpoint.endpoint.wire(planned.arguments).query
            if let (parameter, value) = target.override { CompareRequest.set(parameter.name, String(value), in: &query) }
            return .success((planned.endpoint.method.rawValue, planned.endpoint.path, query, nil))
        }
    }

    /// Replaces `name` (or its snake_case spelling) in place, else appends it; later repeats go.
    static func set(_ name: String, _ value: String, in query: inout [(String, String)]) {
        let snake = JSONObject.snakeCase(name)
        let matches: ((String, String)) -> Bool = { $0.0 == name || $0.0 == snake }
        guard let i = query.firstIndex(where: matches) else {
            query.append((name, value))
            return
        }
        query[i] = (name, value)
        var j = i + 1
        while j < query.count {
            if matches(query[j]) { query.remove(at: j) } else { j += 1 }
        }
    }
}

/// Why an identity produced no request or no answer, as one line for the matrix.
struct CompareProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
