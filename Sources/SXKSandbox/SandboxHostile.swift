import FoundationEssentials
import SXKCore
import SXKModels

/// The "hostile server" mode: answers carry terminal escapes in the texts a client shows (names,
/// status texts, error messages, a header), and `userinfo` echoes the caller's token inside the data
/// under harmless-looking names. The shell's terminal sanitizer and live-secret masking are tested
/// against it (`sxk-sandbox --hostile`, `POST /__sandbox/config {"hostile":true}`).
public enum SandboxHostile {
    /// OSC 52 (a clipboard write), CSI 2 J (clear screen), 8-bit CSI and OSC (U+009B, U+009D), the
    /// bidi override U+202E, and the invisible ones: zero-width space U+200B, line separator U+2028,
    /// byte order mark U+FEFF, word joiner U+2060; in one piece appended to every tainted text.
    public static let payload = "\u{1B}]52;c;aGk=\u{07}\u{1B}[2J\u{9B}31m\u{9D}0;t\u{07}\u{202E}\u{200B}\u{2028}\u{FEFF}\u{2060}"

    /// The echo route (hostile mode only): any method; answers with what it was sent (query, body,
    /// headers; the body in a response header too) beside members named by every secret family and some visible look-alikes. With
    /// `fail=1` in the query it fails instead, its message quoting the query and body it got.
    public static let echoPath = "/api/x/echo"

    /// Values planted under secret names in the echo answer; none may reach a client's output.
    public static let plantedSecrets: [(name: String, value: String)] = [
        ("refresh_token", "RT-PLANT-1"), ("apiKey", "AK-PLANT-2"), ("client_secret", "CS-PLANT-3"),
        ("Authorization", "Bearer AZ-PLANT-4"), ("sessionId", "SI-PLANT-5"), ("privateKey", "PK-PLANT-6"),
    ]

    /// Values under names that only look like secret ones; they must stay visible.
    public static let plantedVisible: [(name: String, value: String)] = [("passport", "E1234567"), ("tokenCount", "42")]

    /// Name of the response header carrying `payload` on every contract answer.
    public static let headerName = "X-Sandbox-Note"

    /// Members whose string value gets `payload`: account, scenic, store, role and customer names,
    /// and order status texts.
    public static let taintedMembers: Set<String> = [
        "accountDisplayName", "userName", "realName", "roleName", "scenicName", "storeName", "statusText",
        "customerName", "holderName", "bankName", "address",
    ]

    /// Where `userinfo` echoes the caller's token, under names no secret rule knows: as sent
    /// (`data.debug.state.echo`, `data.debug.trail[1]`), upper-cased, base64 and its first 20 characters.
    static func echo(token: String) -> JSONValue {
        ["state": ["echo": .string(token)], "trail": [.string("seen"), .string(token)],
         "shout": .string(token.uppercased()), "wire": .string(base64(token)), "head": .string(String(token.prefix(20)))]
    }

    /// The echo route's answer to `request`.
    static func echo(_ request: HTTPRequest) -> HTTPResponse {
        let bodyText = String(decoding: request.body, as: UTF8.self)
        if request.query.contains(where: { $0.name == "fail" && $0.value == "1" }) {
            return .envelope(code: SandboxCode.badRequest, msg: "rejected \(request.rawQuery) \(bodyText)" + payload, status: 200)
        }
        var query = JSONObject()
        for pair in request.query { query[pair.name] = .string(pair.value) }
        var headers = JSONObject()
        for header in request.headers { headers[header.name] = .string(header.value) }
        var data: JSONObject = [
            "method": .string(request.method), "query": .object(query), "headers": .object(headers),
            "body": request.body.isEmpty ? .null : ((try? JSONParser.parse(request.body)) ?? .string(bodyText)),
            // A name with zero-width and separator characters in it, and in its value.
            "scenic\u{200B}Name\u{2028}": .string("西湖\u{FEFF}景区\u{2029}\u{2063}"),
        ]
        var nested = JSONObject()
        for (name, value) in plantedSecrets { data[name] = .string(value) }
        nested["deep"] = .array([.object(["new_password": "NP-PLANT-7", "X-API-KEY": "XK-PLANT-8"])])
        data["nested"] = .object(nested)
        for (name, value) in plantedVisible { data[name] = .string(value) }
        var answer = HTTPResponse.success(.object(data))
        // The body sent (else the query) comes back in a header too, as a debugging gateway echoes it.
        let echoed = request.body.isEmpty ? request.rawQuery : bodyText
        if !echoed.isEmpty {
            answer.headers.append((name: echoHeaderName, value: String(echoed.filter { $0 != "\r" && $0 != "\n" })))
        }
        return answer
    }

