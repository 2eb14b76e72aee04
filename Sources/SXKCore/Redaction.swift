/// Keeps secrets out of everything a person or a file might see: traces, errors, excerpts.
public enum Redaction {
    /// `abcd…wxyz` style: first 4 and last 4 characters, the middle replaced; short secrets fully hidden.
    public static func maskToken(_ token: String) -> String {
        guard token.count > 12 else { return "***" }
        return String(token.prefix(4)) + "…" + String(token.suffix(4))
    }

    /// `13800000001` → `138****0001`; anything not phone-shaped is returned unchanged.
    public static func maskPhone(_ phone: String) -> String {
        let digits = Array(phone)
        guard digits.count == 11, digits.allSatisfy(\.isNumber) else { return phone }
        return String(digits[0..<3]) + "****" + String(digits[7..<11])
    }

    /// Replaces every occurrence of each secret with `***`. Secrets shorter than 4 characters are
    /// ignored, since masking them would garble ordinary text.
    public static func redact(_ text: String, secrets: [String]) -> String {
        var out = text
        for secret in secrets where secret.count >= 4 {
            out = out.replacingAll(secret, with: "***")
        }
        return out
    }

    /// JSON member names whose values are secrets wherever they appear in a body.
    public static let secretKeys: Set<String> = ["password", "token", "tempToken", "temp_token", "formalToken", "accessToken", "access_token", "pwd"]

    /// A copy of a JSON value with every secret member's value replaced by `"***"`.
    public static func redact(_ value: JSONValue) -> JSONValue {
        // Most answers hold no secret: hand them back as they are instead of copying every node.
        guard holdsSecret(value) else { return value }
        switch value {
        case .object(let object):
            return .object(JSONObject(object.entries.map { entry in
                secretKeys.contains(entry.key) && entry.value != .null
                    ? (entry.key, JSONValue.string("***")) : (entry.key, redact(entry.value))
            }))
        case .array(let items): return .array(items.map(redact))
        default: return value
        }
    }

    /// Whether any object inside `value` has a non-null member named like a secret.
    static func holdsSecret(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object):
            return object.entries.contains { (secretKeys.contains($0.key) && $0.value != .null) || holdsSecret($0.value) }
        case .array(let items): return items.contains(where: holdsSecret)
        default: return false
        }
    }

    /// The first `limit` bytes of a body as text, secrets removed, for error messages.
    public static func excerpt(_ body: [UInt8], limit: Int = 200, secrets: [String]) -> String {
        let head = body.prefix(limit)
        var text = String(decoding: head, as: UTF8.self)
        // Remove a split multi-byte character at the cut.
        if body.count > limit { text = String(text.unicodeScalars.filter { $0 != "\u{FFFD}" }.map(Character.init)) + "…" }
        text = redact(text, secrets: secrets)
        var printable = ""
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar == "\t" { printable.append(" ") }
            else if scalar.value < 0x20 || scalar.value == 0x7F { printable.append("?") }
            else { printable.unicodeScalars.append(scalar) }
        }
        return printable
    }
}

extension String {
    /// Plain substring replacement without Foundation.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, self.contains(target) else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        result += rest
        return result
    }
}
