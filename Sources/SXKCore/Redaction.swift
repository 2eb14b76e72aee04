#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        for secret in secrets where secret.utf8.count >= 4 {
            out = out.replacingAll(secret, with: "***")
        }
        return out
    }

    /// `redact(value)`, and every occurrence of a live secret in any key or string replaced by `***`.
    public static func redact(_ value: JSONValue, secrets: [String]) -> JSONValue {
        let live = secrets.filter { $0.utf8.count >= 4 }
        return changed(value, live, live.map { Array($0.utf8) }) ?? value
    }

    /// `redact(_:secrets:)` over each row of a batch, the secrets prepared once (a stream masks
    /// 100,000 rows).
    public static func redact(rows: [JSONValue], secrets: [String]) -> [JSONValue] {
        let live = secrets.filter { $0.utf8.count >= 4 }
        let needles = live.map { Array($0.utf8) }
        return rows.map { changed($0, live, needles) ?? $0 }
    }

    /// One walk for both rules; nil when nothing changes, so a clean answer (the usual case) is
    /// handed back without copying a node. Runs on every command's data.
    private static func changed(_ value: JSONValue, _ secrets: [String], _ needles: [[UInt8]]) -> JSONValue? {
        switch value {
        case .string(let text):
            guard !needles.isEmpty, holds(text, needles) else { return nil }
            return .string(redact(text, secrets: secrets))
        case .array(let items):
            var out: [JSONValue]?
            for (i, item) in items.enumerated() {
                guard let new = changed(item, secrets, needles) else { continue }
                if out == nil { out = items }
                out![i] = new
            }
            return out.map(JSONValue.array)
        case .object(let object):
            var out: [(key: String, value: JSONValue)]?
            for (i, entry) in object.entries.enumerated() {
                let key = !needles.isEmpty && holds(entry.key, needles) ? redact(entry.key, secrets: secrets) : nil
                let member: JSONValue? = isSecretKey(entry.key) && entry.value != .null
                    ? (entry.value == .string("***") ? nil : .string("***"))
                    : changed(entry.value, secrets, needles)
                guard key != nil || member != nil else { continue }
                if out == nil { out = object.entries }
                out![i] = (key: key ?? entry.key, value: member ?? entry.value)
            }
            return out.map { .object(JSONObject($0)) }
        default:
            return nil
        }
    }

    private static func holds(_ text: String, _ needles: [[UInt8]]) -> Bool {
        // Most keys and cells are shorter than any token: no scan (utf8.count is O(1) on native strings).
        let count = text.utf8.count
        guard needles.contains(where: { $0.count <= count }) else { return false }
        var text = text
        return text.withUTF8 { hay in needles.contains { String.find($0, in: hay, from: 0) != nil } }
    }

    /// JSON member names whose values are secrets wherever they appear in a body.
    public static let secretKeys: Set<String> = ["password", "token", "tempToken", "temp_token", "formalToken", "accessToken", "access_token", "pwd"]

    /// Whether a member name is one of `secretKeys`. Every key of every row passes here, so names
    /// that cannot be one (by first byte and length) are turned away before hashing.
    public static func isSecretKey(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard let first = utf8.first, (3...12).contains(utf8.count),
              first == UInt8(ascii: "p") || first == UInt8(ascii: "t") || first == UInt8(ascii: "f") || first == UInt8(ascii: "a")
        else { return false }
        return secretKeys.contains(name)
    }

    /// A copy of a JSON value with every secret member's value replaced by `"***"`.
    public static func redact(_ value: JSONValue) -> JSONValue {
        changed(value, [], []) ?? value
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
    /// Plain substring replacement without Foundation, by UTF-8 bytes (`memmem`): a valid UTF-8
    /// target only matches at character boundaries of valid UTF-8 text. No copy when absent.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        let needle = Array(target.utf8)
        guard !needle.isEmpty else { return self }
        var text = self
        return text.withUTF8 { hay -> String in
            guard var match = Self.find(needle, in: hay, from: 0) else { return self }
            var out: [UInt8] = []
            out.reserveCapacity(hay.count)
            var position = 0
            while true {
                out.append(contentsOf: hay[position..<match])
                out.append(contentsOf: replacement.utf8)
                position = match + needle.count
                guard let next = Self.find(needle, in: hay, from: position) else { break }
                match = next
            }
            out.append(contentsOf: hay[position...])
            return String(decoding: out, as: UTF8.self)
        }
    }

    static func find(_ needle: [UInt8], in hay: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = hay.baseAddress, hay.count - start >= needle.count else { return nil }
        // memchr to each candidate first byte, memcmp for the rest (glibc's memmem is not exported to Swift).
        return needle.withUnsafeBufferPointer { n -> Int? in
            let last = hay.count - n.count
            var i = start
            while i <= last {
                guard let hit = memchr(base + i, Int32(n[0]), last - i + 1) else { return nil }
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + at, n.baseAddress!, n.count) == 0 { return at }
                i = at + 1
            }
            return nil
        }
    }
}
