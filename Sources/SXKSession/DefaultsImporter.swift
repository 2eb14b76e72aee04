import FoundationEssentials
import SXKCore
import SXKModels
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads a device's UserDefaults export (XML or binary plist, or JSON with the same keys) into a
/// profile, replacing what it held: known keys are normalised to sxk's types (JSON Data values such
/// as the permission lists decoded), the token goes to the token file only if the export has one.
public struct DefaultsImporter: Sendable {
    /// What an import did.
    public struct Report: Sendable, Equatable {
        /// `xml plist`, `binary plist` or `json`.
        public var format: String
        public var importedKeys: [String]
        /// Keys the app's AppStore does not define (system keys, other SDKs); not stored. Shown to the
        /// user, so already passed through `TerminalText.sanitize` (an export is outside text).
        public var unknownKeys: [String]
        /// Keys in an account's scope that sxk does not model: kept.
        public var unmodelledKeys: [String] = []
        /// Known keys whose value could not be read, with the reason; not stored.
        public var rejected: [Rejected]
        public var tokenImported: Bool
        /// Time keys given as text (`yyyy-MM-dd HH:mm:ss`, no zone): read as Asia/Shanghai wall time,
        /// the backend's zone, and stored as the instant that names.
        public var readAsShanghaiTime: [String] = []
    }

    public struct Rejected: Sendable, Equatable {
        public var key: String
        public var reason: String
    }

    public static let maxBytes = 16 << 20
    private static let maxDepth = 32
    /// Values a plist may expand to (a device export holds a few thousand); shared references in a
    /// binary plist count each time, as decoding copies them.
    public static let maxValues = 200_000

    public init() {}

    /// An export read and normalised, not yet written anywhere.
    public struct Prepared: Sendable {
        public var report: Report
        var keys: JSONObject
        var token: String?
        var path: String
    }

    /// Reads `path` and replaces the state in `store` (and its token file) with the export's.
    public func importFile(_ path: String, into store: AppStore) throws(SessionError) -> Report {
        try write(try read(path), into: store)
    }

    /// Reads and normalises the export at `path`; nothing is written, so a file that cannot be used
    /// leaves no trace (not even the profile's folder, made only for the write).
    public func read(_ path: String) throws(SessionError) -> Prepared {
        let bytes = try DefaultsImporter.readInput(path)
        let (format, entries) = try DefaultsImporter.parse(bytes, path: path)
        var report = Report(format: format, importedKeys: [], unknownKeys: [], rejected: [], tokenImported: false)
        // The kept keys in the export's order, found by name in one step: an export of 200,000 keys
        // is read in linear time (a linear search per key made it quadratic: hours for a hostile file).
        var object: [(key: String, value: JSONValue)] = []
        var position: [String: Int] = [:]
        func put(_ key: String, _ value: JSONValue) {
            if let i = position[key] { object[i].value = value } else { position[key] = object.count; object.append((key, value)) }
        }
        var token: String?
        for (key, raw) in entries {
            if key == StoreKey.token {
                // The app opens its main tab with any token that is not empty (seed 000 §1); one sxk
                // cannot keep or send would make every view answer for a device without one.
                if raw == .null || raw == .string("") { continue }
                guard case .string(let text) = raw else {
                    throw .badInput(path: path, reason: "\(key) holds \(raw.typePhrase), not a token: the app keeps its token as text")
                }
                guard TokenStore.isWellFormed(text) else {
                    throw .badInput(path: path, reason: "\(key) holds a token sxk cannot keep or send (a header value: printable ASCII without spaces, at most \(TokenStore.maxLength) bytes); "
                        + "the app would open its main tab with it, so nothing is imported: fix the value, or remove the key to inspect the device as logged out")
                }
                token = text
                report.importedKeys.append(key)
                continue
            }
            // An imported session is validated at its first use, whatever the export says.
            if key == StoreKey.sessionValidatedAt {
                report.rejected.append(Rejected(key: key, reason: "not imported: an imported session is validated at first use"))
                continue
            }
            // sxk's own bookkeeping is never taken from a device.
            if StoreKey.kind(of: key) == .sxk {
                report.rejected.append(Rejected(key: TerminalText.sanitize(key), reason: "not imported: sxk's own key, not the app's"))
                continue
            }
            guard let type = StoreKey.valueType(of: key) else {
                if case .scopedUnmodelled = StoreKey.kind(of: key) {
                    // In an account's scope, so the app's (seed 000 §6.1 names the queue-calling settings
                    // without their keys): kept as the device had it, shown as not modelled.
                    put(key, raw)
                    report.importedKeys.append(key)
                    report.unmodelledKeys.append(TerminalText.sanitize(key))
                } else {
                    report.unknownKeys.append(TerminalText.sanitize(key))
                }
                continue
            }
            switch DefaultsImporter.normalize(raw, as: type) {
            case .success(let value):
                put(key, value)
                report.importedKeys.append(key)
                // A device stores a Date, never text: a zone had to be chosen for this one, and the report says which.
                // A text time without a zone is read as Shanghai time and named; one that names its zone is not a guess.
                if type == .time, raw.doubleValue == nil, raw.stringValue.flatMap(WireDate.parseZonedISO8601) == nil { report.readAsShanghaiTime.append(key) }
            case .failure(let problem):
                report.rejected.append(Rejected(key: key, reason: TerminalText.sanitize(problem.reason)))
            }
        }
        // The token lives in the token file only: a key that holds it too (a copy the app's settings
        // or another SDK kept) is left out, or defaults.json would carry the session.
        if let token, token.utf8.count >= 8 {
            // Its name as well as its value: a key named after the token would put it in the file too.
            let holding = Set(object.filter { DefaultsImporter.holds(token, in: $0.value) || DefaultsImporter.holds(token, in: .string($0.key)) }.map(\.key))
            if !holding.isEmpty {
                object.removeAll { holding.contains($0.key) }
                report.importedKeys.removeAll { holding.contains($0) }
                let shown = Set(holding.map(TerminalText.sanitize))
                report.unmodelledKeys.removeAll { shown.contains($0) }
                for key in holding.sorted() {
                    report.rejected.append(Rejected(key: TerminalText.sanitize(key), reason: "not imported: holds the session token, which is kept in the token file only"))
                }
            }
        }
        // Non-scoped keys first, in seed order; the rest as the export listed them.
        let kept = DefaultsStore.lastValues(JSONObject(object))
        var inOrder: [(key: String, value: JSONValue)] = []
        var placed = Set<String>()
        for key in StoreKey.nonScoped { if let v = kept[key], placed.insert(key).inserted { inOrder.append((key, v)) } }
        for (key, value) in object where placed.insert(key).inserted { inOrder.append((key, value)) }
        let ordered = JSONObject(inOrder)
        report.tokenImported = token != nil
        return Prepared(report: report, keys: ordered, token: token, path: path)
    }

