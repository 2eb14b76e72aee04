#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps secrets out of everything a person or a file might see: traces, errors, excerpts.
public enum Redaction {
    /// A stored token as every view shows it: `***`, saying there is one, never a part of it (the
    /// JSON views mask a member named `token` so; a text view must not show more).
    public static func maskToken(_ token: String) -> String { "***" }

    /// `13800000001` → `138****0001`; anything not phone-shaped is returned unchanged.
    public static func maskPhone(_ phone: String) -> String {
        let digits = Array(phone)
        guard digits.count == 11, digits.allSatisfy(\.isNumber) else { return phone }
        return String(digits[0..<3]) + "****" + String(digits[7..<11])
    }

    /// Replaces every live secret in `text` with `***`, in each form `SecretMatcher` knows (as
    /// sent, in another case, base64, any run of 16 of its characters). Secrets shorter than 4
    /// characters are ignored, since masking them would garble ordinary text.
    public static func redact(_ text: String, secrets: [String]) -> String {
        SecretMatcher.shared(secrets).mask(text)
    }

    /// `redact(value)`, and every live secret in any key or string replaced by `***`.
    public static func redact(_ value: JSONValue, secrets: [String]) -> JSONValue {
        let matcher = SecretMatcher.shared(secrets)
        return changed(value, matcher) ?? value
    }

    /// Only the live secrets in `value` replaced, a secret-named member's value kept: an answer
    /// still to be used (a login's, whose `token` is the session's) cleaned of what it repeats.
    public static func maskingRepeated(_ value: JSONValue, secrets: [String]) -> JSONValue {
        maskingRepeated(value, matcher: SecretMatcher.shared(secrets))
    }

    /// The same with a matcher prepared once (`SecretMemory.matcher`).
    public static func maskingRepeated(_ value: JSONValue, matcher: SecretMatcher) -> JSONValue {
        changed(value, matcher, byName: false) ?? value
    }

    /// `redact(_:secrets:)` over each row of a batch, the secrets prepared once (a stream masks
    /// 100,000 rows).
    public static func redact(rows: [JSONValue], secrets: [String]) -> [JSONValue] {
        let matcher = SecretMatcher.shared(secrets)
        return rows.map { changed($0, matcher) ?? $0 }
    }

