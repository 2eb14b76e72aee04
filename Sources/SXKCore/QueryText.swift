/// A URL's query (`name=value&…`) as every reader splits it: the masks, the trace, HAR, the raw
/// request's secret check and the sandbox. Pieces stay as written; each reader decodes as it needs.
public enum QueryText {
    /// `url` at its query: what precedes the `?` (without it), the query (nil without a `?`), and the
    /// fragment after a `#` in the query (nil without one).
    public static func split(_ url: Substring) -> (head: Substring, query: Substring?, fragment: Substring?) {
        guard let q = url.firstIndex(of: "?") else { return (url, nil, nil) }
        let rest = url[url.index(after: q)...]
        guard let hash = rest.firstIndex(of: "#") else { return (url[..<q], rest, nil) }
        return (url[..<q], rest[..<hash], rest[rest.index(after: hash)...])
    }

    /// The pairs of `query`, as written: `a` alone has a nil value, `a=` an empty one; empty pieces
    /// (`a=1&&b=2`) are none.
    public static func pairs(_ query: Substring) -> [(name: Substring, value: Substring?)] {
        query.split(separator: "&").map { pair in
            guard let eq = pair.firstIndex(of: "=") else { return (pair, nil) }
            return (pair[..<eq], pair[pair.index(after: eq)...])
        }
    }
}
