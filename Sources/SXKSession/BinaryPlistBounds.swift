/// Measures what a binary plist expands to before it is decoded. The format lets one object be
/// referenced any number of times, so a few hundred bytes (12 levels, each array holding the level
/// below 6 times) stand for billions of values: decoding copies each reference into its own value.
/// This walks only the object table, counting each object's expanded values and bytes once
/// (memoised), and stops at the first limit passed, a cycle, or an object it cannot read.
struct BinaryPlistBounds {
    private let table: BinaryPlistTable
    private let limits: PropertyListLimits
    /// Expanded (values, bytes) per object already measured. Keyed, not one slot per object of the
    /// table: only objects reached are kept, and each adds a value, so the limit bounds them too.
    private var measured: [Int: (values: Int, bytes: Int)] = [:]
    /// Objects on the path from the top to the one being measured.
    private var visiting: Set<Int> = []

    /// Checks the plist framed by `table` against `limits`.
    static func check(_ table: BinaryPlistTable, limits: PropertyListLimits) throws(PropertyListError) {
        var walker = BinaryPlistBounds(table: table, limits: limits)
        _ = try walker.measure(table.top, depth: 0)
    }

    private init(table: BinaryPlistTable, limits: PropertyListLimits) {
        self.table = table
        self.limits = limits
    }

    private mutating func measure(_ index: Int, depth: Int) throws(PropertyListError) -> (values: Int, bytes: Int) {
        guard index >= 0, index < table.count else { throw .malformed("reference out of range") }
        if let done = measured[index] { return done }
        guard depth <= limits.depth else { throw .tooDeep(limit: limits.depth) }
        guard visiting.insert(index).inserted else { throw .malformed("an object contains itself") }
        defer { visiting.remove(index) }
        var values = 1, payload = 0
        var refs = 0, children = 0
        switch try table.object(index) {
        case .data(let range), .ascii(let range), .utf16(let range):
            payload = range.count
        case .array(let start, let count):
            (refs, children) = (start, count)
        case .dictionary(let start, let count):
            // Keys, then values: one run of references.
            (refs, children) = (start, 2 * count)
        case .bool, .integer, .real, .date:
            break
        }
        for i in 0..<children {
            let sub = try measure(try table.ref(refs, i), depth: depth + 1)
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
