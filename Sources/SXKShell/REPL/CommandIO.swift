import SXKCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a running command may use: output sinks, terminal facts, the global options and prompts.
public final class CommandIO: @unchecked Sendable {
    /// Data (tables, JSON) — buffered; the runner flushes after each command.
    public let stdout: any OutputSink
    /// Prompts, progress, warnings.
    public let stderr: any OutputSink
    public let terminal: Terminal
    public let options: GlobalOptions
    /// True in the REPL (a person is typing).
    public let isInteractive: Bool
    /// The data this command kept (what `--json` prints), for `$_` and `let`.
    public let data = CommandData()
    let reader: ReaderThread?
    /// Erased and held while a prompt asks.
    let status: StatusLine
    /// The shell's parser, for commands that run a command line of their own (`watch`, `compare`).
    public let parser: CommandParser?
    /// `set expanded|format|pager`, shared by every command of the shell.
    public let display: DisplaySettings

    /// For tests and embedding: prompts read the terminal on the calling thread.
    public convenience init(stdout: any OutputSink, stderr: any OutputSink, terminal: Terminal = .plain,
                            options: GlobalOptions = GlobalOptions(), isInteractive: Bool = false,
                            display: DisplaySettings = DisplaySettings()) {
        self.init(stdout: stdout, stderr: stderr, terminal: terminal, options: options, isInteractive: isInteractive, reader: nil, display: display)
    }

    init(stdout: any OutputSink, stderr: any OutputSink, terminal: Terminal, options: GlobalOptions,
         isInteractive: Bool, reader: ReaderThread?, parser: CommandParser? = nil, status: StatusLine = .disabled,
         display: DisplaySettings) {
        self.display = display
        self.parser = parser
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.terminal = terminal
        self.options = options
        self.isInteractive = isInteractive
        self.reader = reader
    }

    /// The same IO with stdout going to `sink` (prompts, stderr and the parser unchanged).
    public func redirectingStdout(to sink: any OutputSink, terminal: Terminal? = nil) -> CommandIO {
        CommandIO(stdout: sink, stderr: stderr, terminal: terminal ?? self.terminal, options: options,
                  isInteractive: isInteractive, reader: reader, parser: parser, status: status, display: display)
    }

    /// The one paging decision: `command` (the pager the environment names) unless stdout is not a
    /// terminal or one without cursor control (`TERM=dumb`), `--no-pager` was given (globally or on
    /// this command) or `set pager off` is on.
    public func pager(_ command: String?, format: OutputFormat? = nil) -> String? {
        if options.noPager || format?.noPager == true || !display.pager || !terminal.stdoutIsTerminal || !terminal.cursorControl { return nil }
        return command
    }

    public var color: Bool { terminal.colorEnabled && !options.noColor }
    public var errors: ErrorPresenter { ErrorPresenter(sink: stderr, color: terminal.stderrColorEnabled) }
    /// JSON output: pretty when stdout is a terminal, one line otherwise. What it prints is kept as the command's data.
    public var json: JSONOutput { JSONOutput(sink: stdout, pretty: terminal.stdoutIsTerminal, recorder: data) }

    /// Keeps `value` as this command's data (`$_`, `let`) when it prints a table instead of JSON;
    /// it should be what the command prints with `--json`.
    public func keep(_ value: JSONValue) { data.keep(value) }

    public func warning(_ message: String) { errors.warning(message) }

    /// Asks for a line on the terminal (echo on). Nil when there is no terminal or on Ctrl-D.
    /// Throws `CancellationError` on Ctrl-C.
    public func readLine(prompt: String) async throws -> String? {
        if case .answer(let text) = try await readReply(prompt: prompt) { return text }
        return nil
    }
}

/// Reads one line from the controlling terminal, optionally with echo off (termios).
enum TerminalPrompt {
    enum Outcome: Sendable { case answer(String), noTerminal, eof, interrupted }

    /// The question now waiting for its answer: where it was written, and the terminal and mode to
    /// put back when its echo was turned off, so a SIGTERM or SIGHUP that ends the process there
    /// leaves the terminal as it found it (`endOpenQuestion`).
    private struct OpenQuestion: @unchecked Sendable {
        var outFD: Int32
        var terminalFD: Int32
        var saved: termios?
    }
    private static let openQuestion = Mutex<OpenQuestion?>(nil)

    /// Puts back the mode of a question still waiting for its answer and ends its row: what the
    /// user's shell prints next starts on a row of its own, with echo on.
    static func endOpenQuestion() {
        guard let question = openQuestion.withLock({ q -> OpenQuestion? in defer { q = nil }; return q }) else { return }
        if var saved = question.saved { tcsetattr(question.terminalFD, TCSANOW, &saved) }
        writeAll(question.outFD, "\n")
    }

