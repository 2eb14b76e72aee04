import SXKCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Long output on a terminal goes through a pager: a child (`/bin/sh -c COMMAND`) fed by a pipe.
public enum Pager {
    /// `$SXK_PAGER`, else `$PAGER`, else `less -FRX` (quit at once when it fits, keep colours,
    /// leave the text on the screen).
    public static func command(environment: [String: String]) -> String {
        for name in ["SXK_PAGER", "PAGER"] {
            if let value = environment[name], !value.allSatisfy({ $0 == " " }) { return value }
        }
        return "less -FRX"
    }

    /// The one paging rule for command output and help: `page` goes through `command` when stdout
    /// is a terminal and the page is taller than it, else (or when the pager cannot start) straight
    /// to `stdout`. A nil command never pages (`--no-pager`, `pager off`).
    /// `after`: what would be written to the same terminal right after the page (the note of the
    /// columns hidden, warnings). When the page fits the screen but not with it, `sayAfter` writes it
    /// before the page instead and true is returned: the page's first rows (a table's header) stay on
    /// the screen, with no pager to quit for a page that fits (and `less -F` would quit at once anyway).
    @discardableResult
    public static func deliver(_ page: String, to stdout: any OutputSink, stdoutIsTerminal: Bool, command: String?,
                               after: String = "", sayAfter: () -> Void = {}) -> Bool {
        if stdoutIsTerminal, !page.isEmpty {
            let height = Terminal.currentHeight(), columns = Terminal.currentWidth(environment: [:])
            if let command, rows(page, columns: columns, atLeast: height) >= height {
                stdout.flush()
                if run(command: command, text: page) { return false }
            } else if !after.isEmpty, rows(page + after, columns: columns, atLeast: height) >= height {
                stdout.flush()
                sayAfter()
                stdout.write(page)
                return true
            }
        }
        stdout.write(page)
        return false
    }

    /// Rows `page` takes on a terminal `columns` wide, counted up to `limit`: a line as many rows as
    /// it wraps to, at least one (a colour code takes no column). Lines, not rows, would let a page of
    /// long lines scroll its start away unpaged.
    static func rows(_ page: String, columns: Int, atLeast limit: Int) -> Int {
        scanRows(page, columns: columns) { rows, _ in rows < limit }
    }

