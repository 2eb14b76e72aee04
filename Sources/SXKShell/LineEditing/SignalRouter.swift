#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Turns SIGINT/SIGTERM/SIGHUP/SIGQUIT into bytes on a self-pipe (the only async-signal-safe way out of a
/// handler). The signals are blocked on the shell's thread, the threads it starts and the signal
/// watcher's; one that lands on another thread is forwarded to the line-reading thread, so a blocking
/// read there fails with EINTR (no SA_RESTART) and the prompt can clear its line.
enum SignalRouter {
    /// Byte written for SIGINT while a command runs (`I`), at a prompt (`i`), SIGTERM (`T`), SIGHUP (`H`),
    /// SIGQUIT (`Q`: Ctrl-\\ ends the shell as SIGTERM does, its state saved, not by a core dump).
    static let commandActive = Atomic<Bool>(false)
    static let readerThread = Atomic<UInt>(0)
    static let pipeWrite = Atomic<Int32>(-1)
    static let interrupts = Atomic<Int>(0)
    /// The wake-up pipe of terminal reads: `W` after SIGWINCH, `i` for every Ctrl-C. The line editor
    /// and prompts poll its read end beside the terminal, so the editor redraws on its own thread and
    /// a Ctrl-C that lands just before a read starts still ends it. Drained at each editor prompt.
    static let editorWakeRead = Atomic<Int32>(-1)
    static let editorWakeWrite = Atomic<Int32>(-1)

    /// Blocks the routed signals on the calling thread (inherited by threads it creates later).
    static func blockOnThisThread() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Makes the calling thread the one that receives the routed signals: they are its only
    /// unblocked ones but for a fault's (`setShellThreadMask`).
    static func becomeReceiver() {
        readerThread.store(currentThreadID(), ordering: .sequentiallyConsistent)
        setShellThreadMask(receiving: true)
    }

