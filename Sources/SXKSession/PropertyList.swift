import SXKCore

/// Apple property lists read from bytes with the standard library alone: the binary format
/// (`bplist00`) and the XML one. The bytes come from a user's device and may be hostile, so every
/// offset, length and reference is checked before it is used, the nesting depth is bounded by the
/// caller, and nothing recurses deeper than that bound (the XML reader keeps its own stack).

/// A decoded value. An integer is `.integer` whenever it fits Int64 and `.unsignedInteger` only above
/// Int64.max, so each number has one form and `==` compares values.
enum PropertyListValue: Equatable, Sendable {
    case bool(Bool)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case real(Double)
    /// Seconds since 1970-01-01 00:00 UTC.
    case date(Double)
    case string(String)
    case data([UInt8])
    case array([PropertyListValue])
    /// One entry per key, in the order the keys first appear; a key given twice in a nested dictionary
    /// keeps its last value (as CoreFoundation does), in the place of its first; in the top one it is
    /// `PropertyListError.repeatedKey` (the defaults a device holds have each key once). Keys are the
    /// same when they are equal as Swift strings, canonically equivalent spellings (`é` and `e` +
    /// U+0301) included.
    case dictionary([PropertyListEntry])
}

struct PropertyListEntry: Equatable, Sendable {
    var key: String
    var value: PropertyListValue
}

/// What one plist may hold. Values and bytes are counted as decoded: a binary plist's shared
/// reference counts each time it is used, since decoding copies it.
struct PropertyListLimits: Sendable {
    /// Values (numbers, strings, containers, dictionary keys…).
    var values: Int
    /// Bytes of string and data payload.
    var bytes: Int
    /// The deepest level a value may sit at; the top value is at 0.
    var depth: Int
}

/// Why bytes are not read. Reasons quote nothing from the file (it is outside text): XML ones start
/// with `line N: ` and name elements only when they are plist elements.
enum PropertyListError: Error, Equatable {
    /// Not a well-formed plist.
    case malformed(String)
    /// Well-formed, but uses what this reader does not read (a UID, a set, a non-UTF-8 encoding).
    case unsupported(String)
    case tooManyValues(limit: Int)
    case tooManyBytes(limit: Int)
    case tooDeep(limit: Int)
    /// A key given twice in the top dictionary.
    case repeatedKey(String)
}

enum PropertyListReader {
    /// Decodes a `bplist00` file.
    static func binary(_ bytes: [UInt8], limits: PropertyListLimits) throws(PropertyListError) -> PropertyListValue {
        let table = try BinaryPlistTable(bytes)
        // A few hundred bytes of shared references can stand for billions of values: measured on the
        // object table first (cycles included), so decoding never starts on such a file.
        try BinaryPlistBounds.check(table, limits: limits)
        return try BinaryPlistDecoder(table: table, depthLimit: limits.depth).value(table.top, depth: 0)
    }

    /// Decodes an XML plist in UTF-8.
    static func xml(_ bytes: [UInt8], limits: PropertyListLimits) throws(PropertyListError) -> PropertyListValue {
        var reader = XMLPlistReader(bytes: bytes, limits: limits)
        return try reader.document()
    }
}

/// Builds a dictionary's entries, keeping one per key.
private struct DictionaryBuilder {
    var entries: [PropertyListEntry] = []
    /// The first key given twice.
    private(set) var repeated: String?
    private var slots: [String: Int] = [:]

    mutating func set(_ key: String, _ value: PropertyListValue) {
        if let slot = slots[key] {
            entries[slot].value = value
            if repeated == nil { repeated = key }
        } else {
            slots[key] = entries.count
            entries.append(PropertyListEntry(key: key, value: value))
        }
    }
}

// MARK: Binary