    static func ask(prompt: String, secret: Bool) -> Outcome {
        var fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        var owned = true
        if fd < 0 {
            guard isatty(0) == 1 else { return .noTerminal }
            fd = 0
            owned = false
        }
        defer { if owned { close(fd) } }
        let outFD: Int32 = owned ? fd : 2
        var saved = termios()
        let haveTermios = tcgetattr(fd, &saved) == 0
        // Registered before the echo goes off and cleared after it is back (defers run last first), so a
        // SIGTERM at any point between finds the mode to put back.
        openQuestion.withLock { $0 = OpenQuestion(outFD: outFD, terminalFD: fd, saved: secret && haveTermios ? saved : nil) }
        defer { openQuestion.withLock { $0 = nil } }
        if secret && haveTermios {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ICANON | ECHONL)
            // TCSANOW, not TCSAFLUSH: keys typed ahead of the prompt are the answer, not to be thrown away.
            tcsetattr(fd, TCSANOW, &quiet)
        }
        defer { if secret && haveTermios { tcsetattr(fd, TCSADRAIN, &saved) } }
        // Keys typed before the question showed, while the terminal did not echo (the REPL's line
        // editor had it): the answer's row is ended here (a non-secret answer shown), or the next
        // output would follow the question on its row. Keys a terminal echoed as they came are on the screen.
        var pending: Int32 = 0
        let typedAhead = haveTermios && saved.c_lflag & tcflag_t(ECHO) == 0 && ioctl(fd, UInt(FIONREAD), &pending) == 0 && pending > 0
        var resumesSeen = SignalRouter.resumes.load(ordering: .relaxed)
        writeAll(outFD, fitted(prompt, fd: outFD))
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            // After Ctrl-Z and `fg` the question is asked again on a row of its own: the job-control
            // shell wrote below it, and the terminal dropped the keys of an unfinished line at the stop.
            let n = SignalRouter.readTerminal(fd, &byte, count: 1, resumed: {
                // Only a resume since the question was asked (a wake-up byte left by an earlier one is not).
                let now = SignalRouter.resumes.load(ordering: .relaxed)
                guard now > resumesSeen else { return }
                resumesSeen = now
                writeAll(outFD, "\n" + fitted(prompt, fd: outFD))
            })
            if n < 0 {
                if errno == EINTR {
                    writeAll(outFD, "\n")
                    return .interrupted
                }
                return .eof
            }
            if n == 0 {
                if bytes.isEmpty { writeAll(outFD, "\n") }  // Ctrl-D: what follows starts on its own line
                return bytes.isEmpty ? .eof : .answer(String(decoding: bytes, as: UTF8.self))
            }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        let answer = String(decoding: bytes, as: UTF8.self)
        if typedAhead { writeAll(outFD, (secret ? "" : TerminalText.sanitize(answer)) + "\n") }
        return .answer(answer)
    }

    /// The controlling terminal, open, when this process is in its foreground: a background sxk
    /// must not change the mode of, or drop the keys typed to, the program the user is at.
    private static func foregroundTerminal() -> Int32? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        guard tcgetpgrp(fd) == getpgrp() else { close(fd); return nil }
        return fd
    }

    /// Flushes the terminal's unread input (`CommandIO.discardTypedAhead`).
    static func discardTypedAhead() {
        guard let fd = foregroundTerminal() else { return }
        tcflush(fd, TCIFLUSH)
        close(fd)
    }

    /// Turns the terminal's echo off, keeping line input, until the returned closure runs; nil
    /// without a terminal in the foreground. Keys already typed stay to be read (TCSANOW, no
    /// flush). The restore puts back the echo alone, over whatever mode the terminal has by then.
    static func echoOff() -> (() -> Void)? {
        guard let fd = foregroundTerminal() else { return nil }
        var mode = termios()
        guard tcgetattr(fd, &mode) == 0, mode.c_lflag & tcflag_t(ECHO) != 0 else { close(fd); return nil }
        mode.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(fd, TCSANOW, &mode)
        return {
            var now = termios()
            if tcgetpgrp(fd) == getpgrp(), tcgetattr(fd, &now) == 0 {
                now.c_lflag |= tcflag_t(ECHO)
                tcsetattr(fd, TCSADRAIN, &now)
            }
            close(fd)
        }
    }

    /// A question wider than the terminal wraps at spaces as messages do (`ErrorPresenter.fitted`),
    /// the answer typed after its last row.
    static func fitted(_ prompt: String, fd: Int32) -> String {
        var size = winsize()
        // The answer needs a column after the question: one as wide as the window wraps too.
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, TextWidth.width(prompt) >= Int(size.ws_col) else { return prompt }
        let trailing = prompt.reversed().prefix { $0 == " " }.count
        let cols = Int(size.ws_col)
        var rows = Renderer.wrapped(String(prompt.dropLast(trailing)), width: cols)
        // Only the last row gives up the columns the answer needs.
        if let last = rows.last, TextWidth.width(last) + trailing >= cols {
            rows.removeLast()
            rows += Renderer.wrapped(last, width: max(1, cols - trailing - 1))
        }
        return rows.joined(separator: "\n") + String(repeating: " ", count: trailing)
    }

    static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }
}