    /// The whole mask of one of the shell's own threads, whatever thread made it: every signal blocked
    /// but a fault's (so a crash is still reported), and the routed ones too on the receiver. Ctrl-Z
    /// and any other signal go to the main thread, which waits with none blocked (`Sources/sxk/main.swift`).
    static func setShellThreadMask(receiving: Bool) {
        var set = sigset_t()
        sigfillset(&set)
        for s in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS] { sigdelset(&set, s) }
        if receiving { for s in routed { sigdelset(&set, s) } }
        pthread_sigmask(SIG_SETMASK, &set, nil)
    }

    /// The signals routed to the reader thread (never read from a handler).
    private static let routed: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH]

    static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in routed { sigaddset(&set, s) }
        return set
    }

    /// Creates the pipe and installs the handlers. Returns the read end. `keepingIgnored`: a signal
    /// ignored when the process started stays ignored, as a non-interactive program leaves it (`nohup`
    /// ignores SIGHUP, a shell's background job SIGINT); an interactive shell takes them whatever.
    static func install(keepingIgnored: Bool = false) -> Int32 {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        // Touch every global before a handler can run (their lazy initialisation is not signal-safe).
        _ = commandActive.load(ordering: .relaxed)
        _ = readerThread.load(ordering: .relaxed)
        _ = interrupts.load(ordering: .relaxed)
        pipeWrite.store(fds[1], ordering: .sequentiallyConsistent)
        var wake: [Int32] = [-1, -1]
        if pipe(&wake) == 0 {
            for fd in wake {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            }
            editorWakeRead.store(wake[0], ordering: .sequentiallyConsistent)
            editorWakeWrite.store(wake[1], ordering: .sequentiallyConsistent)
        }

        // No SA_RESTART: a blocked read returns EINTR.
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            if keepingIgnored && ignoredAtStart(sig) {
                keptIgnoredMask.bitwiseOr(1 << sig, ordering: .sequentiallyConsistent)
            } else {
                setAction(sig, signalHandler, restart: false)
            }
        }
        // SIGWINCH: SA_RESTART, so a resize never breaks a read elsewhere (a password prompt); the
        // editor's poll still wakes on the pipe.
        setAction(SIGWINCH, resizeHandler, restart: true)
        signal(SIGPIPE, SIG_IGN)
        installStopHandler()
        return fds[0]
    }

    /// The signals left ignored at the start (`install(keepingIgnored:)`), one bit each.
    private static let keptIgnoredMask = Atomic<Int>(0)

    /// Whether `sig` was left ignored at the start: a child sxk starts keeps it ignored too.
    static func keptIgnored(_ sig: Int32) -> Bool { keptIgnoredMask.load(ordering: .sequentiallyConsistent) & (1 << sig) != 0 }

    /// Whether `sig` is ignored now (SIG_IGN, inherited through exec).
    static func ignoredAtStart(_ sig: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(sig, nil, &current) == 0 else { return false }
        #if canImport(Glibc)
        let handler = current.__sigaction_handler.sa_handler
        #else
        let handler = current.__sigaction_u.__sa_handler
        #endif
        // SIG_DFL is a null handler, SIG_IGN the address 1.
        guard let handler else { return false }
        return unsafeBitCast(handler, to: Int.self) == 1
    }

    /// The one place a handler is set: `handler` for `sig`, no other signal blocked while it runs;
    /// `restart` is SA_RESTART. Async-signal-safe (the stop handler calls it).
    static func setAction(_ sig: Int32, _ handler: (@convention(c) (Int32) -> Void)?, restart: Bool,
                          previous: UnsafeMutablePointer<sigaction>? = nil) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = restart ? Int32(SA_RESTART) : 0
        sigaction(sig, &action, previous)
    }

    /// The terminal mode at start, put back while the process is stopped by Ctrl-Z.
    nonisolated(unsafe) static var startTermios = termios()
    static let haveStartTermios = Atomic<Bool>(false)

    /// Ctrl-Z (SIGTSTP): the terminal goes back to the mode it had at start while stopped, and to the
    /// line editor's mode on `fg` (libedit did this itself before its signal handling was turned off).
    /// SA_RESTART: the editor's read simply goes on with the line as it was.
    static func installStopHandler() {
        haveStartTermios.store(tcgetattr(0, &startTermios) == 0, ordering: .sequentiallyConsistent)
        _ = continued.load(ordering: .relaxed)
        setAction(SIGCONT, continueHandler, restart: true)
        setAction(SIGTSTP, stopHandler, restart: true)
    }

    /// Set when SIGCONT arrives: the stop handler redraws only after a real stop and `fg` (a stop the
    /// kernel discards, in a session leader's orphaned group, changes nothing on the screen).
    static let continued = Atomic<Bool>(false)
    /// How many times the process was resumed after a Ctrl-Z (`fg`): a reader that began after the last
    /// one tells a stale wake-up byte from a resume of its own.
    static let resumes = Atomic<Int>(0)
}

extension SignalRouter {
    enum Wakeup { case none, resize, resumed, interrupt }

    /// Reads every byte waiting on the wake-up pipe; Ctrl-C wins over a resume (`fg`), which wins
    /// over a resize.
    @discardableResult
    static func takeWakeups() -> Wakeup {
        let fd = editorWakeRead.load(ordering: .relaxed)
        guard fd >= 0 else { return .none }
        var result = Wakeup.none
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return result }
            for byte in buffer[0..<n] {
                if byte == UInt8(ascii: "i") {
                    result = .interrupt
                } else if byte == UInt8(ascii: "C") {
                    if result != .interrupt { result = .resumed }
                } else if result == .none {
                    result = .resize
                }
            }
        }
    }

    /// Up to `count` bytes from the terminal for a prompt, given up on Ctrl-C even when it came just
    /// before the read began (its byte waits on the wake-up pipe): then -1 with errno EINTR, as an
    /// interrupted read. A resize does not end it; `resumed` runs after a Ctrl-Z and `fg`.
    static func readTerminal(_ fd: Int32, _ bytes: UnsafeMutableRawPointer, count: Int, resumed: (() -> Void)? = nil) -> Int {
        let wake = editorWakeRead.load(ordering: .relaxed)
        guard wake >= 0 else { return read(fd, bytes, count) }
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return -1
            }
            // A wake-up pipe in error (never closed in the shell; a test's may be) is left out, not
            // polled again at once for ever.
            if fds[1].revents & Int16(POLLNVAL | POLLERR | POLLHUP) != 0 { return read(fd, bytes, count) }
            if fds[1].revents != 0 {
                switch takeWakeups() {
                case .interrupt:
                    errno = EINTR
                    return -1
                case .resumed: resumed?()
                case .resize, .none: break
                }
            }
            guard fds[0].revents != 0 else { continue }
            let n = read(fd, bytes, count)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            return n
        }
    }
}