    /// The start of `page` that fits in `limit` rows at `columns` (whole lines), and how many lines
    /// are left out; nil when the whole page fits. A `watch` frame taller than the window is cut so
    /// that its header stays on the screen, as watch(1) does.
    static func fitting(_ page: String, columns: Int, rows limit: Int) -> (kept: Substring, linesLeftOut: Int)? {
        var end = page.startIndex
        var fits = true
        let total = scanRows(page, columns: columns) { rows, next in
            if rows <= limit { end = next; return true }
            fits = false
            return false
        }
        if fits && total <= limit { return nil }
        let kept = page[..<end]
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).count - (page.hasSuffix("\n") ? 1 : 0)
        let keptLines = kept.split(separator: "\n", omittingEmptySubsequences: false).count - (kept.isEmpty || kept.hasSuffix("\n") ? 1 : 0)
        return (kept, max(0, lines - keptLines))
    }

    /// Counts `page`'s display rows at `columns`: a line as many rows as it wraps to, at least one; a
    /// colour code or a link takes no column. After each line, `next(rows so far, the index after its
    /// newline)` says whether to go on; the count so far is returned when it says no.
    private static func scanRows(_ page: String, columns: Int, next: (Int, String.Index) -> Bool) -> Int {
        let columns = max(1, columns)
        enum Escape { case none, start, csi, osc, oscEnd }
        var rows = 0, width = 0, escape = Escape.none
        let scalars = page.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            switch escape {
            case .none: break
            case .start:
                // ESC [ starts a CSI, ESC ] an OSC (a title, a link); any other byte ends a two-byte escape.
                escape = scalar == "[" ? .csi : scalar == "]" ? .osc : .none
                continue
            case .csi:
                if scalar.value >= 0x40 && scalar.value <= 0x7E { escape = .none }
                continue
            case .osc:
                // Ended by BEL or by ST (ESC \).
                if scalar == "\u{07}" { escape = .none } else if scalar == "\u{1B}" { escape = .oscEnd }
                continue
            case .oscEnd:
                escape = scalar == "\\" ? .none : .osc
                continue
            }
            switch scalar {
            case "\u{1B}": escape = .start
            case "\n":
                rows += max(1, (width + columns - 1) / columns)
                width = 0
                if !next(rows, index) { return rows }
            case "\r": width -= width % columns  // back to the start of the row it is on
            case "\t": width += 8 - (width % columns) % 8
            default: width += TextWidth.width(of: scalar)
            }
        }
        if width > 0 {
            rows += (width + columns - 1) / columns
            _ = next(rows, index)
        }
        return rows
    }

    /// The pager's environment: sxk's own, with `LESS` as `lessOptions` makes it.
    static func pagerEnvironment() -> [String] {
        var entries: [String] = []
        var index = 0
        var less: String?
        while let entry = environ[index] {
            let text = String(cString: entry)
            if text.hasPrefix("LESS=") { less = String(text.dropFirst(5)) } else { entries.append(text) }
            index += 1
        }
        entries.append("LESS=" + lessOptions(less))
        return entries
    }

    /// less's long options whose value is a string, ended by `$` as a one-letter one's is.
    static let lessStringOptions = ["prompt", "pattern", "tag", "tag-file", "log-file", "lesskey-file", "lesskey-src", "color", "quotes", "rscroll"]

    /// `LESS` for the pager: `FRX` when unset (as git does), so a plain `PAGER=less` shows colours,
    /// quits at once when the text fits and leaves it on the screen. A `LESS` the user set is kept,
    /// with `-R` put first when it does not already pass colour codes (`-R`, `-r` or the long
    /// forms): without it less shows sxk's colours as `ESC[1m` text. First, because an option that
    /// takes a string (`-P` prompt) runs to the end of the value; sxk's own text reaches the pager
    /// sanitized, so only its colours are passed raw.
    static func lessOptions(_ current: String?) -> String {
        guard let current else { return "FRX" }
        // Read as less reads it: letters are options (a dash is optional), a string option's value
        // runs to `$`, a number option's to its last digit.
        var rest = Substring(current)
        while let first = rest.first {
            if first == " " || first == "\t" || first == "-" && !rest.hasPrefix("--") {
                rest = rest.dropFirst()
                continue
            }
            if rest.hasPrefix("--") {
                let word = rest.prefix { $0 != " " && $0 != "\t" && $0 != "=" }
                // As less reads a long name: any start of it that is two letters or more (`--pr`,
                // `--RAW`), in any case when it begins with a capital, else as written in lower case.
                let typed = word.dropFirst(2)
                let name = typed.first?.isUppercase == true ? typed.lowercased() : String(typed)
                func names(_ full: String) -> Bool { name.count >= 2 && full.hasPrefix(name) }
                if names("raw-control-chars") { return current }
                rest = rest.dropFirst(word.count)
                // A string option's value (`--prompt=s Rows$`, `--prompt s Rows$`) runs to `$`, spaces
                // and all; another option's (`--tabs=4`) to the next space.
                if Self.lessStringOptions.contains(where: names) {
                    rest = rest.drop { $0 == "=" || $0 == " " || $0 == "\t" }
                    rest = rest.firstIndex(of: "$").map { rest[rest.index(after: $0)...] } ?? ""
                } else if rest.first == "=" {
                    rest = rest.drop { $0 != " " && $0 != "\t" }
                }
                continue
            }
            if first == "R" || first == "r" { return current }
            rest = rest.dropFirst()
            if first == "+" {
                rest = rest.dropFirst()  // `-+X` puts X back to its default
            } else if "DkoOpPtT\"".contains(first) {
                rest = rest.firstIndex(of: "$").map { rest[rest.index(after: $0)...] } ?? ""
            } else if "bhjxyz#".contains(first) {
                rest = rest.drop { $0.isNumber || $0 == "," || $0 == "." }
            }
        }
        return current.isEmpty ? "-R" : "-R " + current
    }

    /// Runs the pager on `text`; false when it could not start (the caller prints directly).
    public static func run(command: String, text: String) -> Bool {
        guard let pager = start(command: command) else { return false }
        pager.input.write(text)
        return pager.finish()
    }

    /// Starts the pager reading a pipe, for output written as it arrives (`orders --all`).
    public static func start(command: String) -> PagerProcess? {
        guard let (fd, pid) = ShellChild.spawn(command, environment: pagerEnvironment()) else { return nil }
        return PagerProcess(fd: fd, pid: pid)
    }
}