/// The frame of a binary plist: the 32-byte trailer at its end and the offset table it points at.
/// The bounds check and the decoder both read objects through `object(_:)`, so each offset,
/// length and reference is checked in this one place. Offsets are read when an object is, not
/// copied out first: a 16 MB table of one-byte offsets would take 128 MB as `[Int]`.
struct BinaryPlistTable {
    /// An object's header, its extent already checked to lie within the object area.
    enum Object {
        case bool(Bool)
        /// `size` big-endian bytes at `at`: 1, 2 or 4 (unsigned), 8 (signed) or 16.
        case integer(at: Int, size: Int)
        /// A big-endian Float32 (`size` 4) or Float64 (8).
        case real(at: Int, size: Int)
        /// A big-endian Float64 of seconds since 2001-01-01 UTC.
        case date(at: Int)
        case data(Range<Int>)
        case ascii(Range<Int>)
        /// UTF-16BE: two bytes per code unit.
        case utf16(Range<Int>)
        /// `count` references from byte `refs` on.
        case array(refs: Int, count: Int)
        /// `count` key references from byte `refs` on, then `count` value references.
        case dictionary(refs: Int, count: Int)
    }

    let bytes: [UInt8]
    /// Objects in the offset table.
    let count: Int
    let top: Int
    let refSize: Int
    private let offsetSize: Int
    /// Where the offset table starts: no object reaches past it.
    private let objectsEnd: Int

    init(_ bytes: [UInt8]) throws(PropertyListError) {
        guard bytes.starts(with: Array("bplist00".utf8)) else { throw .malformed("only version 00 is read") }
        guard bytes.count >= 8 + 32 else { throw .malformed("too short") }
        let t = bytes.count - 32
        let offsetSize = Int(bytes[t + 6])
        let refSize = Int(bytes[t + 7])
        let count = try Self.uint(bytes, at: t + 8, size: 8, end: bytes.count)
        let top = try Self.uint(bytes, at: t + 16, size: 8, end: bytes.count)
        let table = try Self.uint(bytes, at: t + 24, size: 8, end: bytes.count)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize), count >= 1, top < count,
              table >= 8, table <= t, count <= (t - table) / offsetSize else {
            throw .malformed("bad trailer")
        }
        self.bytes = bytes
        self.count = count
        self.top = top
        self.refSize = refSize
        self.offsetSize = offsetSize
        self.objectsEnd = table
    }

    /// A big-endian unsigned integer of `size` (1...8) bytes that must end by `end` and fit Int.
    private static func uint(_ bytes: [UInt8], at offset: Int, size: Int, end: Int) throws(PropertyListError) -> Int {
        guard (1...8).contains(size), offset >= 0, end <= bytes.count, offset <= end - size else {
            throw .malformed("offset out of range")
        }
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
        guard let result = Int(exactly: value) else { throw .malformed("value out of range") }
        return result
    }

    /// `size` big-endian bytes at `offset`, a range `object(_:)` has checked.
    func uint64(at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    /// The `i`th reference of a container whose references start at `refs`.
    func ref(_ refs: Int, _ i: Int) throws(PropertyListError) -> Int {
        try Self.uint(bytes, at: refs + i * refSize, size: refSize, end: objectsEnd)
    }

    func object(_ index: Int) throws(PropertyListError) -> Object {
        guard index >= 0, index < count else { throw .malformed("reference out of range") }
        // The table lies between the objects and the trailer (checked in `init`).
        let offset = try Self.uint(bytes, at: objectsEnd + index * offsetSize, size: offsetSize, end: bytes.count - 32)
        guard offset >= 8, offset < objectsEnd else { throw .malformed("object offset out of range") }
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0 where marker == 0x08 || marker == 0x09:
            return .bool(marker == 0x09)
        case 0x1:
            guard low <= 4 else { throw .malformed("bad integer size") }
            return .integer(at: try span(offset + 1, count: 1 << low, unit: 1).lowerBound, size: 1 << low)
        case 0x2:
            guard low == 2 || low == 3 else { throw .malformed("bad real size") }
            return .real(at: try span(offset + 1, count: 1 << low, unit: 1).lowerBound, size: 1 << low)
        case 0x3:
            guard marker == 0x33 else { throw .malformed("bad date size") }
            return .date(at: try span(offset + 1, count: 8, unit: 1).lowerBound)
        case 0x4, 0x5, 0x6:
            let (count, start) = try length(at: offset, nibble: low)
            let range = try span(start, count: count, unit: marker >> 4 == 0x6 ? 2 : 1)
            return marker >> 4 == 0x4 ? .data(range) : marker >> 4 == 0x5 ? .ascii(range) : .utf16(range)
        case 0xA:
            let (count, start) = try length(at: offset, nibble: low)
            _ = try span(start, count: count, unit: refSize)
            return .array(refs: start, count: count)
        case 0xD:
            let (count, start) = try length(at: offset, nibble: low)
            _ = try span(start, count: count, unit: 2 * refSize)
            return .dictionary(refs: start, count: count)
        default:
            let hex = String(marker, radix: 16)
            let what = switch marker >> 4 {
            case 0x0: "a null or fill object"
            case 0x8: "a UID"  // a keyed archive's reference, never in a defaults export
            case 0xB: "an ordered set"
            case 0xC: "a set"
            default: "an unknown object type"
            }
            throw .unsupported("\(what), marker 0x\(hex.count < 2 ? "0" + hex : hex)")
        }
    }

    /// A length: the marker's low nibble, or (0xF) the integer object that follows the marker.
    private func length(at offset: Int, nibble: Int) throws(PropertyListError) -> (count: Int, start: Int) {
        guard nibble == 0xF else { return (nibble, offset + 1) }
        guard offset + 1 < objectsEnd, bytes[offset + 1] >> 4 == 0x1, bytes[offset + 1] & 0x0F <= 3 else {
            throw .malformed("bad length")
        }
        let size = 1 << Int(bytes[offset + 1] & 0x0F)
        return (try Self.uint(bytes, at: offset + 2, size: size, end: objectsEnd), offset + 2 + size)
    }

    /// `count` items of `unit` bytes from `start`, all before the offset table.
    private func span(_ start: Int, count: Int, unit: Int) throws(PropertyListError) -> Range<Int> {
        let (size, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, size >= 0, start <= objectsEnd, size <= objectsEnd - start else {
            throw .malformed("an object runs past the object area")
        }
        return start..<(start + size)
    }
}