/// Only async-signal-safe calls: tcgetattr/tcsetattr, sigaction, sigprocmask, raise, write.
private let stopHandler: @convention(c) (Int32) -> Void = { _ in
    let saved = errno
    defer { errno = saved }
    var editing = termios()
    let haveEditing = tcgetattr(0, &editing) == 0
    if haveEditing && SignalRouter.haveStartTermios.load(ordering: .relaxed) {
        var start = SignalRouter.startTermios
        tcsetattr(0, TCSADRAIN, &start)
    }
    // Stop for real: default action, unblocked (a handler runs with its own signal blocked).
    var previous = sigaction()
    SignalRouter.setAction(SIGTSTP, SIG_DFL, restart: false, previous: &previous)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGTSTP)
    var oldMask = sigset_t()
    pthread_sigmask(SIG_UNBLOCK, &set, &oldMask)
    SignalRouter.continued.store(false, ordering: .relaxed)
    raise(SIGTSTP)  // the process stops here (in an orphaned process group the kernel discards it)
    pthread_sigmask(SIG_SETMASK, &oldMask, nil)
    sigaction(SIGTSTP, &previous, nil)
    if haveEditing { tcsetattr(0, TCSADRAIN, &editing) }
    // Resumed (`fg`): the job-control shell wrote below the line, so the editor draws prompt and
    // line again where the cursor now is (a byte on its wake-up pipe, as a resize does).
    guard SignalRouter.continued.load(ordering: .relaxed) else { return }
    SignalRouter.resumes.add(1, ordering: .relaxed)
    var byte = UInt8(ascii: "C")
    let wake = SignalRouter.editorWakeWrite.load(ordering: .relaxed)
    if wake >= 0 { _ = write(wake, &byte, 1) }
}

private let continueHandler: @convention(c) (Int32) -> Void = { _ in
    SignalRouter.continued.store(true, ordering: .relaxed)
}

private let signalHandler: @convention(c) (Int32) -> Void = { sig in
    let saved = errno
    defer { errno = saved }
    let reader = SignalRouter.readerThread.load(ordering: .relaxed)
    if reader != 0 && reader != currentThreadID() {
        // Arrived on a thread that existed before the mask was set: pass it to the reader.
        _ = pthread_kill(threadFromID(reader), sig)
        return
    }
    var byte: UInt8
    switch sig {
    case SIGINT:
        SignalRouter.interrupts.add(1, ordering: .relaxed)
        byte = SignalRouter.commandActive.load(ordering: .relaxed) ? UInt8(ascii: "I") : UInt8(ascii: "i")
    case SIGTERM: byte = UInt8(ascii: "T")
    case SIGQUIT: byte = UInt8(ascii: "Q")
    default: byte = UInt8(ascii: "H")
    }
    let fd = SignalRouter.pipeWrite.load(ordering: .relaxed)
    if fd >= 0 { _ = write(fd, &byte, 1) }
    if sig == SIGINT {
        var wakeByte = UInt8(ascii: "i")
        let wake = SignalRouter.editorWakeWrite.load(ordering: .relaxed)
        if wake >= 0 { _ = write(wake, &wakeByte, 1) }
    }
}

private let resizeHandler: @convention(c) (Int32) -> Void = { _ in
    let saved = errno
    defer { errno = saved }
    var byte = UInt8(ascii: "W")
    let wake = SignalRouter.editorWakeWrite.load(ordering: .relaxed)
    if wake >= 0 { _ = write(wake, &byte, 1) }
}

@inline(__always) func currentThreadID() -> UInt {
    #if canImport(Glibc)
    return UInt(pthread_self())
    #else
    return UInt(bitPattern: pthread_self())
    #endif
}

@inline(__always) func threadFromID(_ id: UInt) -> pthread_t {
    #if canImport(Glibc)
    return pthread_t(id)
    #else
    return pthread_t(bitPattern: id)!
    #endif
}
