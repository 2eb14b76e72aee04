#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SXKCore

/// The startup file (`sxkrc`) read safely: a file another user could have written is refused,
/// and opening never blocks on a FIFO or device.
public enum StartupFile {
    enum Outcome: Equatable {
        /// No file: nothing to run.
        case missing
        /// The file exists but is not run; the reason is one line for a warning.
        case refused(String)
        /// Commands with the number of the line each starts on (`\` at the end joins the next line).
        case lines([Line])
    }

    struct Line: Equatable {
        var number: Int
        var text: String
    }

    static let maxBytes = 1 << 20

    static func load(_ path: String) -> Outcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            return .refused("cannot open it: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .refused("cannot stat it: \(String(cString: strerror(errno)))") }
        if let reason = refusal(st, path: path) { return .refused(reason) }
        guard Int(st.st_size) <= maxBytes else { return .refused("it is larger than 1 MB") }
        switch FileBytes.readAll(fd, sizeHint: Int(st.st_size), limit: maxBytes) {
        case .bytes(let bytes): return .lines(split(String(decoding: bytes, as: UTF8.self)))
        case .tooLarge: return .refused("it is larger than 1 MB")
        case .failed(let code): return .refused("cannot read it: \(String(cString: strerror(code)))")
        }
    }

    /// The value of a `persist SECONDS` line: a setting for one-shots (which run no startup file)
    /// that the REPL skips. nil without such a line, or when the file is missing or refused.
    public static func persistSetting(_ path: String) -> String? {
        guard case .lines(let lines) = load(path) else { return nil }
        return lines.compactMap(persistValue).last
    }

    /// What follows `persist` on a `persist SECONDS` line (a `#` comment after it left out; empty
    /// when nothing does, for the reader to refuse), nil for any other line.
    static func persistValue(_ line: Line) -> String? {
        var words = line.text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if let comment = words.firstIndex(where: { $0.hasPrefix("#") }) { words.removeSubrange(comment...) }
        guard words.first == "persist" else { return nil }
        return words.dropFirst().joined(separator: " ")
    }

    /// Why a file the shell takes settings or commands from (sxkrc, the saved display settings) is
    /// not to be trusted, or nil: not a regular file, another user's, writable by others, or in a
    /// folder someone else can replace it in.
    static func refusal(_ st: stat, path: String) -> String? {
        guard (st.st_mode & S_IFMT) == S_IFREG else { return "it is not a regular file" }
        guard st.st_uid == geteuid() else { return "it is owned by uid \(st.st_uid), not by you (uid \(geteuid()))" }
        let mode = st.st_mode & 0o777
        guard mode & 0o022 == 0 else {
            return "others can write it (mode \(String(mode, radix: 8))); fix with: chmod go-w \(path)"
        }
        return unsafeFolder(above: path)
    }

    /// Why a folder above the file (its real path, up to /) lets someone else replace it, or nil:
    /// one others can write without the sticky bit, or one owned by a user other than you or root.
    static func unsafeFolder(above path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return "cannot resolve its path: \(String(cString: strerror(errno)))" }
        var dir = String(cString: resolved)
        free(resolved)
        while dir != "/" {
            if let slash = dir.lastIndex(of: "/") { dir = slash == dir.startIndex ? "/" : String(dir[..<slash]) } else { return nil }
            var st = stat()
            guard stat(dir, &st) == 0 else { return "cannot inspect the folder \(dir): \(String(cString: strerror(errno)))" }
            if st.st_uid != 0 && st.st_uid != geteuid() {
                return "the folder \(dir) is owned by uid \(st.st_uid), not by you (uid \(geteuid())) or root"
            }
            let mode = st.st_mode & 0o7777
            if mode & 0o022 != 0 && mode & S_ISVTX == 0 {
                return "others can write the folder \(dir) (mode \(String(mode, radix: 8))); fix with: chmod go-w \(dir)"
            }
        }
        return nil
    }

    /// Physical lines joined into commands by `LineJoiner` (a `\` at the end, an open quote);
    /// blank lines dropped. Each command keeps the number of the line it starts on. A byte-order
    /// mark an editor put first is not part of the first command.
    static func split(_ text: String) -> [Line] {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        var out: [Line] = []
        var joiner = LineJoiner()
        var start = 0
        var number = 0
        func keep(_ whole: String) {
            if !whole.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" }) { out.append(Line(number: start, text: whole)) }
        }
        // Split on bytes: "\r\n" is one Character, so a Character split would miss it.
        for raw in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            var line = String(decoding: raw, as: UTF8.self)
            if line.hasSuffix("\r") { line.removeLast() }
            if !joiner.isPending { start = number }
            if let whole = joiner.add(line) { keep(whole) }
        }
        if let pending = joiner.finish() { keep(pending) }
        return out
    }
}
