import SXKCore
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
    public static func deliver(_ page: String, to stdout: any OutputSink, stdoutIsTerminal: Bool, command: String?) {
        if let command, stdoutIsTerminal, !page.isEmpty {
            if page.utf8.lazy.filter({ $0 == 0x0A }).count >= Terminal.currentHeight() {
                stdout.flush()
                if run(command: command, text: page) { return }
            }
        }
        stdout.write(page)
    }

    /// Runs the pager on `text`; false when it could not start (the caller prints directly).
    public static func run(command: String, text: String) -> Bool {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return false }
        let readEnd = fds[0], writeEnd = fds[1]
        // The pager gets the pipe as stdin, and stdout and stderr: nothing else sxk holds open.
        Descriptors.markCloseOnExec()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        var pid: pid_t = 0
        let argv = ["/bin/sh", "-c", command]
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, cArgs, environ)
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            return false
        }
        // The pager may quit before reading everything (q in less): EPIPE ends the write, not sxk.
        let bytes = Array(text.utf8)
        var offset = 0
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = write(writeEnd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; break }
                offset += n
            }
        }
        close(writeEnd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // sh answers 127 when the pager's program does not exist: nothing was shown.
        if (status & 0x7F) == 0 && ((status >> 8) & 0xFF) == 127 { return false }
        return true
    }
}

extension CommandIO {
    /// Writes `page` to this command's stdout under the paging rule of `Pager.deliver`.
    public func deliver(_ page: String, pager: String?) {
        Pager.deliver(page, to: stdout, stdoutIsTerminal: terminal.stdoutIsTerminal, command: pager)
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