/// Builds values from a table that `BinaryPlistBounds` has measured (no cycles, within the limits).
private struct BinaryPlistDecoder {
    let table: BinaryPlistTable
    let depthLimit: Int

    func value(_ index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        // The one depth check for an object reached again deeper down: the bounds check measures each
        // object once, at the first depth it is reached.
        guard depth <= depthLimit else { throw .tooDeep(limit: depthLimit) }
        let object = try table.object(index)
        switch object {
        case .bool(let value):
            return .bool(value)
        case .integer(let at, let size):
            switch size {
            case 16:
                // Written only for values above Int64.max: the high half is zero.
                guard table.uint64(at: at, size: 8) == 0 else { throw .malformed("an integer wider than 64 bits") }
                let low = table.uint64(at: at + 8, size: 8)
                return Int64(exactly: low).map { .integer($0) } ?? .unsignedInteger(low)
            case 8:
                return .integer(Int64(bitPattern: table.uint64(at: at, size: 8)))
            default:
                return .integer(Int64(truncatingIfNeeded: table.uint64(at: at, size: size)))
            }
        case .real(let at, let size):
            let raw = table.uint64(at: at, size: size)
            return .real(size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw))
        case .date(let at):
            return .date(Double(bitPattern: table.uint64(at: at, size: 8)) + 978_307_200)
        case .data(let range):
            return .data(Array(table.bytes[range]))
        case .ascii, .utf16:
            return .string(try string(object))
        case .array(let refs, let count):
            var items: [PropertyListValue] = []
            for i in 0..<count { items.append(try value(try table.ref(refs, i), depth: depth + 1)) }
            return .array(items)
        case .dictionary(let refs, let count):
            var dictionary = DictionaryBuilder()
            for i in 0..<count {
                let key = try string(try table.object(try table.ref(refs, i)))
                dictionary.set(key, try value(try table.ref(refs, count + i), depth: depth + 1))
            }
            if depth == 0, let key = dictionary.repeated { throw .repeatedKey(key) }
            return .dictionary(dictionary.entries)
        }
    }

    private func string(_ object: BinaryPlistTable.Object) throws(PropertyListError) -> String {
        let bytes = table.bytes
        switch object {
        case .ascii(let range):
            guard bytes[range].allSatisfy({ $0 < 0x80 }) else { throw .malformed("a non-ASCII byte in an ASCII string") }
            return String(decoding: bytes[range], as: UTF8.self)
        case .utf16(let range):
            let units = stride(from: range.lowerBound, to: range.upperBound, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
            }
            guard let text = String(validating: units, as: UTF16.self) else {
                throw .malformed("an unpaired surrogate in a UTF-16 string")
            }
            return text
        default:
            throw .malformed("a dictionary key that is not a string")
        }
    }
}

