/// A required field that is missing or of a type no tolerance rule can read.
/// `field` names the member (`data.token`); the API layer adds the endpoint.
public struct FieldError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
    public var description: String { "field '\(field)' \(reason)" }
}

/// Typed, tolerant reads of an object's members (camelCase or snake_case, numbers or numeric
/// strings, 0/1 booleans). Optional readers return nil for absent or unreadable values;
/// `require…` readers throw a `FieldError` naming the field.
extension JSONObject {
    /// The member as received under `camelName`, else under its snake_case spelling, with its key;
    /// unlike `field`, a null member is found (a cell shows it as empty, not as a derived text).
    public func member(_ camelName: String) -> (key: String, value: JSONValue)? {
        if let value = self[camelName] { return (camelName, value) }
        // Compared in place, not built: this runs for every cell of a long CSV stream.
        let snakeCount = JSONObject.snakeCaseLength(camelName)
        guard snakeCount != camelName.utf8.count else { return nil }
        for entry in entries.reversed() where entry.key.utf8.count == snakeCount && JSONObject.isSnakeCase(entry.key, of: camelName) {
            return entry
        }
        return nil
    }

    public func string(_ name: String) -> String? { field(name)?.stringValue }
    public func int(_ name: String) -> Int? { field(name)?.intValue }
    public func double(_ name: String) -> Double? { field(name)?.doubleValue }
    public func bool(_ name: String) -> Bool? { field(name)?.boolValue }
    public func array(_ name: String) -> [JSONValue]? { field(name)?.arrayValue }
    public func object(_ name: String) -> JSONObject? { field(name)?.objectValue }

    public func requireString(_ name: String) throws(FieldError) -> String {
        guard let value = field(name) else { throw FieldError(field: name, reason: "is missing") }
        guard let text = value.stringValue else { throw FieldError(field: name, reason: "is \(value.typePhrase), expected a string") }
        return text
    }

    public func requireInt(_ name: String) throws(FieldError) -> Int {
        guard let value = field(name) else { throw FieldError(field: name, reason: "is missing") }
        guard let number = value.intValue else {
            // A whole number too large for an Int is not "a string": say what it is.
            if let text = value.stringValue, let d = value.doubleValue, d == d.rounded() {
                throw FieldError(field: name, reason: "is \(text.count > 40 ? String(text.prefix(40)) + "…" : text), past the integers sxk reads")
            }
            throw FieldError(field: name, reason: "is \(value.typePhrase), expected an integer")
        }
        return number
    }

    /// A list member that may be absent or null (then empty); one present as anything else is a
    /// `FieldError`: read as empty, a list sent in another form (JSON text inside a string) would
    /// silently empty what it holds.
    public func arrayOrAbsent(_ name: String) throws(FieldError) -> [JSONValue] {
        guard let value = field(name) else { return [] }
        guard let items = value.arrayValue else { throw FieldError(field: name, reason: "is \(value.typePhrase), expected an array") }
        return items
    }

    public func requireArray(_ name: String) throws(FieldError) -> [JSONValue] {
        guard let value = field(name) else { throw FieldError(field: name, reason: "is missing") }
        guard let items = value.arrayValue else { throw FieldError(field: name, reason: "is \(value.typePhrase), expected an array") }
        return items
    }
}

extension JSONValue {
    /// The value as an object, or a `FieldError` naming what it was instead.
    public func requireObject(_ what: String) throws(FieldError) -> JSONObject {
        guard let object = objectValue else { throw FieldError(field: what, reason: "is \(typePhrase), expected an object") }
        return object
    }

    public func requireArray(_ what: String) throws(FieldError) -> [JSONValue] {
        guard let items = arrayValue else { throw FieldError(field: what, reason: "is \(typePhrase), expected an array") }
        return items
    }
}

extension Array where Element == JSONValue {
    /// Each element decoded; an element's error names its place in the list (`accounts[1].accountType`),
    /// not a member of the answer's top level.
    public func decodeEach<T>(_ name: String, _ decode: (JSONValue) throws(FieldError) -> T) throws(FieldError) -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        for index in indices {
            do { out.append(try decode(self[index])) } catch {
                throw FieldError(field: "\(name)[\(index)].\(error.field)", reason: error.reason)
            }
        }
        return out
    }
}
