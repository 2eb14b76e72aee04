import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tab candidates for a long list of things with an id and a name (10,000 stores, 1,000 scenic
/// areas): ids matching the typed prefix (described by name), then names matching it (described
/// by id, each name once). The candidates and their UTF-8 bytes are built once per list and reused
/// while the list is the same array, so a Tab costs a byte comparison per entry and no allocation
/// per entry. Matching is by UTF-8 bytes, as a shell matches file names.
public final class IdNameCompletion: @unchecked Sendable {
    private struct Built {
        /// Identity of the source: its buffer (kept alive by `source`, so no other array can reuse
        /// the address), its count and the caller's discriminator (e.g. the scenic filter).
        var base: UnsafeRawPointer?
        var count: Int
        var discriminator: Int?
        var source: Any
        var ids: [CompletionCandidate]
        var idBytes: [[UInt8]]
        var names: [CompletionCandidate]
        var nameBytes: [[UInt8]]
        var all: [CompletionCandidate]
    }

    private let lock = Lock()
    private var built: Built?

    public init() {}

    /// Candidates from `source` for `prefix`; `pair` gives an element's id and name, or nil to leave
    /// it out. Pass a different `discriminator` when `pair` would filter differently.
    public func candidates<Element>(
        from source: [Element], discriminator: Int? = nil, prefix: String, pair: (Element) -> (id: String, name: String)?
    ) -> [CompletionCandidate] {
        let index = lock.withLock { () -> Built in
            let base = source.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            if let built, built.base == base, built.count == source.count, built.discriminator == discriminator {
                return built
            }
            let made = Self.build(source, base: base, discriminator: discriminator, pair: pair)
            built = made
            return made
        }
        if prefix.isEmpty { return index.all }
        let wanted = Array(prefix.utf8)
        var out: [CompletionCandidate] = []
        for (i, bytes) in index.idBytes.enumerated() where Self.starts(bytes, with: wanted) { out.append(index.ids[i]) }
        for (i, bytes) in index.nameBytes.enumerated() where Self.starts(bytes, with: wanted) { out.append(index.names[i]) }
        return out
    }

    private static func build<Element>(
        _ source: [Element], base: UnsafeRawPointer?, discriminator: Int?, pair: (Element) -> (id: String, name: String)?
    ) -> Built {
        var ids: [CompletionCandidate] = []
        var names: [CompletionCandidate] = []
        var seenNames = Set<String>()
        for element in source {
            guard let (id, name) = pair(element) else { continue }
            ids.append(CompletionCandidate(id, description: name))
            if seenNames.insert(name).inserted { names.append(CompletionCandidate(name, description: id)) }
        }
        // An id that equals another entry's name would be offered twice; ids win.
        let idValues = Set(ids.map(\.value))
        names.removeAll { idValues.contains($0.value) }
        return Built(base: base, count: source.count, discriminator: discriminator, source: source,
                     ids: ids, idBytes: ids.map { Array($0.value.utf8) },
                     names: names, nameBytes: names.map { Array($0.value.utf8) }, all: ids + names)
    }

    private static func starts(_ bytes: [UInt8], with prefix: [UInt8]) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        return bytes.withUnsafeBufferPointer { b in
            prefix.withUnsafeBufferPointer { p in memcmp(b.baseAddress!, p.baseAddress!, p.count) == 0 }
        }
    }
}