// MARK: XML

/// A reader for the XML form as Apple writes it, with what XML allows around it: a BOM, the
/// declaration (UTF-8 only), a DOCTYPE (its internal subset is skipped: declared entities are not
/// expanded, so a reference to one is an error), comments and processing instructions, CDATA,
/// the five predefined entities and character references. Containers are kept on an explicit
/// stack, so a deep file costs no call depth.
private struct XMLPlistReader {
    enum Tag: String {
        case plist, dict, array, key, string, integer, real, date, data
        case yes = "true", no = "false"
    }

    /// A container still open.
    struct Open {
        var tag: Tag
        /// Where its start tag is, for "is not closed".
        var start: Int
        var items: [PropertyListValue] = []
        var dictionary = DictionaryBuilder()
        /// A dictionary's key read and still waiting for its value.
        var key: String?
    }

    let bytes: [UInt8]
    let limits: PropertyListLimits
    var pos = 0
    var stack: [Open] = []
    var result: PropertyListValue?
    var values = 0
    var payload = 0

    init(bytes: [UInt8], limits: PropertyListLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func document() throws(PropertyListError) -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
        while true {
            skipSpace()
            if at("<?") {
                try instruction()
            } else if at("<!--") {
                try comment()
            } else if at("<!DOCTYPE") {
                try doctype()
            } else if at("<"), !at("</"), !at("<!") {
                break
            } else {
                throw fail(pos < bytes.count ? "text before <plist>" : "no <plist> element", at: pos)
            }
        }
        let root = pos
        let (tag, empty) = try openTag()
        guard tag == .plist else { throw fail("the root element is not <plist>", at: root) }
        guard !empty else { throw fail("<plist> holds no value", at: root) }
        let value = try rootValue(plistAt: root)
        while true {
            skipSpace()
            if pos == bytes.count { return value }
            if at("<!--") {
                try comment()
            } else if at("<?") {
                try instruction()
            } else {
                throw fail("text after </plist>", at: pos)
            }
        }
    }

