import SXKCore

/// How the sandbox spells its contract answers. The wire contract lets a backend send either, and
/// the client must read both, so the sandbox can serve both and the client is tested against each:
///
/// - `camel` (default): `{"code": 100000, "msg": "success", "data": {"userId": 1001, "online": true}}`.
/// - `snake`: every member name in snake_case at every depth, every number and boolean as a string
///   (booleans as `"1"` / `"0"`, the form the contract names), and `message` for the envelope's `msg`:
///   `{"code": "100000", "message": "success", "data": {"user_id": "1001", "online": "1"}}`.
///
/// Requests are read in either spelling whatever this says (query names and JSON bodies are looked
/// up camelCase first, then snake_case). The control API under `/__sandbox/` is not part of the
/// contract and always answers camelCase.
public enum SandboxSpelling: String, Sendable, CaseIterable, CustomStringConvertible {
    case camel
    case snake

    public var description: String { rawValue }

    /// `camel` / `snake` (also `camelCase` / `snake_case`), case-insensitive; nil for anything else.
    public init?(name: String) {
        switch name.lowercased() {
        case "camel", "camelcase": self = .camel
        case "snake", "snake_case", "snakecase": self = .snake
        default: return nil
        }
    }

    /// The values `init(name:)` accepts, for usage lines.
    public static let names = "camel|snake"

    /// A whole answer envelope in this spelling (`camel` leaves it as built).
    public func respell(_ envelope: JSONValue) -> JSONValue {
        guard self == .snake else { return envelope }
        guard case .object(let object) = envelope else { return SandboxSpelling.snake(envelope) }
        var out = JSONObject()
        for (key, value) in object.entries {
            out[key == "msg" ? "message" : JSONObject.snakeCase(key)] = SandboxSpelling.snake(value)
        }
        return .object(out)
    }

    /// The body of an answer in this spelling: a JSON body is rewritten, anything else (an HTML 502
    /// page, an empty body) is left alone.
    func respell(body: [UInt8]) -> [UInt8]? {
        guard self == .snake, let value = try? JSONParser.parse(body) else { return nil }
        return JSONWriter.bytes(respell(value))
    }

    private static func snake(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null, .string: return value
        case .number(let literal): return .string(literal)
        case .bool(let on): return .string(on ? "1" : "0")
        case .array(let items): return .array(items.map(snake))
        case .object(let object):
            return .object(JSONObject(object.entries.map { (key: JSONObject.snakeCase($0.key), value: snake($0.value)) }))
        }
    }
}
