import Synchronization

/// Finds live secrets (the session token, a password just sent) in text, in the forms a server
/// echoes them back in: as sent, in another ASCII case, base64 (standard or URL alphabet, at any
/// byte alignment, so inside a longer encoded value too), and any run of `window` or more of their
/// characters (a prefix, a cut-off copy). Secrets shorter than 4 bytes are ignored.
///
/// Runs of `window` bytes are found with a rolling hash, so text is scanned once whatever the number
/// of secrets; shorter secrets are compared whole.
public struct SecretMatcher: Sendable {
    /// The shortest run of a long secret that is masked on its own.
    public static let window = 16

    /// Lowercased needles shorter than `window`, matched whole.
    private let short: [[UInt8]]
    /// Lowercased `window`-byte runs of long secrets, by rolling hash.
    private let runs: [UInt64: [[UInt8]]]
    /// One bit per possible value of a run hash's low 16 bits, set for the runs' hashes: almost every
    /// position of a text is turned away by one bit test instead of a dictionary lookup.
    private let runFilter: [UInt64]
    /// The bytes (both cases) that occur in some run.
    private let alphabet: [Bool]
    /// No text shorter than this can hold a secret.
    private let minLength: Int

    public static let none = SecretMatcher([])

    public var isEmpty: Bool { short.isEmpty && runs.isEmpty }