    /// The one value inside `<plist>`, read up to and including `</plist>`.
    private mutating func rootValue(plistAt root: Int) throws(PropertyListError) -> PropertyListValue {
        while true {
            try skipSpaceAndComments()
            let start = pos
            guard start < bytes.count else {
                let open: (tag: Tag, start: Int) = stack.last.map { ($0.tag, $0.start) } ?? (.plist, root)
                throw fail("<\(open.tag.rawValue)> is not closed", at: open.start)
            }
            if at("</") {
                let tag = try closeTag()
                guard let open = stack.popLast() else {
                    guard tag == .plist else { throw fail("\(Self.describe(closing: tag)) closes <plist>", at: start) }
                    guard let result else { throw fail("<plist> holds no value", at: start) }
                    return result
                }
                guard tag == open.tag else {
                    throw fail("\(Self.describe(closing: tag)) closes <\(open.tag.rawValue)>", at: start)
                }
                guard open.key == nil else { throw fail("a <key> without a value", at: start) }
                if open.tag == .dict, stack.isEmpty, let key = open.dictionary.repeated { throw .repeatedKey(key) }
                try add(open.tag == .dict ? .dictionary(open.dictionary.entries) : .array(open.items))
                continue
            }
            if at("<?") {
                try instruction()
                continue
            }
            guard !at("<!") else { throw fail("a CDATA section or declaration between elements", at: start) }
            let (found, empty) = try openTag()
            guard let tag = found else { throw fail("an element that is not a plist element", at: start) }
            let value: PropertyListValue
            /// The element's text read by `reader`, or `problem` at the element's line.
            func parse<T>(_ reader: ([UInt8]) -> T?, _ problem: String) throws(PropertyListError) -> T {
                guard let parsed = reader(Array(try content(of: tag, empty: empty, at: start).utf8)) else { throw fail(problem, at: start) }
                return parsed
            }
            switch tag {
            case .plist:
                throw fail("<plist> inside <plist>", at: start)
            case .key:
                guard let last = stack.indices.last, stack[last].tag == .dict else {
                    throw fail("<key> outside a <dict>", at: start)
                }
                guard stack[last].key == nil else { throw fail("two <key>s in a row", at: start) }
                let key = empty ? "" : try text(of: .key, openedAt: start)
                try count(values: 1, bytes: key.utf8.count)
                stack[last].key = key
                continue
            case .dict, .array:
                try checkPlace(at: start)
                guard empty else {
                    stack.append(Open(tag: tag, start: start))
                    continue
                }
                value = tag == .dict ? .dictionary([]) : .array([])
            case .yes, .no:
                guard try content(of: tag, empty: empty, at: start).isEmpty else {
                    throw fail("<\(tag.rawValue)/> holds text", at: start)
                }
                value = .bool(tag == .yes)
            case .string:
                value = .string(try content(of: tag, empty: empty, at: start))
            case .data:
                value = .data(try parse(Self.base64, "<data> is not valid base64"))
            case .integer:
                value = try parse(Self.integer, "<integer> holds no integer, or one outside 64 bits")
            case .real:
                value = .real(try parse(Self.real, "<real> holds no number"))
            case .date:
                value = .date(try parse(Self.date, "<date> is not a date written yyyy-MM-ddTHH:mm:ssZ"))
            }
            try add(value)
        }
    }

    /// Refuses a value where none may go (a second one under `<plist>`, one without its key in a
    /// `<dict>`) or deeper than the limit, before it is read.
    private mutating func checkPlace(at start: Int) throws(PropertyListError) {
        if let open = stack.last {
            guard open.tag == .array || open.key != nil else { throw fail("a value without a <key> in <dict>", at: start) }
        } else {
            guard result == nil else { throw fail("a second value in <plist>", at: start) }
        }
        guard stack.count <= limits.depth else { throw .tooDeep(limit: limits.depth) }
    }

    /// A scalar element's text, once its place is checked.
    private mutating func content(of tag: Tag, empty: Bool, at start: Int) throws(PropertyListError) -> String {
        try checkPlace(at: start)
        return empty ? "" : try text(of: tag, openedAt: start)
    }

    private mutating func add(_ value: PropertyListValue) throws(PropertyListError) {
        switch value {
        case .string(let text): try count(values: 1, bytes: text.utf8.count)
        case .data(let data): try count(values: 1, bytes: data.count)
        default: try count(values: 1, bytes: 0)
        }
        guard let last = stack.indices.last else {
            result = value
            return
        }
        if let key = stack[last].key {
            stack[last].dictionary.set(key, value)
            stack[last].key = nil
        } else {
            stack[last].items.append(value)
        }
    }