    /// Replaces the state in `store` (and its token file) with a prepared export's.
    public func write(_ prepared: Prepared, into store: AppStore) throws(SessionError) -> Report {
        // The keys and the token are one change: a Ctrl-C lets it finish (`StateWrites`).
        try StateWrites.together { () throws(SessionError) -> Report in try writeBoth(prepared, into: store) }
    }

    private func writeBoth(_ prepared: Prepared, into store: AppStore) throws(SessionError) -> Report {
        var ordered = prepared.keys
        let token = prepared.token, path = prepared.path
        // The mark of a device snapshot: commands inspect this profile on a copy.
        ordered[StoreKey.importedFrom] = .string(TerminalText.sanitize(path))
        ordered[StoreKey.importedAt] = .double((store.wallClock.now().timeIntervalSince1970 * 1000).rounded() / 1000)
        // The keys first (the larger write, the one likely to fail), then the token; a token write
        // that fails puts the keys back, so the token on disk never meets another account's keys.
        try store.defaults.load()
        let before = JSONObject(store.defaults.entries)
        store.defaults.replaceAll(with: ordered)
        do {
            try store.defaults.save()
        } catch {
            store.defaults.replaceAll(with: before)
            throw error
        }
        do {
            if let token { try store.tokens.write(token) } else { try store.tokens.clear() }
        } catch {
            store.defaults.replaceAll(with: before)
            try? store.defaults.save()
            throw error
        }
        return prepared.report
    }

    /// Whether a text of `value` (at any depth) holds `token` in a form output masks it in (as is,
    /// another case, base64, a 16-character run): the token copied, not an id that happens to share
    /// a few of its digits.
    static func holds(_ token: String, in value: JSONValue) -> Bool {
        holds(SecretMatcher.shared([token]), in: value)
    }

    private static func holds(_ matcher: SecretMatcher, in value: JSONValue) -> Bool {
        switch value {
        case .string(let text): return matcher.holds(text)
        case .array(let items): return items.contains { holds(matcher, in: $0) }
        case .object(let object): return object.entries.contains { holds(matcher, in: $0.value) }
        default: return false
        }
    }

    // MARK: Reading

    static func readInput(_ path: String) throws(SessionError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .badInput(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw .badInput(path: path, reason: "not a regular file")
        }
        guard Int(st.st_size) <= maxBytes else { throw .badInput(path: path, reason: "larger than 16 MB") }
        switch FileBytes.readAll(fd, sizeHint: Int(st.st_size), limit: maxBytes) {
        case .bytes(let bytes):
            guard !bytes.isEmpty else { throw .badInput(path: path, reason: "the file is empty") }
            return bytes
        case .tooLarge:
            throw .badInput(path: path, reason: "larger than 16 MB")
        case .failed(let code):
            throw .badInput(path: path, reason: "cannot be read (\(String(cString: strerror(code))))")
        }
    }

