import CPTY
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program running in a pseudo-terminal: type keys, wait for text on the screen, get its status.
final class PTYSession {
    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var master: Int32
    let pid: pid_t
    private(set) var raw: [UInt8] = []
    /// Offset in `screen` after the last match; `expect` searches from here.
    private var consumed = 0
    private var exitStatus: Int32?
    /// The signal that ended the process, when it did not exit by itself (exit status is then 128 + it).
    private(set) var killedBySignal: Int32?

    init(executable: String, arguments: [String], environment: [String: String], rows: UInt16 = 30, columns: UInt16 = 100) throws {
        var slave = [CChar](repeating: 0, count: 256)
        let fd = cpty_open_master(&slave, Int32(slave.count))
        guard fd >= 0 else { throw Timeout(description: "cannot open a pty: \(String(cString: strerror(errno)))") }
        _ = cpty_set_window_size(fd, rows, columns)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = cpty_spawn(executable, argv, envp, slave, &child)
        guard rc == 0 else {
            close(fd)
            throw Timeout(description: "cannot spawn \(executable): \(String(cString: strerror(rc)))")
        }
        master = fd
        pid = child
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if master >= 0 { close(master) }
    }

    /// Resizes the window as a terminal emulator does (the kernel sends SIGWINCH to the foreground group).
    func resize(rows: UInt16, columns: UInt16) {
        _ = cpty_set_window_size(master, rows, columns)
    }

    /// Closes the terminal as a closed window would: the kernel sends SIGHUP to the session leader.
    func hangUp() {
        if master >= 0 { close(master) }
        master = -1
    }

    /// Everything shown so far with escape sequences and carriage returns removed.
    var screen: String { Self.strip(raw) }

    /// `text` with the messages sxk wrapped to the terminal's width (each row after the first
    /// indented two) put back on one line, for a test about what a message says, not its layout.
    static func unwrapped(_ text: String) -> String { text.replacingOccurrences(of: "\n  ", with: " ") }

    func send(_ keys: String) {
        var bytes = Array(keys.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress! + off, $0.count - off) }
            if n < 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }

    /// Waits until `text` shows up after the previous match; returns the screen text up to it.
    @discardableResult
    func expect(_ text: String, timeout: TimeInterval = 10) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let s = screen
            let start = s.utf8.index(s.utf8.startIndex, offsetBy: min(consumed, s.utf8.count))
            if let range = s[start...].range(of: text) {
                let seen = String(s[start..<range.upperBound])
                consumed = s.utf8.distance(from: s.utf8.startIndex, to: range.upperBound)
                return seen
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 || !pump(until: deadline) {
                if remaining <= 0 || exitStatus != nil {
                    throw Timeout(description: "did not see \(text.debugDescription) within \(timeout)s; screen after last match:\n\(String(s[start...]))")
                }
            }
        }
    }

    /// Waits until the bytes written so far (escape sequences and all) hold `text`.
    func expectRaw(_ text: String, timeout: TimeInterval = 10) throws {
        let needle = Array(text.utf8)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if raw.count >= needle.count, (0...(raw.count - needle.count)).contains(where: { raw[$0..<($0 + needle.count)].elementsEqual(needle) }) { return }
            if Date() > deadline { throw Timeout(description: "did not see \(text.debugDescription) in the raw output within \(timeout)s") }
            pump(until: deadline)
        }
    }

    /// Waits until the bytes written since `start` (escape sequences and all) match `pattern`.
    func expectRaw(matching pattern: String, after start: Int, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if String(decoding: raw[min(start, raw.count)...], as: UTF8.self).range(of: pattern, options: .regularExpression) != nil { return }
            if Date() > deadline { throw Timeout(description: "did not see /\(pattern)/ in the raw output within \(timeout)s") }
            pump(until: deadline)
        }
    }

    /// Reads what is available, waiting at most until `deadline`. False at end of output.
    @discardableResult
    private func pump(until deadline: Date) -> Bool {
        guard master >= 0 else {
            usleep(UInt32(max(0, min(0.05, deadline.timeIntervalSinceNow)) * 1_000_000))
            return false
        }
        let ms = max(0, Int32(deadline.timeIntervalSinceNow * 1000))
        var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, min(ms, 100))
        if ready <= 0 { return ready == 0 || errno == EINTR }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        if n > 0 {
            raw.append(contentsOf: buffer[0..<n])
            return true
        }
        return false
    }

    /// Waits until the line editor has put the terminal in raw mode (ICANON off), so keys such as
    /// Ctrl-D reach it instead of the kernel's line discipline. The master reports the slave's termios.
    func waitForEditor(timeout: TimeInterval = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var t = termios()
        while Date() < deadline {
            if tcgetattr(master, &t) == 0 && (t.c_lflag & tcflag_t(ICANON)) == 0 { return }
            pump(until: Date().addingTimeInterval(0.01))
        }
        throw Timeout(description: "the terminal never left canonical mode")
    }

    /// Waits for the program to end (draining its output) and returns its exit status.
    func waitForExit(timeout: TimeInterval = 10) throws -> Int32 {
        if let exitStatus { return exitStatus }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid {
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                if (status & 0x7f) != 0 { killedBySignal = status & 0x7f }
                exitStatus = code
                while master >= 0 && pump(until: Date().addingTimeInterval(0.05)) && Date() < deadline {
                    if Self.available(master) == false { break }
                }
                return code
            }
            pump(until: Date().addingTimeInterval(0.05))
        }
        throw Timeout(description: "process \(pid) did not exit within \(timeout)s; screen:\n\(screen)")
    }

    private static func available(_ fd: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0 && (pfd.revents & Int16(POLLIN)) != 0
    }

    /// Removes CSI/OSC escape sequences, carriage returns, bells and the EL_PROMPT_ESC marker.
    static func strip(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B {
                i += 1
                guard i < bytes.count else { break }
                if bytes[i] == UInt8(ascii: "[") {
                    i += 1
                    while i < bytes.count && !(0x40...0x7E).contains(bytes[i]) { i += 1 }
                    i += 1
                } else if bytes[i] == UInt8(ascii: "]") {
                    while i < bytes.count && bytes[i] != 0x07 && bytes[i] != 0x1B { i += 1 }
                    i += 1
                } else {
                    i += 1
                }
                continue
            }
            if b == 0x0D || b == 0x07 || b == 0x01 || b == 0x08 { i += 1; continue }
            out.append(b)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