    public init(_ secrets: [String]) {
        var short = Set<[UInt8]>()
        var runs: [UInt64: [[UInt8]]] = [:]
        func add(_ form: [UInt8]) {
            let lowered = form.map(Redaction.lower)
            if lowered.count < Self.window {
                if lowered.count >= 4 { short.insert(lowered) }
                return
            }
            for start in 0...(lowered.count - Self.window) {
                let run = Array(lowered[start..<(start + Self.window)])
                let hash = Self.hash(run[...])
                if !(runs[hash]?.contains(run) ?? false) { runs[hash, default: []].append(run) }
            }
        }
        for secret in secrets where secret.utf8.count >= 4 {
            let bytes = Array(secret.utf8)
            add(bytes)
            // Base64 of the secret, whole (with or without padding) for a short one, and its
            // full 3-byte groups from each of the three alignments it can have inside a longer value.
            let whole = Base64.encode(bytes[...])
            add(Array(whole.utf8))
            let unpadded = whole.filter { $0 != "=" }
            if unpadded.count != whole.count { add(Array(unpadded.utf8)) }
            for skip in 0..<3 where bytes.count - skip >= 3 {
                let body = bytes.dropFirst(skip)
                let groups = body.prefix(body.count / 3 * 3)
                let encoded = Array(Base64.encode(groups).utf8)
                // A few bytes of a short secret, encoded, would match ordinary text: whole forms only.
                guard encoded.count >= Self.window else { continue }
                add(encoded)
                add(encoded.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 })
            }
        }
        self.short = Array(short)
        self.runs = runs
        var filter = [UInt64](repeating: 0, count: 1024)
        for hash in runs.keys { filter[Int(hash & 0xFFFF) >> 6] |= 1 << (hash & 63) }
        self.runFilter = filter
        var alphabet = [Bool](repeating: false, count: 256)
        for run in runs.values.joined().joined() {
            alphabet[Int(run)] = true
            if run >= UInt8(ascii: "a"), run <= UInt8(ascii: "z") { alphabet[Int(run - 0x20)] = true }
        }
        self.alphabet = alphabet
        self.minLength = min(short.map(\.count).min() ?? Self.window, runs.isEmpty ? Int.max : Self.window)
    }

    /// The matcher for `secrets`, built once while the same secrets are asked for (every cell of a
    /// table is masked with the shell's secrets).
    public static func shared(_ secrets: [String]) -> SecretMatcher {
        if secrets.isEmpty { return none }
        return cache.withLock { cached in
            if let i = cached.firstIndex(where: { $0.secrets == secrets }) {
                let hit = cached.remove(at: i)
                cached.append(hit)
                return hit.matcher
            }
            let matcher = SecretMatcher(secrets)
            cached.append((secrets, matcher))
            if cached.count > cacheSlots { cached.removeFirst() }
            return matcher
        }
    }

    /// A few lists are in use at once (the shell's live secrets, `SecretMemory`'s, a request's own):
    /// each keeps its prepared matcher rather than evicting the others'.
    private static let cache = Mutex<[(secrets: [String], matcher: SecretMatcher)]>([])
    private static let cacheSlots = 4

    /// Whether `text` holds a secret in any known form.
    public func holds(_ text: String) -> Bool {
        // Most keys and cells are shorter than any secret: no scan (utf8.count is O(1) on native strings).
        guard !isEmpty, text.utf8.count >= minLength else { return false }
        var copy = text
        return copy.withUTF8 { bytes in
            if firstMatch(in: bytes) != nil { return true }
            return percentEncodedPieces(in: bytes).contains { piece in
                piece.decoded.withUnsafeBufferPointer { firstMatch(in: $0) != nil }
            }
        }
    }

    /// The pieces of `bytes` (between URL and list delimiters) that hold a `%XX` escape, each with
    /// its bytes decoded once (not again: a `%2541` stays `%41`, so nesting costs nothing) and
    /// whatever they decode to, UTF-8 or not: a token sent in a query string or echoed URL-encoded
    /// is found decoded. One pass over the bytes.
    private func percentEncodedPieces(in bytes: UnsafeBufferPointer<UInt8>) -> [(range: Range<Int>, decoded: [UInt8])] {
        guard bytes.contains(0x25) else { return [] }
        var pieces: [(Range<Int>, [UInt8])] = []
        var start = 0
        var decoded: [UInt8] = []
        var escaped = false
        var i = 0
        func close(_ end: Int) {
            if escaped, decoded.count >= minLength { pieces.append((start..<end, decoded)) }
            decoded.removeAll(keepingCapacity: true)
            escaped = false
            start = end + 1
        }
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: ","), UInt8(ascii: "\""),
                 UInt8(ascii: "'"), 0x20, 0x09, 0x0A, 0x0D:
                close(i)
                i += 1
            case 0x25 where i + 2 < bytes.count:
                if let high = Self.hexValue(bytes[i + 1]), let low = Self.hexValue(bytes[i + 2]) {
                    decoded.append(high << 4 | low)
                    escaped = true
                    i += 3
                } else {
                    decoded.append(b)
                    i += 1
                }
            default:
                decoded.append(b)
                i += 1
            }
        }
        close(bytes.count)
        return pieces
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `text` with each stretch holding a secret replaced by `***` (overlapping finds become one).
    public func mask(_ text: String) -> String {
        guard !isEmpty, text.utf8.count >= minLength else { return text }
        var masked = maskAsSent(text)
        // A piece that holds a secret once its `%XX` escapes are decoded is masked whole.
        guard masked.utf8.contains(0x25) else { return masked }
        return masked.withUTF8 { bytes -> String in
            let encoded = percentEncodedPieces(in: bytes).filter { piece in piece.decoded.withUnsafeBufferPointer { firstMatch(in: $0) != nil } }
            guard !encoded.isEmpty else { return String(decoding: bytes, as: UTF8.self) }
            var out: [UInt8] = []
            var position = 0
            for piece in encoded {
                out.append(contentsOf: bytes[position..<piece.range.lowerBound])
                out.append(contentsOf: "***".utf8)
                position = piece.range.upperBound
            }
            out.append(contentsOf: bytes[position...])
            return String(decoding: out, as: UTF8.self)
        }
    }

    private func maskAsSent(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes -> String? in
            let found = ranges(in: bytes)
            guard !found.isEmpty else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var position = 0
            for range in found {
                out.append(contentsOf: bytes[position..<range.lowerBound])
                out.append(contentsOf: "***".utf8)
                position = range.upperBound
            }
            out.append(contentsOf: bytes[position...])
            return String(decoding: out, as: UTF8.self)
        } ?? text
    }

    /// Every stretch of `bytes` holding a secret, merged, sorted, widened to whole UTF-8 scalars.
    public func ranges(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var found: [Range<Int>] = []
        scan(bytes) { found.append($0); return true }
        guard !found.isEmpty else { return [] }
        found.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in found {
            var lower = range.lowerBound, upper = range.upperBound
            while lower > 0, bytes[lower] & 0xC0 == 0x80 { lower -= 1 }
            while upper < bytes.count, bytes[upper] & 0xC0 == 0x80 { upper += 1 }
            if let last = merged.last, lower <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, upper)
            } else {
                merged.append(lower..<upper)
            }
        }
        return merged
    }

    private func firstMatch(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var first: Range<Int>?
        scan(bytes) { first = $0; return false }
        return first
    }

    /// Calls `found` with each match until it returns false.
    private func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ found: (Range<Int>) -> Bool) {
        let n = bytes.count
        for needle in short where needle.count <= n {
            let head = needle[0]
            var i = 0
            while i <= n - needle.count {
                if Redaction.lower(bytes[i]) == head {
                    var j = 1
                    while j < needle.count, Redaction.lower(bytes[i + j]) == needle[j] { j += 1 }
                    if j == needle.count {
                        if !found(i..<(i + needle.count)) { return }
                        i += needle.count
                        continue
                    }
                }
                i += 1
            }
        }
        let w = Self.window
        guard !runs.isEmpty, n >= w else { return }
        alphabet.withUnsafeBufferPointer { alphabet in
            runFilter.withUnsafeBufferPointer { filter in
                // Only stretches of at least `window` bytes that can occur in a secret's runs are hashed:
                // a space, punctuation or a CJK byte ends every run, so most text costs one lookup per byte.
                var i = 0
                while i + w <= n {
                    guard alphabet[Int(bytes[i])] else { i += 1; continue }
                    var end = i + 1
                    while end < n, alphabet[Int(bytes[end])] { end += 1 }
                    if end - i >= w, !roll(bytes, from: i, to: end, filter, found) { return }
                    i = end + 1
                }
            }
        }
    }

    /// The rolling hash over `bytes[from..<to]` (every byte in the alphabet); false when `found` said stop.
    private func roll(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, _ filter: UnsafeBufferPointer<UInt64>,
                      _ found: (Range<Int>) -> Bool) -> Bool {
        let w = Self.window
        var hash: UInt64 = 0
        for i in from..<(from + w) { hash = hash &* Self.base &+ UInt64(Redaction.lower(bytes[i])) }
        var start = from
        while true {
            if filter[Int(hash & 0xFFFF) >> 6] & (1 << (hash & 63)) != 0, let candidates = runs[hash],
               candidates.contains(where: { run in (0..<w).allSatisfy { Redaction.lower(bytes[start + $0]) == run[$0] } }) {
                if !found(start..<(start + w)) { return false }
            }
            guard start + w < to else { return true }
            hash = (hash &- UInt64(Redaction.lower(bytes[start])) &* Self.topPower) &* Self.base
                &+ UInt64(Redaction.lower(bytes[start + w]))
            start += 1
        }
    }

    private static let base: UInt64 = 1_000_003
    /// `base` to the power `window - 1`: the weight of the byte leaving the window.
    private static let topPower: UInt64 = (1..<window).reduce(1) { acc, _ in acc &* base }

    private static func hash(_ run: ArraySlice<UInt8>) -> UInt64 {
        run.reduce(0) { $0 &* base &+ UInt64($1) }
    }
}

/// Standard base64 (RFC 4648 §4), for the forms a secret is looked for in.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.endIndex ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.endIndex ? UInt32(bytes[i + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            let available = bytes.endIndex - i
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(available > 1 ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(available > 2 ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