    /// Decodes the export into key/value pairs; plist dictionaries come back sorted by key.
    static func parse(_ bytes: [UInt8], path: String) throws(SessionError) -> (String, [(String, JSONValue)]) {
        // Text in UTF-16 (a plist or JSON saved so by an editor) is named as such, not as a byte sxk cannot read.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let order = bytes[0] == 0xFF ? "FF FE" : "FE FF"
            throw .badInput(path: path, reason: "the file is UTF-16 text (it starts with the byte order mark \(order)); sxk reads a plist or JSON in UTF-8: convert it first (plutil -convert xml1, or iconv -f UTF-16 -t UTF-8)")
        }
        let start = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        guard let first = start.first else { throw .badInput(path: path, reason: "the file is empty") }
        if bytes.starts(with: Array("bplist".utf8)) || first == UInt8(ascii: "<") {
            let xml = first == UInt8(ascii: "<")
            let format = xml ? "xml plist" : "binary plist"
            let limits = PropertyListLimits(values: maxValues, bytes: maxBytes, depth: maxDepth)
            let plist: PropertyListValue
            do {
                plist = xml ? try PropertyListReader.xml(bytes, limits: limits) : try PropertyListReader.binary(bytes, limits: limits)
            } catch {
                throw .badInput(path: path, reason: reason(error, format: format))
            }
            guard case .dictionary(let dict) = plist else {
                throw .badInput(path: path, reason: "the \(format) does not hold a dictionary at the top")
            }
            var entries: [(String, JSONValue)] = []
            for entry in dict.sorted(by: { $0.key < $1.key }) {
                guard let json = json(fromPlist: entry.value, depth: 0) else {
                    throw .badInput(path: path, reason: "value of '\(TerminalText.sanitize(entry.key))' is not a property-list type sxk can read or nests too deep")
                }
                entries.append((entry.key, json))
            }
            return (format, entries)
        }
        let value: JSONValue
        do {
            // Past the byte-order mark a Windows editor puts first, as for a plist.
            value = try JSONParser.parse(Array(start), maxDepth: maxDepth)
        } catch {
            throw .badInput(path: path, reason: "neither a plist nor valid JSON (\(error.description))")
        }
        guard let object = value.objectValue else {
            throw .badInput(path: path, reason: "the JSON holds \(value.typePhrase) at the top, expected an object")
        }
        // A device holds each key once; a hand-edited export with a key twice has no one reading.
        var seen = Set<String>()
        for entry in object.entries where !seen.insert(entry.key).inserted {
            throw .badInput(path: path, reason: "key '\(TerminalText.sanitize(entry.key))' appears more than once in the JSON (a device holds each key once)")
        }
        return ("json", object.entries.map { ($0.key, $0.value) })
    }

    /// Why a plist cannot be read, as the user sees it. The limits are met while reading (a binary
    /// plist's shared references are measured before anything is decoded), so a file that would
    /// expand past them ends here, not in memory.
    static func reason(_ error: PropertyListError, format: String) -> String {
        let binary = format == "binary plist"
        let why = switch error {
        case .malformed(let why):
            "not a valid \(format) (\(why))"
        case .unsupported(let why):
            "the \(format) uses what sxk does not read (\(why))"
        case .tooManyValues(let limit):
            binary ? "the binary plist expands to more than \(limit) values (the limit; each shared reference counts)"
                : "the \(format) holds more than \(limit) values (the limit)"
        case .tooManyBytes(let limit):
            "the \(format) \(binary ? "expands to" : "holds") more than \(limit >> 20) MB of text and data (the limit)"
        case .tooDeep(let limit):
            "the \(format) nests deeper than \(limit) levels (the limit)"
        case .repeatedKey(let key):
            "key '\(key)' appears more than once in the \(format) (a device holds each key once)"
        }
        // A repeated key is quoted from the file: sanitized, as every reason is.
        return TerminalText.sanitize(why)
    }

    /// A property-list value as JSON: Data that holds JSON (the app's encoded lists) is decoded,
    /// other Data becomes text or base64, dates become epoch seconds, integers keep their exact digits.
    static func json(fromPlist value: PropertyListValue, depth: Int) -> JSONValue? {
        guard depth < maxDepth else { return nil }
        switch value {
        case .bool(let b): return .bool(b)
        case .integer(let n): return .number(String(n))
        case .unsignedInteger(let n): return .number(String(n))
        case .real(let d): return .double(d)
        case .date(let seconds): return .double(seconds)
        case .data(let bytes): return decodeData(bytes)
        case .string(let s): return .string(s)
        case .array(let items):
            var out: [JSONValue] = []
            for item in items {
                guard let v = json(fromPlist: item, depth: depth + 1) else { return nil }
                out.append(v)
            }
            return .array(out)
        case .dictionary(let entries):
            var out = JSONObject()
            for entry in entries.sorted(by: { $0.key < $1.key }) {
                guard let v = json(fromPlist: entry.value, depth: depth + 1) else { return nil }
                out[entry.key] = v
            }
            return .object(out)
        }
    }

    static func decodeData(_ bytes: [UInt8]) -> JSONValue {
        if let parsed = try? JSONParser.parse(bytes, maxDepth: maxDepth) { return parsed }
        if let text = String(validating: bytes, as: UTF8.self) { return .string(text) }
        return .string(Data(bytes).base64EncodedString())
    }

    // MARK: Normalising

    /// A known key's value in sxk's stored form, or why it cannot be read.
    static func normalize(_ raw: JSONValue, as type: StoreKey.ValueType) -> Result<JSONValue, SecureFile.CorruptReason> {
        func bad(_ expected: String) -> Result<JSONValue, SecureFile.CorruptReason> {
            .failure(.init("expected \(expected), found \(raw.typePhrase)"))
        }
        switch type {
        case .string:
            // A boolean is no name or code: what the app would read of it is not known (iOS reads a
            // stored number as its digits, and a boolean is stored as a number), so it is refused, named.
            if case .bool = raw { return bad("a string") }
            return raw.stringValue.map { .success(.string($0)) } ?? bad("a string")
        case .int:
            // A device stores an id or a count as an integer, never as a boolean: `true` is not user 1.
            if case .bool = raw { return bad("an integer") }
            if case .number(let text) = raw, raw.intValue == nil {
                let digits = text.drop { $0 == "-" }.allSatisfy { ("0"..."9").contains($0) }
                let why = digits ? "past the 64-bit range a device stores" : "a device writes an integer as plain digits"
                return .failure(.init("expected an integer, found \(TerminalText.sanitize(String(text.prefix(40)))) (\(why))"))
            }
            return raw.intValue.map { .success(.int($0)) } ?? bad("an integer")
        case .bool:
            return raw.boolValue.map { .success(.bool($0)) } ?? bad("a boolean")
        case .scalar:
            if case .number = raw { return .success(raw) }
            return raw.stringValue.map { .success(.string($0)) } ?? bad("a number or string")
        case .time:
            if let seconds = raw.doubleValue {
                // A time no calendar shows (not finite, past the year 9999) is refused here, not printed later.
                guard LocalZone.seconds(Date(timeIntervalSince1970: seconds)) != nil else {
                    // Epoch milliseconds are the usual mistake: said, not guessed (a device stores seconds).
                    let millis = LocalZone.seconds(Date(timeIntervalSince1970: seconds / 1000)) != nil && abs(seconds) >= 1e11
                    return .failure(.init("expected a time within the years 1–9999 in epoch seconds, found \(raw.typePhrase) \(TerminalText.sanitize(String((raw.stringValue ?? "\(seconds)").prefix(24))))"
                                          + (millis ? " (a count of milliseconds? a device stores seconds)" : "")))
                }
                return .success(.double(seconds))
            }
            if let text = raw.stringValue, let date = WireDate.parseTimestamp(text) ?? WireDate.parseZonedISO8601(text) {
                return .success(.double(date.timeIntervalSince1970))
            }
            return bad("a time (epoch seconds, yyyy-MM-dd HH:mm:ss, or ISO 8601 with its zone)")
        case .stringArray, .rolePermissions, .permissionItems, .scenicList:
            var value = raw
            // JSON exports may carry the app's JSON Data as a JSON string or as base64.
            if case .string(let text) = raw {
                if let parsed = try? JSONParser.parse(text, maxDepth: maxDepth) {
                    value = parsed
                } else if let data = Data(base64Encoded: text), let parsed = try? JSONParser.parse([UInt8](data), maxDepth: maxDepth) {
                    value = parsed
                }
            }
            guard let items = value.arrayValue else { return bad("an array") }
            do {
                switch type {
                case .rolePermissions: return .success(.array(try items.map { v throws(FieldError) in try RolePermission(json: v).json }))
                case .permissionItems: return .success(.array(try items.map { v throws(FieldError) in try PermissionItem(json: v).json }))
                case .scenicList: return .success(.array(try items.map { v throws(FieldError) in try ScenicRef(json: v).json }))
                default:
                    let strings = items.compactMap(\.stringValue)
                    guard strings.count == items.count else { return bad("an array of strings") }
                    return .success(.array(strings.map { .string($0) }))
                }
            } catch {
                return .failure(.init("list entry unreadable: \(error.description)"))
            }
        }
    }
}
