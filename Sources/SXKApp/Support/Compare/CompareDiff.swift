import SXKCore

/// How one identity's `data` differs from the baseline's: rows added and removed (as multisets of
/// whole rows), top-level members that differ, and a short summary for the matrix.
struct CompareDiff: Equatable {
    var same: Bool
    var summary: String
    var added: Int?
    var removed: Int?
    var changedKeys: [String]

    static let baseline = CompareDiff(same: true, summary: "(baseline)", added: nil, removed: nil, changedKeys: [])

    static func between(_ base: JSONValue?, _ other: JSONValue?) -> CompareDiff {
        guard let base, let other else {
            if base == nil && other == nil { return CompareDiff(same: true, summary: "no data either", added: nil, removed: nil, changedKeys: []) }
            return CompareDiff(same: false, summary: other == nil ? "no data" : "baseline has no data", added: nil, removed: nil, changedKeys: [])
        }
        if let rowsA = rows(base), let rowsB = rows(other) {
            let a = rowsA.map { JSONWriter.string($0) }
            let b = rowsB.map { JSONWriter.string($0) }
            var pool: [String: Int] = [:]
            for row in a { pool[row, default: 0] += 1 }
            var added = 0
            for row in b {
                if let n = pool[row], n > 0 { pool[row] = n - 1 } else { added += 1 }
            }
            let removed = pool.values.reduce(0, +)
            let keys = changedMembers(base.objectValue, other.objectValue, skipping: "list")
            var parts: [String] = []
            if added > 0 || removed > 0 { parts.append("+\(added) −\(removed) \(added + removed == 1 ? "row" : "rows")") }
            if !keys.isEmpty { parts.append(keyPhrase(keys)) }
            if parts.isEmpty {
                return CompareDiff(same: a == b, summary: a == b ? "same" : "same rows, other order", added: 0, removed: 0, changedKeys: [])
            }
            return CompareDiff(same: false, summary: parts.joined(separator: ", "), added: added, removed: removed, changedKeys: keys)
        }
        if let oa = base.objectValue, let ob = other.objectValue {
            let keys = changedMembers(oa, ob, skipping: nil)
            return CompareDiff(same: keys.isEmpty, summary: keys.isEmpty ? "same" : keyPhrase(keys), added: nil, removed: nil, changedKeys: keys)
        }
        let same = JSONWriter.string(base) == JSONWriter.string(other)
        return CompareDiff(same: same, summary: same ? "same" : "differs", added: nil, removed: nil, changedKeys: [])
    }

    /// The rows of a list answer: the array itself, or a page's `list`.
    static func rows(_ value: JSONValue) -> [JSONValue]? {
        if let array = value.arrayValue { return array }
        return value.objectValue?.field("list")?.arrayValue
    }

    /// Members present on one side only or with different values, in the order first seen.
    static func changedMembers(_ a: JSONObject?, _ b: JSONObject?, skipping: String?) -> [String] {
        guard let a, let b else { return [] }
        var keys: [String] = []
        for key in a.keys + b.keys where key != skipping && !keys.contains(key) {
            let va = a[key].map { JSONWriter.string($0) }
            let vb = b[key].map { JSONWriter.string($0) }
            if va != vb { keys.append(key) }
        }
        return keys
    }

    /// The members named as every typed view names them (camelCase, whatever the backend's spelling:
    /// `user_id` is `userId`); the matrix cuts the phrase where the terminal has no room.
    static func keyPhrase(_ keys: [String]) -> String {
        // Both spellings of one member in a body (`user_id` beside `userId`) are named once.
        var names: [String] = []
        for name in keys.map(JSONObject.camelCase) where !names.contains(name) { names.append(name) }
        let shown = names.prefix(8).joined(separator: ", ") + (names.count > 8 ? ", …" : "")
        return (names.count == 1 ? "\(shown) differs" : "\(shown) differ")
    }
}
