/// A JSON document exactly as received: object keys keep their order and numbers keep their
/// literal text, so `--json` / `--raw` can show a payload without losing or reformatting fields
/// the typed models ignore.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's literal text as it appeared (`101`, `12.50`, `1e3`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func int(_ value: Int) -> JSONValue { .number(String(value)) }
    public static func double(_ value: Double) -> JSONValue { .number(JSONWriter.format(value)) }
    /// Amounts and other decimals written with a fixed number of fraction digits.
    public static func decimal(_ value: Double, digits: Int) -> JSONValue {
        .number(JSONWriter.format(value, digits: digits))
    }
}

/// An ordered JSON object. Lookups are linear, which beats hashing for the small objects
/// an API returns and keeps the original key order.
public struct JSONObject: Sendable, Equatable {
    public var entries: [(key: String, value: JSONValue)]

    public init(_ entries: [(key: String, value: JSONValue)] = []) { self.entries = entries }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public var keys: [String] { entries.map(\.key) }
    public var isEmpty: Bool { entries.isEmpty }

    /// Exact-key lookup (the last duplicate wins, as in most JSON readers).
    public subscript(key: String) -> JSONValue? {
        get {
            for entry in entries.reversed() where entry.key == key { return entry.value }
            return nil
        }
        set {
            if let index = entries.lastIndex(where: { $0.key == key }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    /// Tolerant lookup: `field("userId")` also finds `user_id` (a backend may answer in snake_case). Null counts as absent.
    public func field(_ camelName: String) -> JSONValue? {
        // One pass, no allocation: this runs for every field of every row of a 100,000-row walk.
        // snake_case adds one underscore per inner capital, so only a key of exactly that length can
        // be one; that length is worked out once, at the first longer key.
        // By index and `case .null` (not `!=`): no copy of each entry, no call to JSONValue's `==`.
        // From the end: of duplicate keys the last wins, as in the subscript, `member` and jq.
        let count = camelName.utf8.count
        var snakeCount = -1
        var snakeMatch: JSONValue?
        for i in entries.indices.reversed() {
            let keyCount = entries[i].key.utf8.count
            if keyCount == count {
                guard entries[i].key == camelName else { continue }
                if case .null = entries[i].value { continue }
                return entries[i].value
            } else if snakeMatch == nil, keyCount > count {
                if snakeCount < 0 { snakeCount = Self.snakeCaseLength(camelName) }
                guard keyCount == snakeCount, Self.isSnakeCase(entries[i].key, of: camelName) else { continue }
                if case .null = entries[i].value { continue }
                snakeMatch = entries[i].value
            }
        }
        return snakeMatch
    }

    /// The length of `snakeCase(camelName)` in UTF-8 bytes: one underscore per inner capital.
    static func snakeCaseLength(_ camelName: String) -> Int {
        var name = camelName
        return name.withUTF8 { bytes in
            var n = bytes.count
            for byte in bytes.dropFirst() where byte >= 0x41 && byte <= 0x5A { n += 1 }
            return n
        }
    }

    /// Whether `key` is `snakeCase(camelName)`, compared byte by byte without building it.
    static func isSnakeCase(_ key: String, of camelName: String) -> Bool {
        var keyBytes = key.utf8.makeIterator()
        var first = true
        for byte in camelName.utf8 {
            if byte >= 0x41 && byte <= 0x5A {
                if !first && keyBytes.next() != 0x5F { return false }
                if keyBytes.next() != byte + 0x20 { return false }
            } else if keyBytes.next() != byte {
                return false
            }
            first = false
        }
        return keyBytes.next() == nil
    }

    /// `user_id` → `userId`, `create_time` → `createTime`: the name itself when it has no inner
    /// underscore (ASCII lowercase letters and digits otherwise, as wire names are).
    public static func camelCase(_ name: String) -> String {
        let parts = name.split(separator: "_", omittingEmptySubsequences: true)
        guard parts.count > 1, name.utf8.allSatisfy({ $0 == 0x5F || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }) else { return name }
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// `userId` → `user_id`, `pageSize` → `page_size`. ASCII only (wire names are), and the name
    /// itself when it has no capital, since this runs for every absent optional field of every row.
    public static func snakeCase(_ name: String) -> String {
        var out: [UInt8] = []
        var changed = false
        for byte in name.utf8 {
            if byte >= 0x41 && byte <= 0x5A {
                if !out.isEmpty { out.append(0x5F) }
                out.append(byte + 0x20)
                changed = true
            } else {
                out.append(byte)
            }
        }
        return changed ? String(decoding: out, as: UTF8.self) : name
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.entries = elements.map { (key: $0.0, value: $0.1) }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Navigation and tolerant scalar reads

extension JSONValue {
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }

    /// Object member by tolerant name, nil for non-objects.
    public subscript(field name: String) -> JSONValue? { objectValue?.field(name) }

    /// A string; numbers and booleans are rendered as their text (servers mix them).
    public var stringValue: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }

    /// An integer from a number or a numeric string (`101` / `"101"` / `"101.0"`).
    public var intValue: Int? {
        let text: String
        switch self {
        case .number(let n): text = n
        case .string(let s): text = s.trimmingASCIIWhitespace()
        default: return nil
        }
        if let i = Int(text) { return i }
        if let d = Self.decimal(text), d == d.rounded(), abs(d) < 9.0e15 { return Int(d) }
        return nil
    }

    /// A double from a number or a numeric string (`12.5`, `"12.50"`, `"1e3"`). Only decimal
    /// numbers count: not hex (`"0x10"`), `"nan"`, `"inf"` (which Swift's `Double(String)` reads),
    /// nor a value past a double's range (`1e400`).
    public var doubleValue: Double? {
        switch self {
        case .number(let n): return Self.decimal(n)
        case .string(let s): return Self.decimal(s.trimmingASCIIWhitespace())
        default: return nil
        }
    }

    /// `text` as a finite double when it is a decimal number: an optional sign, digits with an
    /// optional fraction (at least one digit in all), an optional exponent.
    public static func decimal(_ text: String) -> Double? {
        var digits = 0, index = 0
        var sawPoint = false, sawExponent = false, exponentDigits = 0
        for byte in text.utf8 {
            defer { index += 1 }
            switch byte {
            case 0x30...0x39:
                if sawExponent { exponentDigits += 1 } else { digits += 1 }
            case 0x2B, 0x2D:  // + -
                guard index == 0 || (sawExponent && exponentDigits == 0 && isExponentMark(text.utf8, before: index)) else { return nil }
            case 0x2E:  // .
                guard !sawPoint, !sawExponent else { return nil }
                sawPoint = true
            case 0x45, 0x65:  // E e
                guard digits > 0, !sawExponent else { return nil }
                sawExponent = true
            default:
                return nil
            }
        }
        guard digits > 0, !sawExponent || exponentDigits > 0, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    private static func isExponentMark(_ bytes: String.UTF8View, before index: Int) -> Bool {
        let previous = bytes[bytes.index(bytes.startIndex, offsetBy: index - 1)]
        return previous == 0x45 || previous == 0x65
    }

    /// A boolean from `true/false`, `0/1` or `"0"/"1"` (also `"true"/"false"`).
    public var boolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .number(let n): return Self.decimal(n).map { $0 != 0 }
        case .string(let s):
            switch s.trimmingASCIIWhitespace().lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no", "": return false
            // A number in a string reads as that number does (`"2"` as `2`, `"1.0"` as `1.0`).
            case let other: return Self.decimal(other).map { $0 != 0 }
            }
        default: return nil
        }
    }

    /// The type with its article ("an array", "a string"), for error messages.
    public var typePhrase: String {
        switch self {
        case .null: return "null"
        case .array, .object: return "an \(typeName)"
        default: return "a \(typeName)"
        }
    }

    /// A short name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\n" || first == "\r" {
            scalars.removeFirst()
        }
        while let last = scalars.last, last == " " || last == "\t" || last == "\n" || last == "\r" {
            scalars.removeLast()
        }
        return String(scalars)
    }
}
