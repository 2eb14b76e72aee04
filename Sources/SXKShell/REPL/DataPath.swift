import SXKCore

/// A path into a command's JSON data, for `let`: `.list[0].orderId`, `.a.b`, `[2]` (or `.[2]`), `[-1]`
/// (counted from the end), `.list[].orderId` (that member of every element), `["odd key"]` (typed `'["odd key"]'`, so the quotes reach the path), or `.` for all.
/// Keys match exactly first, then tolerantly (`.userId` also finds `user_id`).
public struct DataPath: Sendable, Equatable, CustomStringConvertible {
    public enum Step: Sendable, Equatable {
        case key(String)
        case index(Int)
        /// `[]`: the rest of the path applied to every element of an array.
        case each
    }

    public let steps: [Step]
    public let text: String

    public var description: String { text }

    /// Whether a word is meant as a path (it starts with `.` or `[`); it may still be malformed.
    public static func looksLikePath(_ word: String) -> Bool {
        word.hasPrefix(".") || word.hasPrefix("[")
    }

    /// Parses a path; a malformed one is a usage error naming the position.
    public init(parsing text: String) throws {
        self.text = text
        if text == "." {
            steps = []
            return
        }
        let chars = Array(text.unicodeScalars)
        var steps: [Step] = []
        var i = 0
        func fail(_ why: String) -> UsageError {
            UsageError("bad path '\(text)': \(why) (paths look like .list[0].orderId, .a.b, [2] or .)")
        }
        guard let first = chars.first, first == "." || first == "[" else { throw fail("it must start with '.' or '['") }
        while i < chars.count {
            let c = chars[i]
            if c == ".", i + 1 < chars.count, chars[i + 1] == "[" {
                i += 1  // `.[0]`, as jq writes it
            } else if c == "." {
                i += 1
                var name = String.UnicodeScalarView()
                while i < chars.count, chars[i] != ".", chars[i] != "[" {
                    guard Self.isKeyScalar(chars[i]) else { throw fail("'\(chars[i])' cannot be part of a key — quote it as [\"…\"]") }
                    name.append(chars[i])
                    i += 1
                }
                if name.isEmpty { throw fail("a key must follow '.'") }
                steps.append(.key(String(name)))
            } else if c == "[" {
                i += 1
                guard i < chars.count else { throw fail("'[' is not closed") }
                if chars[i] == "]" {
                    steps.append(.each)
                    i += 1
                } else if chars[i] == "\"" {
                    i += 1
                    var key = String.UnicodeScalarView()
                    var closed = false
                    while i < chars.count {
                        if chars[i] == "\\", i + 1 < chars.count { key.append(chars[i + 1]); i += 2; continue }
                        if chars[i] == "\"" { closed = true; i += 1; break }
                        key.append(chars[i])
                        i += 1
                    }
                    guard closed, i < chars.count, chars[i] == "]" else { throw fail("a quoted key must end with \"]") }
                    i += 1
                    steps.append(.key(String(key)))
                } else {
                    var digits = ""
                    while i < chars.count, chars[i] != "]" {
                        digits.unicodeScalars.append(chars[i])
                        i += 1
                    }
                    guard i < chars.count else { throw fail("'[' is not closed") }
                    i += 1
                    guard let index = Int(digits) else {
                        // `let v = config ["minVersion"]`: the line's own quotes were taken by the tokenizer.
                        let key = !digits.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) ? ""
                            : "; a key goes in double quotes, typed inside single quotes: '[\"\(digits)\"]'"
                        throw fail("'[\(digits)]' is not an index (a whole number, negative from the end)" + key)
                    }
                    steps.append(.index(index))
                }
            } else {
                throw fail("expected '.' or '[' before '\(c)'")
            }
        }
        self.steps = steps
    }

    /// Letters (any script), digits, `_` and `-`.
    static func isKeyScalar(_ s: Unicode.Scalar) -> Bool {
        if s.value > 0x7F { return s.properties.isAlphabetic || s.properties.numericType != nil }
        switch s {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-": return true
        default: return false
        }
    }

    /// The value at this path.
    public func evaluate(_ value: JSONValue) throws -> JSONValue {
        try Self.walk(value, steps[...], at: "")
    }

    private static func walk(_ value: JSONValue, _ rest: ArraySlice<Step>, at location: String) throws -> JSONValue {
        guard let step = rest.first else { return value }
        let place = location.isEmpty ? "the data" : location
        switch step {
        case .key(let key):
            guard case .object(let object) = value else {
                throw DataPathError("\(place) is \(value.typePhrase), so it has no key '\(key)'")
            }
            let next = location + (isPlainKey(key) ? "." + key : "[\"" + key + "\"]")
            guard let member = object[key] ?? object.field(key) else {
                let keys = object.keys
                let hint = Suggestion.nearest(to: key, in: keys).map { " (did you mean '\($0)'?)" } ?? ""
                let listed = keys.isEmpty ? "it is empty" : "keys: " + keys.prefix(8).joined(separator: ", ") + (keys.count > 8 ? ", …" : "")
                throw DataPathError("no key '\(key)' in \(place)\(hint); \(listed)")
            }
            return try walk(member, rest.dropFirst(), at: next)
        case .index(let index):
            guard case .array(let items) = value else {
                throw DataPathError("\(place) is \(value.typePhrase), not an array, so it has no [\(index)]")
            }
            let actual = index < 0 ? items.count + index : index
            guard actual >= 0, actual < items.count else {
                throw DataPathError("[\(index)] is out of range: \(place) has \(items.count) item\(items.count == 1 ? "" : "s")")
            }
            return try walk(items[actual], rest.dropFirst(), at: location + "[\(index)]")
        case .each:
            guard case .array(let items) = value else {
                throw DataPathError("\(place) is \(value.typePhrase), not an array, so it has no []")
            }
            return .array(try items.enumerated().map { try walk($0.element, rest.dropFirst(), at: location + "[\($0.offset)]") })
        }
    }

    private static func isPlainKey(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy(isKeyScalar)
    }
}

/// The data has nothing at the path asked for (exit 1: the command ran, its data did not fit).
public struct DataPathError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
