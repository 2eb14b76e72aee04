/// Measures what a binary plist expands to before Foundation decodes it. The format lets one
/// object be referenced any number of times, so a few hundred bytes (12 levels, each array
/// holding the level below 6 times) decode to billions of values: Foundation bridges each
/// reference into its own Swift value. This walks only the object table, counting each object's
/// expanded values and bytes once (memoised), and stops at the first limit passed.
struct BinaryPlistBounds {
    struct Limits {
        /// Values (strings, numbers, arrays, dictionary entries…) after every reference is expanded.
        var values: Int
        /// Bytes of string and data payload after expansion.
        var bytes: Int
        var depth: Int
    }

    enum Problem: Error, Equatable {
        /// The structure cannot be read (offsets out of range, unknown marker, a cycle).
        case malformed(String)
        case tooManyValues(limit: Int)
        case tooManyBytes(limit: Int)
        case tooDeep(limit: Int)
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var offsets: [Int] = []
    private var refSize = 0
    /// Expanded (values, bytes) per object already measured; nil while not yet done.
    private var measured: [(values: Int, bytes: Int)?] = []
    private var visiting: [Bool] = []

    /// Checks `bytes` (starting with `bplist00`) against `limits`.
    static func check(_ bytes: [UInt8], limits: Limits) throws(Problem) {
        var walker = BinaryPlistBounds(bytes: bytes, limits: limits)
        let top = try walker.readTrailer()
        _ = try walker.measure(top, depth: 0)
    }

    private init(bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func uint(at offset: Int, size: Int) throws(Problem) -> Int {
        guard size >= 1, size <= 8, offset >= 0, offset + size <= bytes.count else { throw .malformed("offset out of range") }
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
        guard value <= UInt64(Int.max) else { throw .malformed("value out of range") }
        return Int(value)
    }

    /// The 32-byte trailer: sizes, object count, top object and the offset table.
    private mutating func readTrailer() throws(Problem) -> Int {
        guard bytes.count >= 8 + 32 else { throw .malformed("too short") }
        let t = bytes.count - 32
        let offsetSize = Int(bytes[t + 6])
        refSize = Int(bytes[t + 7])
        let count = try uint(at: t + 8, size: 8)
        let top = try uint(at: t + 16, size: 8)
        let table = try uint(at: t + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize), count >= 1, top < count,
              count <= bytes.count, table <= t, count <= (t - table) / offsetSize else {
            throw .malformed("bad trailer")
        }
        offsets.reserveCapacity(count)
        for i in 0..<count {
            let offset = try uint(at: table + i * offsetSize, size: offsetSize)
            guard offset >= 8, offset < table else { throw .malformed("object offset out of range") }
            offsets.append(offset)
        }
        measured = Array(repeating: nil, count: count)
        visiting = Array(repeating: false, count: count)
        return top
    }

    /// A length: the marker's low nibble, or (0xF) the int object that follows it.
    private func length(at offset: Int, nibble: Int) throws(Problem) -> (count: Int, start: Int) {
        guard nibble == 0xF else { return (nibble, offset + 1) }
        guard offset + 1 < bytes.count else { throw .malformed("length out of range") }
        let marker = bytes[offset + 1]
        guard marker >> 4 == 0x1 else { throw .malformed("bad length") }
        let size = 1 << Int(marker & 0x0F)
        return (try uint(at: offset + 2, size: size), offset + 2 + size)
    }

    private mutating func measure(_ index: Int, depth: Int) throws(Problem) -> (values: Int, bytes: Int) {
        guard index >= 0, index < offsets.count else { throw .malformed("reference out of range") }
        if let done = measured[index] { return done }
        guard depth <= limits.depth else { throw .tooDeep(limit: limits.depth) }
        guard !visiting[index] else { throw .malformed("an object contains itself") }
        visiting[index] = true
        defer { visiting[index] = false }
        let offset = offsets[index]
        let marker = bytes[offset]
        let high = Int(marker >> 4), low = Int(marker & 0x0F)
        var values = 1, payload = 0
        var children: [Int] = []
        switch high {
        case 0x0, 0x1, 0x2, 0x3, 0x8:
            break
        case 0x4, 0x5, 0x6:
            let (count, start) = try length(at: offset, nibble: low)
            guard count <= bytes.count else { throw .malformed("string or data out of range") }
            payload = high == 0x6 ? count * 2 : count
            guard start + payload <= bytes.count else { throw .malformed("string or data out of range") }
        case 0xA, 0xB, 0xC, 0xD:
            let (count, start) = try length(at: offset, nibble: low)
            guard count <= bytes.count else { throw .malformed("container out of range") }
            let refs = high == 0xD ? count * 2 : count
            guard start + refs * refSize <= bytes.count else { throw .malformed("container out of range") }
            for i in 0..<refs { children.append(try uint(at: start + i * refSize, size: refSize)) }
        default:
            throw .malformed("unknown object marker")
        }
        for child in children {
            let sub = try measure(child, depth: depth + 1)
            values += sub.values
            payload += sub.bytes
            guard values <= limits.values else { throw .tooManyValues(limit: limits.values) }
            guard payload <= limits.bytes else { throw .tooManyBytes(limit: limits.bytes) }
        }
        guard values <= limits.values else { throw .tooManyValues(limit: limits.values) }
        guard payload <= limits.bytes else { throw .tooManyBytes(limit: limits.bytes) }
        measured[index] = (values, payload)
        return (values, payload)
    }
}
