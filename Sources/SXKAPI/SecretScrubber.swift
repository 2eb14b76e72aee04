import SXKCore

/// Redaction for bodies, URLs and headers, including bodies that are not valid JSON (cut-off,
/// HTML, a form): known secret strings become `***`, and so does the value of any member, query
/// parameter, form field or header whose name is secret by `Redaction.isSecretName`, even one the
/// client has never seen. The shell's HAR export and `curl N` use the same functions, so a file
/// masks exactly what `--trace` masks.
public enum SecretScrubber {
    /// A redacted, single-line excerpt of at most `limit` body bytes.
    static func excerpt(_ body: [UInt8], limit: Int = 200, secrets: [String]) -> String {
        if body.isEmpty { return "" }
        // Redact before cutting, so a secret (member value or known token) straddling the cut is not
        // half shown. Only a bounded head is scrubbed: the excerpt plus room for a long value that
        // starts inside it (an unterminated one is redacted to the end of the head). Scrubbing a whole
        // 8 MiB body of secret members took minutes.
        let head = body.count > limit * 4 + 4096 ? body.prefix(limit * 4 + 4096) : body[...]
        let scrubbed = Redaction.redact(Redaction.scrubText(String(decoding: head, as: UTF8.self)), secrets: secrets)
        return Redaction.excerpt(Array(scrubbed.utf8), limit: limit, secrets: secrets)
    }

    /// A body for the trace: parsed JSON is redacted member-wise, anything else text-wise.
    public static func traceBody(_ body: [UInt8], limit: Int = 2000, secrets: [String]) -> String {
        if body.isEmpty { return "" }
        if let value = try? JSONParser.parse(body) {
            let text = JSONWriter.string(Redaction.redact(value))
            return Redaction.excerpt(Array(text.utf8), limit: limit, secrets: secrets)
        }
        return excerpt(body, limit: limit, secrets: secrets)
    }

    /// A URL with the values of secret query parameters replaced, and live secrets masked.
    public static func url(_ text: String, secrets: [String]) -> String {
        Redaction.maskedQuery(Redaction.redact(text, secrets: secrets))
    }

    /// Headers with the value of every secret-named one (`token`, `Authorization`, `Cookie`,
    /// `Set-Cookie`, `X-Api-Key`…) shown as `***`, and live secrets masked in the rest.
    public static func headers(_ headers: HTTPHeaders, secrets: [String]) -> HTTPHeaders {
        HTTPHeaders(headers.fields.map { field in
            // A server may put a secret in a header's name too (`X-Tok-<token>: 1`).
            let name = Redaction.redact(field.name, secrets: secrets)
            if Redaction.isSecretName(field.name) { return HTTPField(name: name, value: "***") }
            return HTTPField(name: name, value: Redaction.redact(field.value, secrets: secrets))
        })
    }

    /// String values of secret members of a JSON body (passwords sent in a login), to redact elsewhere.
    /// The values a request carries under secret names — secret-named headers, the body's secret
    /// members, secret-named query values — to be masked wherever an answer repeats them.
    public static func requestSecrets(body: JSONValue?, query: [(String, String)], headers: [(String, String)]) -> [String] {
        var out = headers.filter { (isSecretHeader($0.0) || Redaction.isSecretName($0.0)) && !$0.1.isEmpty }.map(\.1)
        if let body { out += secretValues(in: body) }
        out += query.filter { Redaction.isSecretName($0.0) && !$0.1.isEmpty }.map(\.1)
        return out
    }

    public static func secretValues(in value: JSONValue) -> [String] {
        switch value {
        case .object(let o):
            return o.entries.flatMap { entry -> [String] in
                if Redaction.isSecretName(entry.key) {
                    switch entry.value {
                    case .string(let s): return [s]
                    case .number(let n): return [n]
                    default: break
                    }
                }
                return secretValues(in: entry.value)
            }
        case .array(let items): return items.flatMap(secretValues)
        default: return []
        }
    }
}
