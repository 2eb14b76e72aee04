import SXKCore

/// Redaction for bodies and URLs, including bodies that are not valid JSON (cut-off, HTML):
/// known secret strings become `***`, and so does the string value of any secret member
/// (`"token": "…"`), even one the client has never seen. The shell's HAR export uses the same
/// functions, so a file masks exactly what `--trace` masks.
public enum SecretScrubber {
    /// A redacted, single-line excerpt of at most `limit` body bytes.
    static func excerpt(_ body: [UInt8], limit: Int = 200, secrets: [String]) -> String {
        if body.isEmpty { return "" }
        // Redact before cutting, so a secret (member value or known token) straddling the cut is not
        // half shown. Only a bounded head is scrubbed: the excerpt plus room for a long value that
        // starts inside it (an unterminated one is redacted to the end of the head). Scrubbing a whole
        // 8 MiB body of secret members took minutes.
        let head = body.count > limit * 4 + 4096 ? body.prefix(limit * 4 + 4096) : body[...]
        let scrubbed = Redaction.redact(scrubMembers(String(decoding: head, as: UTF8.self)), secrets: secrets)
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

    /// Replaces the string value of every secret member in raw text (`"password":"x"` → `"password":"***"`).
    static func scrubMembers(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var changed = false
        for key in Redaction.secretKeys {
            let needle = Array("\"\(key)\"".utf8)
            var searchFrom = 0
            while let start = find(needle, in: bytes, from: searchFrom) {
                var i = start + needle.count
                while i < bytes.count, isSpace(bytes[i]) { i += 1 }
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { searchFrom = start + 1; continue }
                i += 1
                while i < bytes.count, isSpace(bytes[i]) { i += 1 }
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { searchFrom = start + 1; continue }
                let valueStart = i + 1
                var j = valueStart
                while j < bytes.count, bytes[j] != UInt8(ascii: "\"") {
                    j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1
                }
                let valueEnd = min(j, bytes.count)
                bytes.replaceSubrange(valueStart..<valueEnd, with: Array("***".utf8))
                changed = true
                searchFrom = valueStart + 3
            }
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// A URL with the values of secret query parameters replaced.
    public static func url(_ text: String, secrets: [String]) -> String {
        var out = Redaction.redact(text, secrets: secrets)
        guard let q = out.firstIndex(of: "?") else { return out }
        let head = out[..<q]
        let pairs = out[out.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, Redaction.secretKeys.contains(String(parts[0])) { return "\(parts[0])=***" }
            return String(pair)
        }
        out = head + "?" + pairs.joined(separator: "&")
        return out
    }

    /// Headers with `token` (and any authorization or cookie header) shown as `***`.
    public static func headers(_ headers: HTTPHeaders, secrets: [String]) -> HTTPHeaders {
        HTTPHeaders(headers.fields.map { field in
            let lower = field.name.lowercased()
            if lower == "token" || lower == "authorization" || lower == "cookie" || lower == "set-cookie" {
                return HTTPField(name: field.name, value: "***")
            }
            return HTTPField(name: field.name, value: Redaction.redact(field.value, secrets: secrets))
        })
    }

    /// String values of secret members of a JSON body (passwords sent in a login), to redact elsewhere.
    public static func secretValues(in value: JSONValue) -> [String] {
        switch value {
        case .object(let o):
            return o.entries.flatMap { entry -> [String] in
                if Redaction.secretKeys.contains(entry.key), case .string(let s) = entry.value { return [s] }
                return secretValues(in: entry.value)
            }
        case .array(let items): return items.flatMap(secretValues)
        default: return []
        }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard needle.count <= hay.count, from <= hay.count - needle.count else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}