    /// Digits, with spaces, signs, dots and a phone's `*`: an id, a phone, an amount, a PIN.
    public static func isNumberLike(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x30...0x39).contains($0) || $0 == 0x2A || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E || $0 == 0x20 }
    }

    /// One walk for both rules; nil when nothing changes, so a clean answer (the usual case) is
    /// handed back without copying a node. Runs on every command's data.
    private static func changed(_ value: JSONValue, _ matcher: SecretMatcher, byName: Bool = true) -> JSONValue? {
        switch value {
        case .string(let text):
            // An answer still to be used keeps its number-like text (an id sent as a string, a phone,
            // an amount) whole: a secret found there is a coincidence of digits, not a copy.
            if !byName, isNumberLike(text) { return nil }
            guard matcher.holds(text) else { return nil }
            return .string(matcher.mask(text))
        case .array(let items):
            var out: [JSONValue]?
            for (i, item) in items.enumerated() {
                guard let new = changed(item, matcher, byName: byName) else { continue }
                if out == nil { out = items }
                out![i] = new
            }
            return out.map(JSONValue.array)
        case .object(let object):
            // A row that names its value in a member (`{"field": NAME, "value": …}` of a key/value
            // table, `{"key": NAME, "before": …, "after": …}` of a change) hides it as a member
            // named NAME would be: the table, CSV and JSON views of one value agree.
            let namesSecret = byName && object.entries.contains { entry in
                guard entry.key == "field" || entry.key == "key", case .string(let name) = entry.value else { return false }
                return isSecretName(name)
            }
            var out: [(key: String, value: JSONValue)]?
            for (i, entry) in object.entries.enumerated() {
                let key = matcher.holds(entry.key) ? matcher.mask(entry.key) : nil
                let member: JSONValue?
                if byName && (isSecretName(entry.key) || (namesSecret && namedValueMembers.contains(entry.key))) {
                    member = carriesSecret(entry.value) ? .string("***") : nil
                } else if !byName && isSecretName(entry.key) {
                    member = nil
                } else {
                    member = changed(entry.value, matcher, byName: byName)
                }
                guard key != nil || member != nil else { continue }
                if out == nil { out = object.entries }
                out![i] = (key: key ?? entry.key, value: member ?? entry.value)
            }
            return out.map { .object(JSONObject($0)) }
        default:
            return nil
        }
    }

    /// Whether a value under a secret name is to be hidden: null and true/false carry no secret
    /// (`"session": true` says one is stored), nor do `***` and the marks for none of a table (`–`)
    /// or an explanation (`nil`).
    public static func carriesSecret(_ value: JSONValue) -> Bool {
        switch value {
        case .null, .bool, .string("***"), .string("–"), .string("nil"): return false
        // A change said with the mask in place (`*** → nil`, a replay's diff of the token).
        case .string("*** → nil"), .string("nil → ***"), .string("*** → ***"): return false
        default: return true
        }
    }

    /// A value shown under `name` (a key and its value in a line of text): `***` when the name is
    /// secret, by the rule the JSON views follow.
    public static func shown(_ value: String, namedBy name: String) -> String {
        isSecretName(name) && carriesSecret(.string(value)) ? "***" : value
    }

    /// The members of a row whose value another member names (`namesSecret` above).
    private static let namedValueMembers: Set<String> = ["value", "before", "after", "stored", "server"]

    /// The words a secret name is or ends in, compared with ASCII case and `-` `_` ignored: each is
    /// something that lets its holder in (a password, a key, a token, a session). A name only
    /// containing one elsewhere stays visible: `passport`, `tokenCount`, `sessionTimeout`, `passwordHint`.
    public static let secretWords: [String] = [
        "password", "passwd", "passphrase", "pwd", "pin", "otp", "token", "secret", "secretkey", "apikey",
        "accesskey", "privatekey", "signingkey", "authorization", "auth", "cookie", "session", "sessionid",
        "credential", "credentials",
    ]

    /// Words of `secretWords` that count only at a word boundary of the name (reversed, lowercased).
    private static let boundaryWords: Set<[UInt8]> = Set(["pin", "otp", "auth"].map { Array($0.utf8.reversed()) })

    /// The words reversed, lowercased, grouped by their last byte (a name's last letter picks the few
    /// to compare; most names are turned away by it).
    private static let wordsByLastByte: [[[UInt8]]] = {
        var out = [[[UInt8]]](repeating: [], count: 256)
        for word in secretWords {
            let reversed = Array(word.utf8.reversed())
            out[Int(reversed[0])].append(reversed)
        }
        return out
    }()

    /// Whether a name (JSON member, query parameter, form field, header, `NAME=value` word) names a
    /// secret: it is, or ends in, one of `secretWords`, ignoring ASCII case, `-` and `_`
    /// (`newPassword`, `refresh_token`, `X-Api-Key`, `client-secret`, `Set-Cookie`). Every key of
    /// every row passes here, so it reads the name backwards in place and allocates nothing.
    public static func isSecretName(_ name: String) -> Bool {
        if let found = name.utf8.withContiguousStorageIfAvailable({ isSecretName(bytes: $0) }) { return found }
        var copy = name
        return copy.withUTF8 { isSecretName(bytes: $0) }
    }

    public static func isSecretName(_ name: Substring) -> Bool {
        if let found = name.utf8.withContiguousStorageIfAvailable({ isSecretName(bytes: $0) }) { return found }
        var copy = name
        return copy.withUTF8 { isSecretName(bytes: $0) }
    }

    static func isSecretName(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = bytes.count
        // The last letter, past trailing separators.
        while end > 0, bytes[end - 1] == UInt8(ascii: "-") || bytes[end - 1] == UInt8(ascii: "_") { end -= 1 }
        guard end > 0 else { return false }
        for word in wordsByLastByte[Int(lower(bytes[end - 1]))] {
            var i = end
            var matched = 0
            while matched < word.count, i > 0 {
                i -= 1
                let b = bytes[i]
                if b == UInt8(ascii: "-") || b == UInt8(ascii: "_") { continue }
                guard lower(b) == word[matched] else { break }
                matched += 1
            }
            guard matched == word.count else { continue }
            // `xToken`, `x_token`, `x-token` and `xtoken` all end in `token`. The short words that
            // end ordinary ones (`spin`, `oauth`) count only as a word of their own: the whole name,
            // after a separator or at a case change (`userPin`, `X-Auth`).
            if !boundaryWords.contains(word) || i == 0 { return true }
            let first = bytes[i], before = bytes[i - 1]
            let separated = before == UInt8(ascii: "-") || before == UInt8(ascii: "_")
            let upper = { (b: UInt8) in b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") }
            if separated || (upper(first) && !upper(before)) { return true }
        }
        return false
    }

    @inline(__always)
    static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// A copy of a JSON value with every secret member's value replaced by `"***"`.
    public static func redact(_ value: JSONValue) -> JSONValue {
        changed(value, SecretMatcher.none) ?? value
    }

    /// A raw JSON body whose rows name a secret value in another member (`{"key": "password",
    /// "value": …}`, the rule of `redact`), written again with those values masked; any other text
    /// as it is. Parsed only when such a member name occurs in it.
    public static func scrubNamedRows(_ text: String) -> String {
        guard text.contains("\"field\"") || text.contains("\"key\""), let parsed = try? JSONParser.parse(text) else { return text }
        let masked = redact(parsed)
        return masked == parsed ? text : JSONWriter.string(masked)
    }

    /// Replaces the value of every secret-named member in raw text (`"password":"x"` →
    /// `"password":"***"`, `"pin": 1234` → `"pin": "***"`), by `Redaction.isSecretName`. One pass:
    /// each string followed by `:` is a member name.
    public static func scrubMembers(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var copied = 0
        for member in secretMembers(bytes) {
            if member.kind == .string {
                out.append(contentsOf: bytes[copied..<member.range.lowerBound])
                out.append(contentsOf: "***".utf8)
            } else {
                out.append(contentsOf: bytes[copied..<member.range.lowerBound])
                out.append(contentsOf: "\"***\"".utf8)
            }
            copied = member.range.upperBound
        }
        guard copied > 0 else { return text }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The token-shaped values under the secret-named members of raw JSON text (a token a server
    /// sends back, as `data.token`, `"auth": {"accessToken": …}` or `"Bearer …"`): masked wherever else
    /// that answer shows them (trace, HAR, error lines, `--raw`, and the answer itself before it is
    /// stored). Only a run of `carriedLength` characters or more of a token's alphabet, letters and
    /// digits both, that is not a date or time, counts (`tokenShaped`): a word or a time under a secret name
    /// (`"session": "已完成"`, `"lastSession": "2026-12-05T22:20:22+08:00"`) is hidden where it is, and is
    /// not cut out of every other value that happens to contain it. Read from the first 64 KB (where
    /// an answer carrying a token has it), each value once, at most 16: a body of a million such
    /// members costs what a small one does.
    public static func secretMemberValues(_ bytes: [UInt8]) -> [String] {
        let head = bytes.count > 65_536 ? Array(bytes.prefix(65_536)) : bytes
        var values: [String] = []
        func take(_ raw: ArraySlice<UInt8>) {
            guard values.count < 16, raw.count >= carriedLength else { return }
            // An escape in it (`\/`, `\u0041`): the value is what the JSON string decodes to.
            let value = raw.contains(UInt8(ascii: "\\"))
                ? (try? JSONParser.parse([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]))?.stringValue
                : String(decoding: raw, as: UTF8.self)
            for piece in (value ?? "").split(separator: " ") where tokenShaped(piece) && !values.contains(String(piece)) {
                values.append(String(piece))
            }
        }
        for member in secretMembers(head) where values.count < 16 {
            switch member.kind {
            case .string: take(head[member.range])
            case .number: continue
            // Every string value inside an object or array under a secret name (its keys are names).
            case .composite: for range in stringValues(head, in: member.range) { take(head[range]) }
            }
        }
        return values
    }

    /// Whether a piece of a secret member's value looks like a token: long enough, of a token's
    /// characters, and not a date or time (`2026-12-05`, `2026-12-05T22:20:22+08:00`), which a name such as
    /// `lastSession` may hold.
    static func tokenShaped(_ piece: Substring) -> Bool {
        let bytes = Array(piece.utf8)
        // A token's alphabet (base64, base64url, hex, a JWT's dots), letters and digits both: a URL
        // (`:`), a data URI (`,`), a number or an id of digits alone is none.
        let letter = { (b: UInt8) in (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        let digit = { (b: UInt8) in b >= 0x30 && b <= 0x39 }
        guard bytes.count >= carriedLength, bytes.allSatisfy({ letter($0) || digit($0) || "._~+/=-".utf8.contains($0) }),
              bytes.contains(where: letter), bytes.contains(where: digit) else { return false }
        let dated = bytes.count >= 10 && bytes[0..<4].allSatisfy(digit) && bytes[4] == UInt8(ascii: "-")
            && bytes[5..<7].allSatisfy(digit) && bytes[7] == UInt8(ascii: "-") && bytes[8..<10].allSatisfy(digit)
            && bytes[10...].allSatisfy { digit($0) || "T:.+-Z ".utf8.contains($0) }
        return !dated
    }

    /// The ranges of the string values (not member names) inside `range` of JSON text, between their quotes.
    /// Where the JSON string whose text starts at `start` ends (its closing quote), or `limit`.
    private static func stringEnd(_ bytes: [UInt8], from start: Int, limit: Int) -> Int {
        var j = start
        while j < limit, bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
        return min(j, limit)
    }

    private static func stringValues(_ bytes: [UInt8], in range: Range<Int>) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var i = range.lowerBound
        let quote = UInt8(ascii: "\"")
        while i < range.upperBound {
            guard bytes[i] == quote else { i += 1; continue }
            let end = stringEnd(bytes, from: i + 1, limit: range.upperBound)
            var k = end + 1
            while k < range.upperBound, isSpace(bytes[k]) { k += 1 }
            if k >= range.upperBound || bytes[k] != UInt8(ascii: ":") { found.append((i + 1)..<end) }
            i = end + 1
        }
        return found
    }

    /// The shortest value under a secret name taken as a token the answer may repeat elsewhere
    /// (`secretMemberValues`): a token is longer; a word or a PIN is not looked for elsewhere.
    public static let carriedLength = 16

    /// Where the value of each secret-named member is (inside the quotes for a string, the whole
    /// number otherwise), skipping values already `***`. One pass: each string followed by `:` is a
    /// member name.
    private static func secretMembers(_ bytes: [UInt8]) -> [SecretMember] {
        var found: [SecretMember] = []
        var i = 0
        let quote = UInt8(ascii: "\"")
        func stringEnd(from start: Int) -> Int { Self.stringEnd(bytes, from: start, limit: bytes.count) }
        while i < bytes.count {
            guard bytes[i] == quote else { i += 1; continue }
            let nameEnd = stringEnd(from: i + 1)
            var k = nameEnd + 1
            while k < bytes.count, isSpace(bytes[k]) { k += 1 }
            guard k < bytes.count, bytes[k] == UInt8(ascii: ":"), isSecretName(memberName: bytes[(i + 1)..<min(nameEnd, bytes.count)]) else {
                i = nameEnd + 1
                continue
            }
            k += 1
            while k < bytes.count, isSpace(bytes[k]) { k += 1 }
            if k < bytes.count, bytes[k] == quote {
                let valueEnd = stringEnd(from: k + 1)
                if !bytes[(k + 1)..<valueEnd].elementsEqual("***".utf8) { found.append(SecretMember(range: (k + 1)..<valueEnd, kind: .string)) }
                i = valueEnd + 1
            } else if k < bytes.count, bytes[k] == UInt8(ascii: "-") || (bytes[k] >= 0x30 && bytes[k] <= 0x39) {
                // A number: every digit, sign, point and exponent of it.
                var e = k
                while e < bytes.count, "+-.eE0123456789".utf8.contains(bytes[e]) { e += 1 }
                found.append(SecretMember(range: k..<e, kind: .number))
                i = e
            } else if k < bytes.count, bytes[k] == UInt8(ascii: "{") || bytes[k] == UInt8(ascii: "[") {
                // An object or array under a secret name is hidden whole, as the JSON views show it
                // (`"password": {"v": …}` → `"password": "***"`); one cut short runs to the text's end.
                var depth = 0, e = k
                while e < bytes.count {
                    let b = bytes[e]
                    if b == quote { e = stringEnd(from: e + 1) + 1; continue }
                    if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") { depth += 1 }
                    if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") { depth -= 1 }
                    e += 1
                    if depth == 0 { break }
                }
                e = min(e, bytes.count)
                found.append(SecretMember(range: k..<e, kind: .composite))
                i = e
            } else {
                i = k
            }
        }
        return found
    }

    /// A secret member's value in raw text: inside the quotes of a string, or the whole number,
    /// object or array.
    private struct SecretMember {
        enum Kind { case string, number, composite }
        let range: Range<Int>
        let kind: Kind
    }

    /// Whether a member name as written in JSON text names a secret: read as the string it
    /// decodes to when it holds an escape (`"pass\u0077ord"` is `password`).
    private static func isSecretName(memberName raw: ArraySlice<UInt8>) -> Bool {
        if raw.contains(UInt8(ascii: "\\")),
           let decoded = (try? JSONParser.parse([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]))?.stringValue {
            return isSecretName(decoded)
        }
        return isSecretName(String(decoding: raw, as: UTF8.self))
    }

    /// Where the value of a typed item starts when its name is a secret name: `NAME=value` (the name
    /// is all before the first `=`, so `/x?password=…` counts), or a header `Name:value` or a raw JSON
    /// field `name:=JSON` whose name is a header token (so `/api/x:y` and `10:30` are no names).
    public static func secretItemValueStart(_ word: String) -> String.Index? {
        if let eq = word.firstIndex(of: "="), eq != word.startIndex, isSecretName(word[..<eq]) { return word.index(after: eq) }
        guard let colon = word.firstIndex(of: ":"), colon != word.startIndex else { return nil }
        let name = word[..<colon]
        guard name.utf8.allSatisfy(isHeaderTokenByte), isSecretName(name) else { return nil }
        let next = word.index(after: colon)
        if next < word.endIndex, word[next] == "=" { return word.index(after: next) }
        return next
    }

    /// A byte of an HTTP header name (RFC 9110 `tchar`).
    private static func isHeaderTokenByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "!#$%&'*+-.^_`|~".utf8.contains(b)
    }

    /// A typed word as a command line is shown back (a watch heading, a compare title, `vars`): a
    /// secret-named item as `NAME=***` (`NAME:=***`, `Name:***`), a JSON word with its secret members masked.
    public static func maskWord(_ word: String) -> String {
        // A path or URL with its query typed in (`/x?a=1&password=…`): each secret-named pair's value.
        if let q = typedQuery(word) { return word[..<q.startIndex] + scrubPairs(q) }
        if let masked = maskedJSONWord(word) { return masked }
        if let start = secretItemValueStart(word) { return word[..<start] + "***" }
        // An item of another name whose value is such a path or JSON (`cb=/y?token=…`, `data:={…}`).
        if let start = itemValueStart(word) {
            let value = String(word[start...])
            if let q = typedQuery(value) { return word[..<start] + value[..<q.startIndex] + scrubPairs(q) }
            if let masked = maskedJSONWord(value) { return word[..<start] + masked }
        }
        return word
    }

    /// A JSON word with its secret members and its path or URL values' secret pairs masked; nil for
    /// a word that is not JSON.
    private static func maskedJSONWord(_ word: String) -> String? {
        guard word.hasPrefix("{") || word.hasPrefix("["), let value = try? JSONParser.parse(word) else { return nil }
        let masked = maskingTypedQueries(redact(value))
        return masked == value ? word : JSONWriter.string(masked)
    }

    /// Where the value of a typed item starts, whatever its name: `name=value` or `name:=JSON`, the
    /// name a header token (so a path, `/x=y`, or a time, `10:30`, is no item).
    public static func itemValueStart(_ word: String) -> String.Index? {
        guard let eq = word.firstIndex(of: "="), eq != word.startIndex else { return nil }
        var name = word[..<eq]
        if name.hasSuffix(":") { name = name.dropLast() }
        guard !name.isEmpty, name.utf8.allSatisfy(isHeaderTokenByte) else { return nil }
        return word.index(after: eq)
    }

    /// A JSON word's string values that are a path or URL with a query typed in (`{"u":"/x?token=…"}`),
    /// each secret-named pair's value masked as in a typed path.
    static func maskingTypedQueries(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let s):
            guard let q = typedQuery(s) else { return value }
            return .string(s[..<q.startIndex] + scrubPairs(q))
        case .array(let items): return .array(items.map(maskingTypedQueries))
        case .object(let o): return .object(JSONObject(o.entries.map { (key: $0.key, value: maskingTypedQueries($0.value)) }))
        default: return value
        }
    }

    /// The query of a typed path or URL (`/x?a=1`, `http://h/x?a=1`): what follows its `?`; nil for
    /// any other word, where a `?` is part of a value (`keyword=a?b`, `X-Api-Key:a?b`).
    public static func typedQuery(_ word: String) -> Substring? {
        guard word.hasPrefix("/") || startsWithScheme(word), let q = word.firstIndex(of: "?") else { return nil }
        return word[word.index(after: q)...]
    }

    /// `http://…`: a scheme (a letter, then letters, digits, `+`, `-`, `.`) and `://` at the start.
    private static func startsWithScheme(_ word: String) -> Bool {
        guard let colon = word.firstRange(of: "://")?.lowerBound, let first = word.first, first.isASCII, first.isLetter else { return false }
        return word[..<colon].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// Free text (a server message, the head of a body that is not JSON): the value of each
    /// secret-named JSON member (`scrubMembers`) and of each secret-named `name=value` pair masked
    /// (`password=x`, `a=1&refresh_token=y`, `X-Api-Key=z;`), the pair ending at a space, `&`, `;`,
    /// `,`, a quote or a bracket.
    public static func scrubText(_ text: String) -> String {
        let members = scrubMembers(text)
        guard members.utf8.contains(UInt8(ascii: "=")) else { return members }
        let bytes = Array(members.utf8)
        func isNameByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "%")
        }
        let stops = Set(" \t\r\n&;,\"'<>()[]{}".utf8)
        var out: [UInt8] = []
        var copied = 0
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "=") else { i += 1; continue }
            var start = i
            while start > 0, isNameByte(bytes[start - 1]) { start -= 1 }
            var end = i + 1
            while end < bytes.count, !stops.contains(bytes[end]) { end += 1 }
            let name = String(decoding: bytes[start..<i], as: UTF8.self)
            if start < i, end > i + 1, isSecretName(percentDecoded(Substring(name))),
               !bytes[(i + 1)..<end].elementsEqual("***".utf8) {
                out.append(contentsOf: bytes[copied...i])
                out.append(contentsOf: "***".utf8)
                copied = end
            }
            i = end
        }
        guard copied > 0 else { return members }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    /// `name=value&…` text (a query, a form body) with the value of each secret-named field
    /// replaced; a name is read percent-decoded (`X%2DApi%2DKey`).
    public static func scrubPairs(_ text: Substring) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "="), Redaction.isSecretName(percentDecoded(pair[..<eq])) else { return String(pair) }
            return pair[..<eq] + "=***"
        }.joined(separator: "&")
    }

    /// A URL as a message shows it: credentials (`user:pass@`) and the values of secret-named query
    /// pairs masked — a base URL or a proxy quoted back by an error line.
    public static func shownURL(_ url: String) -> String {
        var shown = url
        if let at = url.lastIndex(of: "@") {
            let start = url.firstRange(of: "://")?.upperBound ?? url.startIndex
            if start <= at { shown = String(url[..<start]) + "***" + String(url[at...]) }
        }
        return maskedQuery(shown)
    }

    /// A URL or path with the value of each secret-named pair of its query masked, and of its
    /// fragment too (`#access_token=…` is a secret where a page puts one there).
    public static func maskedQuery(_ url: String) -> String {
        let parts = QueryText.split(Substring(url))
        guard let query = parts.query else { return url }
        return parts.head + "?" + scrubPairs(query) + (parts.fragment.map { "#" + scrubPairs($0) } ?? "")
    }

    /// Whether a URL's query gives a value under a secret name (`/x?password=…`, `?X%2DApi%2DKey=…`).
    public static func queryCarriesSecret(_ url: String) -> Bool {
        guard let query = QueryText.split(Substring(url)).query else { return false }
        return QueryText.pairs(query).contains { pair in
            guard let value = pair.value, !value.isEmpty else { return false }
            return isSecretName(percentDecoded(pair.name))
        }
    }

    /// Form decoding: `%` and two hex digits is that byte, `+` a space; anything else stays as written.
    public static func percentDecoded(_ text: Substring) -> String {
        guard text.contains("%") || text.contains("+") else { return String(text) }
        return String(decoding: percentDecodedBytes(text, plusIsSpace: true), as: UTF8.self)
    }

    /// URL decoding (`+` kept), or nil when the bytes it gives are not UTF-8.
    public static func percentDecodedExactly(_ text: Substring) -> String? {
        String(validating: percentDecodedBytes(text, plusIsSpace: false), as: UTF8.self)
    }

    private static func percentDecodedBytes(_ text: Substring, plusIsSpace: Bool) -> [UInt8] {
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 0x30...0x39: return b - 0x30
            case 0x41...0x46: return b - 0x41 + 10
            case 0x61...0x66: return b - 0x61 + 10
            default: return nil
            }
        }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        return out
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// The first `limit` bytes of a body as text, secrets removed, for error messages.
    public static func excerpt(_ body: [UInt8], limit: Int = 200, secrets: [String]) -> String {
        // Masked before the cut, over a head with room for a secret that starts before the cut (in
        // any form the matcher knows: base64 is longer), so none is half shown at the end.
        let room = secrets.reduce(0) { max($0, $1.utf8.count) } * 2 + 16
        var head = body.count > limit + room ? Array(body.prefix(limit + room)) : body
        var masked = Array(redact(String(decoding: head, as: UTF8.self), secrets: secrets).utf8)
        // Each copy masked shortens the text: the head's end (perhaps inside a secret cut there, too
        // short to be found) must still lie past the cut, so a text that shrank is read further.
        while masked.count < limit + room, head.count < body.count {
            head = Array(body.prefix(min(body.count, head.count * 2)))
            masked = Array(redact(String(decoding: head, as: UTF8.self), secrets: secrets).utf8)
        }
        let cut = body.count > head.count || masked.count > limit
        if masked.count > limit {
            // Back to the start of a character: a split one is not shown.
            var end = limit
            while end > 0, masked[end] & 0xC0 == 0x80 { end -= 1 }
            masked.removeSubrange(end...)
        }
        var text = String(decoding: masked, as: UTF8.self)
        if cut { text = String(text.unicodeScalars.filter { $0 != "\u{FFFD}" }.map(Character.init)) + "…" }
        // One line, and every other control shown as the escape every other line shows (`TerminalText`).
        var line = ""
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar == "\t" { line.append(" ") } else { line.unicodeScalars.append(scalar) }
        }
        return TerminalText.sanitize(line)
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

extension Redaction {
    /// What a word typed where a phone or an account goes may be shown back as: a password typed in
    /// its place (`login PASSWORD`, `switch-account PASSWORD`) is not. One rule for the errors that
    /// name the word and every listing of the line.
    public enum TypedInPlace: Sendable, Equatable {
        /// A phone: shown when it is one mistyped, about 11 digits (and spaces, dashes, a plus); any
        /// other word, a short run of digits (a PIN) included, may be a password.
        case phone
        /// An account: an id, a list number, `ID:TYPE` or `-`.
        case account

        public func mayShow(_ word: String) -> Bool {
            switch self {
            case .phone:
                let digits = word.filter(\.isNumber).count
                return word.allSatisfy { $0.isASCII && ($0.isNumber || $0 == " " || $0 == "-" || $0 == "+") } && (9...14).contains(digits)
            case .account:
                if word == "-" { return true }
                let parts = word.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard let id = parts.first, !id.isEmpty, id.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
                return parts.count == 1 || parts[1].allSatisfy { $0.isASCII && $0.isLetter } && !parts[1].isEmpty
            }
        }
    }
}