/// A running pager: what is written to `input` reaches it; `finish` closes the pipe and waits.
/// The pager may quit before reading everything (q in less): EPIPE ends the writes, not sxk.
public final class PagerProcess: @unchecked Sendable {
    public let input: StandardOutput
    private let fd: Int32
    private let pid: pid_t
    private let finished = Atomic<Bool>(false)
    /// Pagers started and not yet waited for. While one runs it owns the terminal: an interrupted
    /// command is waited for until it ends (`RunningCommand`), never left behind it at a prompt.
    static let running = Atomic<Int>(0)
    public static var isRunning: Bool { running.load(ordering: .sequentiallyConsistent) > 0 }
    /// The pagers' process ids, for `endAll` (a shell ended by SIGTERM takes its pager with it).
    private static let pids = Mutex<Set<pid_t>>([])

    init(fd: Int32, pid: pid_t) {
        self.fd = fd
        self.pid = pid
        input = StandardOutput(fd: fd)
        PagerProcess.running.add(1, ordering: .sequentiallyConsistent)
        _ = PagerProcess.pids.withLock { $0.insert(pid) }
    }

    /// Ends every pager still running (SIGTERM, which less answers by putting the terminal back) and
    /// waits up to a second for them: a shell that leaves must not leave a pager reading its terminal.
    public static func endAll() {
        let running = pids.withLock { $0 }
        // The shell that runs the pager may not exec it: its children (less itself) first, and they
        // are waited for too (the shell dies at once; less, putting the terminal back, takes a moment
        // that the terminal's hang-up at sxk's exit must not cut short).
        var descendants: [pid_t] = []
        for pid in running {
            let children = children(of: pid)
            for child in children { kill(child, SIGTERM) }
            kill(pid, SIGTERM)
            descendants += children
        }
        var waiting = Set(running)
        for _ in 0..<100 {
            for pid in waiting {
                var status: Int32 = 0
                let done = waitpid(pid, &status, WNOHANG)
                if done == pid || (done < 0 && errno == ECHILD) { waiting.remove(pid) }
            }
            descendants.removeAll { !isRunning($0) }
            if waiting.isEmpty && descendants.isEmpty { return }
            usleep(10_000)
        }
    }

    /// Whether `pid` is a process that has not ended (a zombie has; none where there is no /proc).
    static func isRunning(_ pid: pid_t) -> Bool {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard case .bytes(let bytes) = FileBytes.readAll(fd, sizeHint: 512, limit: 4096),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return false }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        return fields.first.map { !$0.elementsEqual("Z".utf8) && !$0.elementsEqual("X".utf8) } ?? false
    }

    /// The processes whose parent is `pid` (from /proc; none where there is no /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var out: [pid_t] = []
        while let entry = readdir(dir) {
            guard let child = pid_t(String(decoding: DirectoryEntry.name(entry), as: UTF8.self)) else { continue }
            let fd = open("/proc/\(child)/stat", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard case .bytes(let bytes) = FileBytes.readAll(fd, sizeHint: 512, limit: 4096),
                  let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { continue }
            // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so after the last `)`.
            let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
            if fields.count > 1, pid_t(String(decoding: fields[1], as: UTF8.self)) == pid { out.append(child) }
        }
        return out
    }

    /// Flushes, closes and waits; false when sh answered 127 (the pager's program does not exist:
    /// nothing was shown).
    public func finish() -> Bool {
        guard !finished.exchange(true, ordering: .sequentiallyConsistent) else { return true }
        input.flush()
        close(fd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        _ = PagerProcess.pids.withLock { $0.remove(pid) }
        PagerProcess.running.subtract(1, ordering: .sequentiallyConsistent)
        return !((status & 0x7F) == 0 && ((status >> 8) & 0xFF) == 127)
    }
}

extension CommandIO {
    /// Writes `page` to this command's stdout under the paging rule of `Pager.deliver`; `after` is
    /// counted only when stderr shares the screen. True when `sayAfter` ran, before the page.
    @discardableResult
    public func deliver(_ page: String, pager: String?, after: String = "", sayAfter: () -> Void = {}) -> Bool {
        Pager.deliver(page, to: stdout, stdoutIsTerminal: terminal.stdoutIsTerminal, command: pager,
                      after: terminal.stderrIsTerminal ? after : "", sayAfter: sayAfter)
    }
}

extension Terminal {
    /// Rows of the output terminal (TIOCGWINSZ on stdout, stderr, stdin; `LINES`; 24).
    public static func currentHeight() -> Int {
        for fd: Int32 in [1, 2, 0] {
            var ws = winsize()
            if ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_row > 0 { return Int(ws.ws_row) }
        }
        if let env = getenv("LINES"), let rows = Int(String(cString: env)), rows > 0 { return rows }
        return 24
    }
}
