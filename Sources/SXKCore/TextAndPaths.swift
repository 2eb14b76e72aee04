#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StringProtocol {
    /// The text without the leading and trailing characters `drop` matches: `\.isBlank` for spaces
    /// and tabs, `\.isWhitespace` for those and line breaks, `\.isNewline` for line breaks.
    public func trimming(_ drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension String {
    /// The first occurrence of `needle`, found byte for byte in UTF-8 and kept only where both ends fall
    /// on Character boundaries, so it matches where `firstRange(of:)` does for a needle without CR LF.
    /// That one (and `contains(_:)` with a string) comes from _StringProcessing, whose generic searcher
    /// makes its type metadata from mangled names the first time: ≈ 0.1 ms of every start that opens a profile.
    public func range(ofBytes needle: String) -> Range<Index>? {
        let bytes = utf8, wanted = Array(needle.utf8)
        guard let first = wanted.first else { return startIndex..<startIndex }
        var from = bytes.startIndex
        while let hit = bytes[from...].firstIndex(of: first) {
            var end = hit, matched = 0
            while matched < wanted.count, end != bytes.endIndex, bytes[end] == wanted[matched] {
                bytes.formIndex(after: &end)
                matched += 1
            }
            if matched == wanted.count, Index(hit, within: self) != nil, Index(end, within: self) != nil { return hit..<end }
            from = bytes.index(after: hit)
        }
        return nil
    }
}

extension Character {
    /// White space within a line: space, tab and the other Unicode spaces, not line breaks.
    public var isBlank: Bool { isWhitespace && !isNewline }
}

/// Bytes read as UTF-8 text, checked: a byte that is not UTF-8 would otherwise be read as U+FFFD, a
/// character other than the one given (a keyword sent, a profile folder named).
public enum UTF8Text {
    /// The line (from 1) and the first byte of the first sequence that is not UTF-8, or nil.
    public static func firstInvalid<Bytes: Collection>(_ bytes: Bytes) -> (line: Int, byte: UInt8)? where Bytes.Element == UInt8, Bytes.Index == Int {
        var line = 1, i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == 0x0A { line += 1 }
            if b < 0x80 { i += 1; continue }
            let length = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0
            guard length > 0, i + length <= bytes.endIndex,
                  String(validating: bytes[i..<(i + length)], as: UTF8.self) != nil else { return (line, b) }
            i += length
        }
        return nil
    }

    /// `0xff`, as messages name a byte.
    public static func hex(_ byte: UInt8) -> String { "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16) }
}

/// Path text, as `/`-separated strings.
public enum PathText {
    /// `path` as an absolute path: a relative one joined to the current folder (an empty string stays empty).
    public static func absolute(_ path: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let folder = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (folder == "/" ? "" : folder) + "/" + path
    }

    /// The folder part: `/a/b` of `/a/b/c` and of `/a/b/c/`; `/` of `/a`; empty for a bare name.
    public static func folder(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let folder = withoutTrailingSlashes(String(trimmed[..<slash]))
        return folder.isEmpty ? "/" : folder
    }

    /// The last component: `c` of `/a/b/c` and of `/a/b/c/`; `/` of `/`.
    public static func name(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        let name = String(trimmed[trimmed.index(after: slash)...])
        return name.isEmpty ? "/" : name
    }

    /// Whether `path` names a directory (following symbolic links).
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
