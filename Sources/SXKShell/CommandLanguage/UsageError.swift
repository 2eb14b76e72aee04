/// A mistake in how a command was typed; shown as one line and exits 2.
public struct UsageError: Error, CustomStringConvertible, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Finds the nearest valid word for "did you mean" hints.
public enum Suggestion {
    /// The candidate closest to `word` by edit distance, if close enough to be a plausible typo.
    public static func nearest(to word: String, in candidates: [String]) -> String? {
        var best: (String, Int)?
        let limit = max(2, word.count / 3)
        let length = word.unicodeScalars.count
        for candidate in candidates {
            // The distance is at least the length difference: skip the quadratic work for a word that
            // cannot be close (a pasted 1 MB line took seconds per candidate).
            if abs(candidate.unicodeScalars.count - length) > limit { continue }
            let d = distance(word, candidate)
            if d <= limit, best == nil || d < best!.1 { best = (candidate, d) }
        }
        if best == nil {
            // A prefix ("--stat" for "--status") is a plausible intent too.
            if word.count >= 2, let prefixed = candidates.first(where: { $0.hasPrefix(word) }) { return prefixed }
        }
        return best?.0
    }

    /// Levenshtein distance over Unicode scalars.
    public static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }

    /// ` (did you mean 'x'?)` or the empty string.
    static func hint(_ word: String, _ candidates: [String]) -> String {
        guard let near = nearest(to: word, in: candidates) else { return "" }
        return " (did you mean '\(near)'?)"
    }
}