    private mutating func count(values: Int, bytes: Int) throws(PropertyListError) {
        self.values += values
        payload += bytes
        guard self.values <= limits.values else { throw .tooManyValues(limit: limits.values) }
        guard payload <= limits.bytes else { throw .tooManyBytes(limit: limits.bytes) }
    }

    // Markup

    /// Character data of `tag` up to its close tag: references resolved, CDATA kept as is,
    /// comments dropped, every byte else (whitespace too) kept.
    private mutating func text(of tag: Tag, openedAt start: Int) throws(PropertyListError) -> String {
        var out: [UInt8] = []
        let textStart = pos
        while true {
            guard let next = bytes[pos...].firstIndex(where: { $0 == Self.lt || $0 == Self.amp }) else {
                throw fail("<\(tag.rawValue)> is not closed", at: start)
            }
            out += bytes[pos..<next]
            pos = next
            if bytes[pos] == Self.amp {
                try reference(into: &out)
            } else if at("</") {
                let closeAt = pos
                let close = try closeTag()
                guard close == tag else {
                    throw fail("\(Self.describe(closing: close)) closes <\(tag.rawValue)>", at: closeAt)
                }
                break
            } else if at("<!--") {
                try comment()
            } else if at("<![CDATA[") {
                let cdata = pos
                guard let end = find("]]>", from: pos + 9) else { throw fail("a CDATA section is not closed", at: cdata) }
                out += bytes[(pos + 9)..<end]
                pos = end + 3
            } else {
                throw fail("an element inside <\(tag.rawValue)>", at: pos)
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw fail("text that is not UTF-8", at: textStart)
        }
        return text
    }

    /// `&lt;` and the other predefined entities, `&#NNN;`, `&#xHH;`.
    private mutating func reference(into out: inout [UInt8]) throws(PropertyListError) {
        let start = pos
        // Any reference this reader knows is short: look no further than that for its `;`.
        guard let semicolon = bytes[pos..<min(pos + 16, bytes.count)].firstIndex(of: UInt8(ascii: ";")) else {
            throw fail("an '&' that starts no entity", at: start)
        }
        let name = Array(bytes[(pos + 1)..<semicolon])
        pos = semicolon + 1
        switch name {
        case Array("lt".utf8): out.append(Self.lt)
        case Array("gt".utf8): out.append(UInt8(ascii: ">"))
        case Array("amp".utf8): out.append(Self.amp)
        case Array("quot".utf8): out.append(UInt8(ascii: "\""))
        case Array("apos".utf8): out.append(UInt8(ascii: "'"))
        default:
            guard name.first == UInt8(ascii: "#") else { throw fail("an entity XML does not predefine", at: start) }
            var digits = name.dropFirst()
            var radix: UInt32 = 10
            if digits.first == UInt8(ascii: "x") {
                radix = 16
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty else { throw fail("a malformed character reference", at: start) }
            var scalar: UInt32 = 0
            for digit in digits {
                guard let value = Self.digit(digit), value < radix else { throw fail("a malformed character reference", at: start) }
                scalar = scalar * radix + value
                guard scalar <= 0x10FFFF else { throw fail("a character reference beyond U+10FFFF", at: start) }
            }
            guard scalar != 0, let character = Unicode.Scalar(scalar) else {
                throw fail("a character reference to NUL or a surrogate", at: start)
            }
            out.append(contentsOf: String(Character(character)).utf8)
        }
    }

    /// `<name attributes>` or `<name attributes/>`; the tag is nil for a name that is not a plist element.
    private mutating func openTag() throws(PropertyListError) -> (Tag?, empty: Bool) {
        let start = pos
        pos += 1
        let name = self.name()
        guard !name.isEmpty else { throw fail("a malformed tag", at: start) }
        let (_, empty) = try attributes(openedAt: start, instruction: false)
        return (Self.tag(name), empty)
    }

    private mutating func closeTag() throws(PropertyListError) -> Tag? {
        let start = pos
        pos += 2
        let name = self.name()
        skipSpace()
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: ">") else { throw fail("a malformed close tag", at: start) }
        pos += 1
        return Self.tag(name)
    }

    /// `name="value"` pairs up to `>` or `/>` (`?>` in a processing instruction); whether the tag closed itself.
    private mutating func attributes(openedAt start: Int, instruction: Bool) throws(PropertyListError)
        -> (list: [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)], empty: Bool) {
        var list: [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] = []
        while true {
            skipSpace()
            guard pos < bytes.count else { throw fail("a tag is not closed", at: start) }
            if instruction, at("?>") {
                pos += 2
                return (list, false)
            }
            if !instruction, at("/>") {
                pos += 2
                return (list, true)
            }
            if !instruction, bytes[pos] == UInt8(ascii: ">") {
                pos += 1
                return (list, false)
            }
            let name = self.name()
            skipSpace()
            guard !name.isEmpty, pos < bytes.count, bytes[pos] == UInt8(ascii: "=") else {
                throw fail("a malformed attribute", at: start)
            }
            pos += 1
            skipSpace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") || bytes[pos] == UInt8(ascii: "'") else {
                throw fail("a malformed attribute", at: start)
            }
            let quote = bytes[pos]
            guard let end = bytes[(pos + 1)...].firstIndex(of: quote) else { throw fail("an attribute value is not closed", at: start) }
            list.append((name, bytes[(pos + 1)..<end]))
            pos = end + 1
        }
    }

    /// `<?…?>`: skipped, but for the XML declaration, whose encoding must be UTF-8.
    private mutating func instruction() throws(PropertyListError) {
        let start = pos
        pos += 2
        let target = name()
        guard target.elementsEqual("xml".utf8) else {
            guard let end = find("?>", from: pos) else { throw fail("a processing instruction is not closed", at: start) }
            pos = end + 2
            return
        }
        let (list, _) = try attributes(openedAt: start, instruction: true)
        if let encoding = list.first(where: { $0.name.elementsEqual("encoding".utf8) })?.value,
           !encoding.map({ $0 | 0x20 }).elementsEqual("utf-8".utf8) {
            throw .unsupported("line \(line(at: start)): the declared encoding is not UTF-8, the only one read")
        }
    }

    private mutating func comment() throws(PropertyListError) {
        let start = pos
        guard let end = find("-->", from: pos + 4) else { throw fail("a comment is not closed", at: start) }
        pos = end + 3
    }

    /// `<!DOCTYPE …>`, an internal subset in brackets and quoted literals included.
    private mutating func doctype() throws(PropertyListError) {
        let start = pos
        var quote: UInt8?
        var inSubset = false
        pos += 9
        while pos < bytes.count {
            let byte = bytes[pos]
            pos += 1
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "["): inSubset = true
            case UInt8(ascii: "]"): inSubset = false
            case UInt8(ascii: ">") where !inSubset: return
            default: break
            }
        }
        throw fail("<!DOCTYPE> is not closed", at: start)
    }

    /// Whitespace and comments between elements; any other text there is an error.
    private mutating func skipSpaceAndComments() throws(PropertyListError) {
        while pos < bytes.count {
            if Self.isSpace(bytes[pos]) {
                pos += 1
            } else if at("<!--") {
                try comment()
            } else if bytes[pos] == Self.lt {
                return
            } else {
                throw fail("text inside <\((stack.last?.tag ?? .plist).rawValue)>", at: pos)
            }
        }
    }

    private mutating func skipSpace() {
        while pos < bytes.count, Self.isSpace(bytes[pos]) { pos += 1 }
    }

    private mutating func name() -> ArraySlice<UInt8> {
        let start = pos
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "?"), Self.lt:
                return bytes[start..<pos]
            default:
                pos += 1
            }
        }
        return bytes[start..<pos]
    }

    private func at(_ literal: String) -> Bool { matches(literal, at: pos) }

    private func matches(_ literal: String, at offset: Int) -> Bool {
        var i = offset
        for byte in literal.utf8 {
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
        }
        return true
    }

    private func find(_ literal: String, from start: Int) -> Int? {
        var i = start
        while i < bytes.count {
            if matches(literal, at: i) { return i }
            i += 1
        }
        return nil
    }

    private func fail(_ reason: String, at offset: Int) -> PropertyListError {
        .malformed("line \(line(at: offset)): \(reason)")
    }

    /// Counted only when an error is reported.
    private func line(at offset: Int) -> Int {
        1 + bytes[..<min(offset, bytes.count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private static let lt = UInt8(ascii: "<"), amp = UInt8(ascii: "&")

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func tag(_ name: ArraySlice<UInt8>) -> Tag? {
        name.count <= 8 ? Tag(rawValue: String(decoding: name, as: UTF8.self)) : nil
    }

    /// A close tag as an error names it: a plist element by name, anything else not quoted.
    private static func describe(closing tag: Tag?) -> String {
        tag.map { "</\($0.rawValue)>" } ?? "the close tag of an element that is not a plist element"
    }

    private static func digit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // Scalar text

    /// Decimal or `0x` hexadecimal with an optional sign, as CoreFoundation reads it (no
    /// whitespace). Values above Int64.max up to UInt64.max are the unsigned form; beyond is nil.
    static func integer(_ text: [UInt8]) -> PropertyListValue? {
        var i = 0
        var negative = false
        if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        var radix: UInt64 = 10
        if text.count - i > 2, text[i] == UInt8(ascii: "0"), text[i + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            i += 2
        }
        guard i < text.count else { return nil }
        var magnitude: UInt64 = 0
        for byte in text[i...] {
            guard let digit = digit(byte), UInt64(digit) < radix else { return nil }
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= 1 << 63 else { return nil }
            return .integer(Int64(bitPattern: 0 &- magnitude))
        }
        return Int64(exactly: magnitude).map { .integer($0) } ?? .unsignedInteger(magnitude)
    }

    /// A decimal number with an optional exponent, or `nan`, `inf`, `infinity` with an optional
    /// sign in any case.
    static func real(_ text: [UInt8]) -> Double? {
        let lower = String(decoding: text.map { $0 | 0x20 }, as: UTF8.self)
        switch lower {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        // Checked here because `Double(_:)` also reads hexadecimal floats and other spellings.
        var i = 0
        func digits() -> Int {
            let start = i
            while i < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[i]) { i += 1 }
            return i - start
        }
        if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
        var mantissa = digits()
        if i < text.count, text[i] == UInt8(ascii: ".") {
            i += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if i < text.count, text[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return nil }
        }
        guard i == text.count else { return nil }
        return Double(String(decoding: text, as: UTF8.self))
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` (UTC, the proleptic Gregorian calendar) as seconds since 1970.
    static func date(_ text: [UInt8]) -> Double? {
        guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
              text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[i]) else { return nil }
                value = value * 10 + Int(text[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        return Double(CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// Standard base64 with `=` padding; whitespace anywhere is skipped, anything else is an error.
    static func base64(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var bits: UInt32 = 0
        var sextets = 0
        var padding = 0
        for byte in text {
            if isSpace(byte) { continue }
            if byte == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2 else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            default: return nil
            }
            guard padding == 0 else { return nil }
            bits = bits << 6 | UInt32(value)
            sextets += 1
            if sextets == 4 {
                out += [UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits)]
                bits = 0
                sextets = 0
            }
        }
        // A last group of 2 or 3 characters is padded to 4 and gives 1 or 2 bytes.
        switch (sextets, padding) {
        case (0, 0): break
        case (2, 2): out.append(UInt8(truncatingIfNeeded: bits >> 4))
        case (3, 1): out += [UInt8(truncatingIfNeeded: bits >> 10), UInt8(truncatingIfNeeded: bits >> 2)]
        default: return nil
        }
        return out
    }
}
