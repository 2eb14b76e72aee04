import FoundationEssentials
import SXKCore
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The rules of the "waiting for …" line, as plain state: no I/O and no clock of its own (times are
/// passed in, in nanoseconds), so start, finish, concurrency and erasing can be tested with made-up times.
/// Every mutating call answers the bytes to write to the terminal, or nil.
public struct StatusLineState: Sendable {
    /// Carriage return and erase to the end of the line: leaves the cursor at column 0 of an empty line.
    public static let erase = "\r\u{1B}[K"
    /// A request running shorter than this shows nothing (a quick answer never flickers).
    public var threshold: UInt64 = 300_000_000
    /// What is on the screen now, nil when nothing is.
    public private(set) var shown: String?
    /// Whether output written so far ended a line: the status is drawn only there, so `\r` never erases
    /// someone's unfinished line (the `orders --all` progress line, a prompt).
    public private(set) var atLineStart = true
    /// The line shows only while a command runs, never while the prompt is being edited.
    public private(set) var commandRunning = false
    private var held = 0
    /// Running requests, oldest first.
    private var waiting: [(id: UInt64, label: String, since: UInt64)] = []

    public init() {}

    public var hasWaiting: Bool { !waiting.isEmpty }

    public mutating func begin(id: UInt64, label: String, at now: UInt64) {
        waiting.append((id, TerminalText.sanitize(label), now))
    }

    /// Erases the line when the last running request ends.
    public mutating func end(id: UInt64) -> String? {
        waiting.removeAll { $0.id == id }
        return waiting.isEmpty ? hide() : nil
    }

    /// The oldest running request, how many others run beside it, and how long it has run, once it
    /// has run past the threshold: `waiting for GET /api/app/v9/userinfo +1 … 1.2s`.
    public func text(now: UInt64, width: Int = 80) -> String? {
        guard let oldest = waiting.first, now >= oldest.since, now - oldest.since >= threshold else { return nil }
        let tenths = (now - oldest.since) / 100_000_000
        let tail = " … \(tenths / 10).\(tenths % 10)s"
        let head = "waiting for " + oldest.label + (waiting.count > 1 ? " +\(waiting.count - 1)" : "")
        // One column short of the width: a line that fills the last column wraps on some terminals,
        // and `\r` would then erase only the second half.
        return Self.clip(head, columns: width - 1 - TextWidth.width(tail)) + tail
    }

    /// Draws, updates or erases the line for the time `now`.
    public mutating func refresh(now: UInt64, width: Int) -> String? {
        guard commandRunning, held == 0, atLineStart, let text = text(now: now, width: width) else { return hide() }
        if text == shown { return nil }
        shown = text
        return Self.erase + text
    }

    /// Before anything else reaches the terminal: the line goes first.
    public mutating func beforeOutput() -> String? { hide() }

    /// After output reached the terminal: whether it ended a line.
    public mutating func afterOutput(endsLine: Bool) { atLineStart = endsLine }

    /// A command starts; the line the user typed has ended (libedit wrote the newline).
    public mutating func commandStarted() {
        commandRunning = true
        atLineStart = true
    }

    public mutating func commandEnded() -> String? {
        commandRunning = false
        return hide()
    }

    /// A prompt is asked (password, account choice): nothing drawn over it until `release`.
    public mutating func hold() -> String? {
        held += 1
        return hide()
    }

    /// The prompt's answer ended with Enter, so output continues on a new line.
    public mutating func release() {
        held = max(0, held - 1)
        atLineStart = true
    }

    private mutating func hide() -> String? {
        guard shown != nil else { return nil }
        shown = nil
        return Self.erase
    }

    static func clip(_ s: String, columns: Int) -> String {
        if TextWidth.width(s) <= columns { return s }
        var out = String.UnicodeScalarView()
        var used = 0
        for scalar in s.unicodeScalars {
            let w = TextWidth.width(of: scalar)
            if used + w > columns - 1 { break }
            out.append(scalar)
            used += w
        }
        return columns > 0 ? String(out) + "…" : ""
    }
}

/// The one status line of the process, on stderr when it is a terminal: requests in flight report to it
/// (`requestStarted` / `requestFinished`, from any thread), the shell says when a command runs and when
/// a prompt asks, and `StandardOutput` erases it before writing (`output`). While requests run past the
/// threshold a timer redraws the elapsed time every 100 ms. Disabled, every call returns at once.
public final class StatusLine: @unchecked Sendable {
    public let isEnabled: Bool
    private let fd: Int32
    private let width: @Sendable () -> Int
    private let clock: @Sendable () -> UInt64
    private let lock = Lock()
    private var state = StatusLineState()
    private var timer: DispatchSourceTimer?
    private let queue = DispatchQueue(label: "sxk.status-line")
    private let interval: DispatchTimeInterval

    /// A status line that never shows (pipes, scripts, tests).
    public static let disabled = StatusLine(enabled: false)

    public init(enabled: Bool, fd: Int32 = 2,
                width: @escaping @Sendable () -> Int = { Terminal.currentWidth(environment: [:]) },
                clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds },
                interval: DispatchTimeInterval = .milliseconds(100)) {
        self.isEnabled = enabled
        self.interval = interval
        self.fd = fd
        self.width = width
        self.clock = clock
    }

    /// Shown only when stderr is a terminal, and not for scripts or commands piped into stdin,
    /// whose output is read later or by a program.
    public static func wanted(terminal: Terminal, mode: RunMode) -> Bool {
        guard terminal.stderrIsTerminal, terminal.cursorControl else { return false }
        switch mode {
        case .repl, .oneShot, .commands: return true
        case .script, .stdin: return false
        }
    }

    // Requests report on the line's own serial queue, never under the caller: `lock` is held across
    // terminal writes, and a terminal stopped with Ctrl-S would otherwise hold every request thread too.
    // The queue also orders a request's end before any later redraw (the timer runs on it).
    public func requestStarted(id: UInt64, label: String) {
        guard isEnabled else { return }
        let now = clock()
        queue.async { [self] in
            lock.withLock {
                state.begin(id: id, label: label, at: now)
                startTimerIfNeeded()
            }
        }
    }

    public func requestFinished(id: UInt64) {
        guard isEnabled else { return }
        queue.async { [self] in lock.withLock { emit(state.end(id: id)) } }
    }

    /// Waits until the reports posted so far are applied (tests, and before the process ends).
    func settle() {
        guard isEnabled else { return }
        queue.sync {}
    }

    func commandStarted() {
        guard isEnabled else { return }
        lock.withLock {
            state.commandStarted()
            startTimerIfNeeded()
        }
    }

    func commandEnded() {
        guard isEnabled else { return }
        lock.withLock { emit(state.commandEnded()) }
    }

    /// Runs `body` (a prompt on the terminal) with the line erased and not drawn.
    func holding<T>(_ body: () async throws -> T) async rethrows -> T {
        guard isEnabled else { return try await body() }
        lock.withLock { emit(state.hold()) }
        defer { lock.withLock { state.release() } }
        return try await body()
    }

    /// Erases the line now (the process is about to end).
    func clear() {
        guard isEnabled else { return }
        settle()
        lock.withLock { emit(state.beforeOutput()) }
    }

    /// Writes terminal output through `write` with the line erased first; under the lock, so a
    /// redraw cannot land between the erase and the output.
    func output(endsLine: Bool, _ write: () -> Void) {
        guard isEnabled else { return write() }
        lock.withLock {
            emit(state.beforeOutput())
            write()
            state.afterOutput(endsLine: endsLine)
        }
    }

    // Called with the lock held.
    private func startTimerIfNeeded() {
        guard timer == nil, state.commandRunning, state.hasWaiting else { return }
        let t = DispatchSource.makeTimerSource(queue: queue)
        t.schedule(deadline: .now() + interval, repeating: interval)
        t.setEventHandler { [weak self] in self?.tick() }
        timer = t
        t.resume()
    }

    /// One redraw (the timer's; tests call it with their own clock).
    func tick() {
        // While a pager shows the output it owns the screen: nothing is drawn over it (nor erased
        // from its last row); the line comes back once it quits, if the command still waits.
        if PagerProcess.isRunning { return }
        // A job in the background draws nothing on the terminal of the program in front.
        if isatty(fd) == 1, !Self.inForeground(fd) { return }
        let now = clock()
        let columns = width()
        lock.withLock {
            emit(state.refresh(now: now, width: columns))
            if !state.hasWaiting || !state.commandRunning {
                timer?.cancel()
                timer = nil
            }
        }
    }

    // Called with the lock held. While the line shows, the terminal does not echo what is typed
    // ahead: the echo would move the cursor off the line's row, and its erase would then clear the
    // wrong row and leave the line on the screen. What is typed stays in the terminal's input and
    // the next prompt reads and shows it; a prompt in the command (`hold`) and the
    // command's end erase the line first, so they find the echo back.
    private func emit(_ text: String?) {
        if let text {
            if state.shown != nil { holdEcho() }
            TerminalPrompt.writeAll(fd, text)
        }
        if state.shown == nil { releaseEcho() }
    }

    /// The echo bits taken off the terminal while the line shows (nil: none taken).
    private var echoHeld: tcflag_t?

    /// Whether this process is in its terminal's foreground: a job in the background (`sxk … &`)
    /// leaves the terminal's modes, and its screen, to the program in front.
    private static func inForeground(_ fd: Int32) -> Bool { tcgetpgrp(fd) == getpgrp() }

    private func holdEcho() {
        // The status thread blocks SIGTTOU, so a background `tcsetattr` would go through.
        guard echoHeld == nil, isatty(0) == 1, Self.inForeground(0) else { return }
        var mode = termios()
        guard tcgetattr(0, &mode) == 0 else { return }
        let bits = mode.c_lflag & tcflag_t(ECHO | ECHONL)
        guard bits != 0 else { return }
        mode.c_lflag &= ~bits
        // TCSANOW, not TCSAFLUSH: what was typed ahead stays to be read.
        if tcsetattr(0, TCSANOW, &mode) == 0 { echoHeld = bits }
    }

    private func releaseEcho() {
        guard let bits = echoHeld else { return }
        echoHeld = nil
        // Not in front any more: the terminal's mode is the program's in front now.
        guard Self.inForeground(0) else { return }
        var mode = termios()
        guard tcgetattr(0, &mode) == 0 else { return }
        mode.c_lflag |= bits
        tcsetattr(0, TCSANOW, &mode)
    }
}