    /// The echo route's response header carrying the request body (or query) as sent.
    public static let echoHeaderName = "X-Sandbox-Echo"

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    /// The hostile version of a contract answer to `request`.
    static func apply(_ response: HTTPResponse, to request: HTTPRequest) -> HTTPResponse {
        var out = response
        out.headers.append((headerName, payload))
        guard var envelope = (try? JSONParser.parse(response.body))?.objectValue else { return out }
        if envelope.int("code") != SandboxCode.success {
            envelope["msg"] = .string((envelope.string("msg") ?? "") + payload)
        } else if let data = envelope.field("data") {
            // The login's answers repeat what they were sent and what they hand out in the names a
            // client shows and keeps: the password (v9/login), the temporary token and the new
            // formal token (set-user).
            var echoes: [String] = []
            if let sent = (try? JSONParser.parse(request.body))?.objectValue, let password = sent.string("password") { echoes.append("pw:" + password) }
            if let token = data.objectValue?.string("token"), let temporary = request.header("token"), !temporary.isEmpty {
                echoes += ["new:" + token, "tmp:" + temporary]
            }
            var tainted = taint(data, with: payload + echoes.map { " " + $0 }.joined())
            if request.path.hasPrefix(Endpoint.userInfo.path), var object = tainted.objectValue,
               let token = request.header("token"), !token.isEmpty {
                object["debug"] = echo(token: token)
                tainted = .object(object)
            }
            envelope["data"] = tainted
        }
        out.body = rawControls(JSONWriter.bytes(.object(envelope)))
        return out
    }

    private static func taint(_ value: JSONValue, with tail: String) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map { taint($0, with: tail) })
        case .object(let object):
            var out = JSONObject()
            for (key, member) in object.entries {
                if taintedMembers.contains(key), case .string(let text) = member {
                    out[key] = .string(text + tail)
                } else {
                    out[key] = taint(member, with: tail)
                }
            }
            return .object(out)
        default: return value
        }
    }

    /// `JSONWriter` writes C1 and bidi controls as `\uXXXX`; a hostile server sends them as raw UTF-8
    /// (valid JSON too), so they are put back. C0 stays escaped: JSON does not allow it raw.
    static func rawControls(_ body: [UInt8]) -> [UInt8] {
        let text = String(decoding: body, as: UTF8.self)
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        while let range = rest.firstRange(of: "\\u") {
            out += rest[..<range.lowerBound]
            let hex = rest[range.upperBound...].prefix(4)
            // `\\u…` is an escaped backslash followed by a letter u, not an escape: leave it.
            let escapedBackslash = out.reversed().prefix { $0 == "\\" }.count % 2 == 1
            if hex.count == 4, !escapedBackslash, let value = UInt32(hex, radix: 16), value >= 0x7F,
               let scalar = Unicode.Scalar(value), TerminalText.isControl(scalar) {
                out.unicodeScalars.append(scalar)
                rest = rest[rest.index(range.upperBound, offsetBy: 4)...]
            } else {
                out += rest[range]
                rest = rest[range.upperBound...]
            }
        }
        out += rest
        return Array(out.utf8)
    }
}

/// Whether the hostile mode is on (changeable at run time through the control API).
final class HostileSwitch: @unchecked Sendable {
    private let lock = Lock()
    private var on: Bool
    init(_ on: Bool) { self.on = on }
    var isOn: Bool {
        get { lock.withLock { on } }
        set { lock.withLock { on = newValue } }
    }
}
