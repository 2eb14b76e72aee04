import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs sxk in any mode: the REPL loop, `-c`, scripts, one-shot and piped stdin. Owns parsing,
/// builtins, errors and exit codes, history, signals and cancellation; the host runs app commands.
public final class Shell: @unchecked Sendable {
    public let host: any ShellHost
    public let options: GlobalOptions
    public let mode: RunMode
    public let version: String
    public let programName: String
    public let terminal: Terminal
    public let specs: [CommandSpec]
    let historyPath: String?
    /// The startup file run before the first prompt (REPL only).
    let rcPath: String?
    /// `let` variables and `$_`, for the life of this shell only.
    public let variables = VariableStore()
    public let aliases = AliasTable()
    /// `FILE:LINE` while the startup file runs, for error messages.
    var errorLocation: String?
    let stdout: any OutputSink
    let stderr: any OutputSink
    let parser: CommandParser
    let engine: CompletionEngine
    let status: StatusLine
    /// `set expanded|format|pager`, loaded from `displayPath` (what `set --save` wrote).
    public let display: DisplaySettings
    /// Lines of the saved display settings that did not parse, warned about once at start.
    private let displayProblems: [String]
    private let running = RunningCommand()
    private let end = ShellEnd()
    var exitRequest: Int32?
    /// The status of the last command that failed (what a bare `exit` keeps under --keep-going).
    var lastFailure: Int32?
    /// Set when a command of the line being run from standard input was given `--password-stdin`.
    private var passwordLineOwed = false
    /// A `| CMD` wrote to the terminal since the last prompt, and may have left the cursor mid-line.
    var pipeMayEndMidLine = false
    /// The first command of a script's line that follows such a line: its word, when no command, may be
    /// the password written into the script, and is not shown.
    private var mayBePasswordLine = false
    private var reader: ReaderThread?
    var history: HistoryStore?
    var lineReader: (any LineReader)?
    private var savedTermios = termios()
    private var haveTermios = false

    /// `specs`: the host's commands already merged with the builtins (`ShellMain` has them); else merged here.
    public init(host: any ShellHost, invocation: Invocation, version: String, terminal: Terminal,
                historyPath: String?, rcPath: String? = nil, displayPath: String? = nil, programName: String = "sxk",
                stdout: any OutputSink = StandardOutput.stdout, stderr: any OutputSink = StandardOutput.stderr,
                status: StatusLine = .disabled, specs: [CommandSpec]? = nil) {
        self.status = status
        self.host = host
        self.options = invocation.options
        self.mode = invocation.mode
        self.version = version
        self.terminal = terminal
        self.historyPath = historyPath
        self.rcPath = rcPath
        self.programName = programName
        self.stdout = stdout
        self.stderr = stderr
        self.specs = specs ?? Builtins.merged(with: host.commandSpecs)
        self.parser = CommandParser(specs: self.specs)
        self.engine = CompletionEngine(specs: self.specs)
        (display, displayProblems) = DisplaySettings.load(path: displayPath)
    }

    var errors: ErrorPresenter {
        ErrorPresenter(sink: stderr, color: terminal.stderrColorEnabled, location: errorLocation, secrets: host.secrets)
    }
    var values: ShellValues { ShellValues(host: host, specs: specs, variables: variables, aliases: aliases) }

    /// Runs the mode to the end and returns the exit status (the host's `shutdown` has been called).
    public func run() async -> Int32 {
        SignalRouter.blockOnThisThread()
        let pipeFD = SignalRouter.install(keepingIgnored: mode != .repl)
        let threads = ShellThreads.take()
        let reader = threads.reader
        self.reader = reader
        haveTermios = tcgetattr(0, &savedTermios) == 0
        startWatcher(pipeFD, on: threads.signals)
        for problem in displayProblems { errors.warning("display settings: \(problem)") }
        let status: Int32
        switch mode {
        case .repl: status = await runREPL(reader)
        case .commands(let text): status = await runText(text, origin: "-c")
        case .script(let path): status = await runScript(path)
        case .oneShot(let words):
            // One command and the process ends: no later command can read `$_`.
            let io = makeIO(interactive: false)
            io.data.discard()
            status = await runWords(words, io: io)
        case .stdin: status = await runStdin(reader)
        }
        // A SIGTERM/SIGHUP that cancelled the command is ending the process on the watcher's thread.
        guard end.claimByShell() else { waitForTheSignalsExit() }
        stdout.flush()
        host.shutdown()
        stdout.flush()
        // `exit N` was asked for first and wins over a signal that comes while the shell ends.
        let final = exitRequest ?? end.status(status)
        return final == ExitStatus.ok && host.shutdownLostOutput ? ExitStatus.failure : final
    }

    // MARK: modes

    private func runREPL(_ thread: ReaderThread) async -> Int32 {
        let store = HistoryStore(path: historyPath)
        store.load()
        history = store
        if let refusal = store.refusal { errors.warning("history: \(refusal)") }
        let color = terminal.stderrIsTerminal && !options.noColor && terminal.colorEnabled
        let engine = self.engine
        let values = self.values
        let host = self.host
        let completer: LibeditLineReader.Completer = { line, cursor in
            var result = engine.complete(line: line, cursor: cursor, provider: values)
            if result.candidates.contains(where: { $0.description != nil }) {
                let secrets = host.secrets
                result.candidates = result.candidates.map { $0.shown(secrets: secrets) }
            }
            return result
        }
        let cursorControl = terminal.cursorControl
        let made: ReaderBox = await thread.run {
            let editor: (any LineReader)? = LibeditLineReader(programName: "sxk", store: store, color: color, cursorControl: cursorControl, completer: completer)
            return ReaderBox(reader: editor ?? PlainLineReader(promptFD: 2))
        }
        // Without libedit the shell still runs, on plain lines: said once, here, not at every prompt.
        // Its lines are not saved (`history` lists this session's), so the file stays as it was.
        if let why = Libedit.loadError { errors.warning("line editing, Tab completion and saved history are off: \(why)") }
        let lineReader = made.reader
        self.lineReader = lineReader
        await runStartupFile(io: makeIO(interactive: true))
        var status: Int32 = 0
        // A trailing `\` or an open quote continues the command on the next line; what runs and
        // what history keeps is the joined command.
        var joiner = LineJoiner()
        while exitRequest == nil {
            if end.signalled { waitForTheSignalsExit() }
            if pipeMayEndMidLine {
                // Before anything else is said: a notice would start on the pipe's unfinished line.
                pipeMayEndMidLine = false
                errors.startLine(width: currentTerminal.width)
            }
            if joiner.continuation == nil { for notice in host.noticesBeforePrompt() { errors.warning(notice) } }
            let prompt = joiner.continuation.map(\.prompt) ?? host.prompt()
            let result = await thread.run { lineReader.readLine(prompt: prompt) }
            switch result {
            case .eof:
                if let continuation = joiner.continuation {
                    joiner.reset()
                    errors.error("end of input inside \(continuation.openDescription); the command was dropped")
                    continue
                }
                saveHistory()
                await thread.run { lineReader.close() }
                return 0
            case .interrupted:
                joiner.reset()
                continue
            case .line(let typed):
                guard let line = joiner.add(typed) else { continue }
                if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                // A line holding a live token stays out of the file, as one with a secret word does.
                // In every form output masks it in (another case, base64, a 16-character run, URL-encoded).
                let holdsToken = SecretMatcher.shared(host.secrets).holds(line)
                lineReader.addHistory(line, persist: !holdsToken && HistoryStore.shouldPersist(line, specs: specs, aliases: aliases), context: currentContext())
                status = await runLine(line, io: makeIO(interactive: true), stopOnFailure: false)
                // A usage error only the command itself finds (`orders --limit 0`, `exit 300`) is not kept either.
                if status == ExitStatus.usage { lineReader.keepLastOutOfFile() }
                // Saved as it goes, not only at the end: a shell killed (kill -9, a crash) keeps its lines.
                saveHistory(waiting: false)
            }
        }
        saveHistory()
        await thread.run { lineReader.close() }
        _ = status
        return exitRequest ?? 0
    }

    private func runScript(_ path: String) async -> Int32 {
        // Read to its end whatever it is: a file, or a pipe (`sxk <(generate)`, /dev/stdin); not a folder.
        var data: [UInt8]?
        var st = stat()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) != S_IFDIR,
               case .bytes(let bytes) = FileBytes.readAll(fd, sizeHint: 64 * 1024, limit: 64 << 20) { data = bytes }
            close(fd)
        }
        guard let data else {
            if FileManager.default.fileExists(atPath: path) {
                errors.error("cannot read script '\(path)'")
            } else if Invocation.looksLikeCommand(path) {
                let names = specs.filter { !$0.isHidden }.flatMap { [$0.name] + $0.aliases }
                errors.error("unknown command '\(path)'\(Suggestion.hint(path, names))")
            } else {
                errors.error("no such script file '\(path)'")
            }
            return ExitStatus.usage
        }
        // A byte that is not UTF-8 would run as U+FFFD (a command or value other than the file's):
        // the script is not run, and the place is named.
        if let bad = UTF8Text.firstInvalid(data) {
            errors.error("\(path):\(bad.line): not valid UTF-8 (byte \(UTF8Text.hex(bad.byte))); the script was not run")
            return ExitStatus.usage
        }
        return await runLines(StartupFile.split(String(decoding: data, as: UTF8.self)), origin: path)
    }

    /// Runs a script's commands line by line, as the startup file's: a line that cannot be read (an
    /// unclosed quote, a `|` with nothing after it) fails alone, after the lines before it ran. An error
    /// names `ORIGIN:LINE` (none when `origin` is nil).
    private func runLines(_ lines: [StartupFile.Line], origin: String?) async -> Int32 {
        defer { errorLocation = nil }
        var worst: Int32 = 0
        for line in lines {
            if stdout.readerGone { break }
            // A comment changes nothing, the line after a password-reading one included.
            if line.text.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("#") { continue }
            errorLocation = origin.map { "\($0):\(line.number)" }
            // `--password-stdin` reads standard input, not the script's next line; a password written
            // there runs as an unknown command, and is not shown in its error.
            mayBePasswordLine = passwordLineOwed
            passwordLineOwed = false
            let status: Int32
            if mayBePasswordLine, !startsWithACommand(line.text) {
                // Not run at all: a `|` or `>` in a password would start a program or write a file.
                errors.error(Self.passwordLineNotShown)
                status = ExitStatus.usage
            } else {
                status = await runLine(line.text, io: makeIO(interactive: false), stopOnFailure: !options.keepGoing)
            }
            mayBePasswordLine = false
            if status != 0 {
                worst = status
                if !options.keepGoing || status == ExitStatus.interrupted { return status }
            }
            if exitRequest != nil { break }
        }
        return worst
    }

    static let passwordLineNotShown = "the line after one that reads a password does not start with a command's name: not run and not shown (it may be that password; --password-stdin reads standard input, not the next line of a script)"

    /// Whether a line's first word names a command, an alias or `let`/`alias` (a word made by a variable
    /// does not: what it expands to is not known without running it).
    private func startsWithACommand(_ text: String) -> Bool {
        guard let first = (try? Tokenizer.tokenize(text, lenient: true))?.first?.first, first.parts.isEmpty else { return false }
        return first.text == "let" || first.text == "alias" || parser.command(named: first.text) != nil || aliases.alias(first.text) != nil
    }

    /// `-c` text: line by line, as a script file. One line needs no place in its errors; of several,
    /// each names its line (`-c:2: …`).
    private func runText(_ text: String, origin: String) async -> Int32 {
        let lines = StartupFile.split(text)
        return await runLines(lines, origin: lines.count > 1 ? origin : nil)
    }

    private func runStdin(_ thread: ReaderThread) async -> Int32 {
        let lineReader = PlainLineReader.standardInput
        var worst: Int32 = 0
        var joiner = LineJoiner()
        // A script on standard input names its places as a script file does (`-:3: …`).
        var firstLine = 0
        defer { errorLocation = nil }
        while exitRequest == nil {
            let result: LineReadResult
            if let ready = lineReader.bufferedLine() {
                result = ready
            } else {
                result = await thread.run { lineReader.readLine(prompt: PromptText("")) }
            }
            switch result {
            case .eof:
                // A command still open at the end (an unclosed quote) runs and fails with the tokenizer's message.
                guard let pending = joiner.finish() else { return worst }
                errorLocation = "-:\(firstLine)"
                let status = await runLine(pending, io: makeIO(interactive: false), stopOnFailure: !options.keepGoing)
                return status != 0 ? status : worst
            case .interrupted: return ExitStatus.interrupted
            case .line(var typed):
                if stdout.readerGone { return worst }
                if let bad = lineReader.lastLineInvalidByte {
                    // As in a script file, a byte that is not UTF-8 is refused, not run as U+FFFD; on
                    // standard input the lines before it have run, and a command it continued does not.
                    errorLocation = "-:\(lineReader.linesTaken)"
                    errors.error("not valid UTF-8 (byte \(UTF8Text.hex(bad))); the line was not run")
                    joiner = LineJoiner()
                    if !options.keepGoing { return ExitStatus.usage }
                    worst = ExitStatus.usage
                    continue
                }
                if !joiner.isPending {
                    firstLine = lineReader.linesTaken
                    // A byte order mark starts the text, not its first command (as a script file's).
                    if firstLine == 1, typed.hasPrefix("\u{FEFF}") { typed.removeFirst() }
                }
                guard let line = joiner.add(typed) else { continue }
                errorLocation = "-:\(firstLine)"
                let taken = lineReader.linesTaken
                passwordLineOwed = false
                let status = await runLine(line, io: makeIO(interactive: false), stopOnFailure: !options.keepGoing)
                // A command given `--password-stdin`, or a `login` (as it ran: aliases expanded; not a
                // comment or an alias's definition), owns the next line whether it read it or not
                // (refused before, or no password needed): a password never runs, and is never shown.
                if passwordLineOwed, lineReader.linesTaken == taken {
                    if lineReader.bufferedLine() == nil { _ = await thread.run { lineReader.readLine(prompt: PromptText("")) } }
                }
                if status != 0 {
                    if !options.keepGoing || status == ExitStatus.interrupted { return status }
                    worst = status
                }
            }
        }
        return worst
    }

    /// Runs every command in `text`; returns the last failing status (or 0). Aliases and
    /// variables are expanded command by command, so a `let` is seen by the commands after it.
    func runLine(_ text: String, io: CommandIO, stopOnFailure: Bool) async -> Int32 {
        let commands: [[Token]]
        do { commands = try Tokenizer.tokenize(text, lenient: false) } catch {
            errors.error(error)
            return ExitStatus.usage
        }
        var worst: Int32 = 0
        for tokens in commands {
            // A script's reader has gone (`sxk -c '…' | head -1`): what is left is not run, as a shell
            // script's commands after a SIGPIPE are not (the REPL's terminal is never a pipe's end).
            if !io.isInteractive, stdout.readerGone { break }
            let status = await runTokens(tokens, io: io, stopOnFailure: stopOnFailure)
            if status != 0 {
                lastFailure = status
                worst = status
                if stopOnFailure || status == ExitStatus.interrupted { return status }
            }
            if exitRequest != nil { break }
        }
        return worst
    }

    /// Parses and runs one command. Every error becomes one line and an exit status here.
    public func runWords(_ words: [String], io: CommandIO) async -> Int32 {
        defer { io.stdout.flush() }
        guard let first = words.first else { return 0 }
        // A SIGTERM/SIGHUP that came between two commands: the next one does not start beside its end.
        if end.signalled { waitForTheSignalsExit() }
        // A Ctrl-C kept since the last command (a one-shot's start, between a script's commands) stops
        // this one before it starts, builtins included. The REPL never keeps one (the watcher).
        if running.takeKeptInterrupt() {
            errors.error("interrupted")
            return ExitStatus.interrupted
        }
        // `let`, `alias` and `__complete` take free-form words (`let x = orders --limit 1 …`), so they skip the parser.
        if let builtin = Builtins.typedWords(first) { return await builtin.run(typed: Array(words.dropFirst()), in: self, io: io) }
        let mayBePassword = mayBePasswordLine
        mayBePasswordLine = false
        if words.contains("--password-stdin") { passwordLineOwed = true }
        let parsed: ParseResult
        do { parsed = try parser.parse(words) } catch {
            if mayBePassword, parser.command(named: first) == nil {
                errors.error(Self.passwordLineNotShown)
                return ExitStatus.usage
            }
            // A login refused for its words asks no password: one typed ahead on the terminal for it
            // is dropped, not run and shown as the next line.
            if first == "login", io.isInteractive { io.discardTypedAhead() }
            errors.error(error)
            return ExitStatus.usage
        }
        switch parsed {
        case .help(let chain):
            writeHelp(io) { $0.page(for: chain) }
            return settled(0, io: io)
        case .run(let command):
            // A `login` that runs always takes a password: the line after it, given the flag or not
            // (without it, it fails for want of a terminal, and the password put next must not run).
            if command.spec.name == "login" { passwordLineOwed = true }
            if let builtin = Builtins.parsed(command.spec) {
                return settled(await builtin.run(command, in: self, io: io), io: io)
            }
            return await runHost(command, io: io, source: words)
        }
    }

    /// The status once the output is flushed. Output the disk or a file-size limit refused is lost:
    /// the command (a builtin, a help page) is not done, whatever it returned.
    private func settled(_ status: Int32, io: CommandIO) -> Int32 {
        io.stdout.flush()
        guard let lost = io.stdout.takeWriteError() else { return status }
        errors.outputLost(lost)
        return status == 0 ? ExitStatus.failure : status
    }

    private func runHost(_ command: ParsedCommand, io: CommandIO, source: [String]) async -> Int32 {
        io.data.reset()
        status.commandStarted()
        let outcome = await running.run { [host] in try await host.execute(command, io: io) }
        // Cancelled by SIGTERM/SIGHUP: nothing to report, the watcher is ending the process.
        if end.signalled { waitForTheSignalsExit() }
        // Before anything else is written, and at once after Ctrl-C: no "waiting for" left behind.
        status.commandEnded()
        switch outcome {
        case .finished(let status):
            let settledStatus = settled(status, io: io)
            if settledStatus == 0 { keepLastData(io.data.unmasked, source: source) }
            return settledStatus
        case .failed(var error):
            // The error says why; output lost before it is not a second line.
            io.stdout.flush()
            _ = io.stdout.takeWriteError()
            if let followed = error as? FollowedError {
                errors.error(ErrorPresenter.message(for: followed.first))
                error = followed.then
            }
            errors.error(error is CancellationError ? "interrupted" : ErrorPresenter.message(for: error))
            return host.status(forThrown: error)
        }
    }

    // MARK: builtins

    /// Prints a builtin's output through the one renderer, in the format its command line chose:
    /// the same formats, `--jq`, masking, sanitizing and paging as every command.
    func render(_ command: ParsedCommand, io: CommandIO, _ make: (OutputFormat) throws -> CommandOutput) async -> Int32 {
        do {
            let format = try OutputFormat.from(command, options: io.options, display: io.display)
            let output = try make(format)
            return try await Renderer(io: io, format: format, secrets: host.secrets, pager: io.pager(host.pager(), format: format)).render(output)
        } catch {
            errors.error(ErrorPresenter.message(for: error))
            return host.status(forThrown: error)
        }
    }

    /// Help goes out the way command output does: fitted to the terminal and paged when taller
    /// than it (stdout a terminal only; `--no-pager` and `pager off` print it directly).
    func writeHelp(_ io: CommandIO, _ text: (HelpRenderer) -> String) {
        let renderer = HelpRenderer(specs: specs, programName: programName, width: io.terminal.stdoutIsTerminal ? io.terminal.width : nil)
        io.deliver(text(renderer), pager: io.pager(host.pager()))
    }

    // MARK: plumbing

    func makeIO(interactive: Bool) -> CommandIO {
        CommandIO(stdout: stdout, stderr: stderr, terminal: currentTerminal, options: options, isInteractive: interactive, reader: reader,
                  parser: parser, status: status, display: display)
    }

    /// The terminal as it is now: a window resized since start-up gives its new width to the next
    /// command's tables and help (one ioctl per command).
    var currentTerminal: Terminal {
        guard terminal.stdoutIsTerminal || terminal.stderrIsTerminal else { return terminal }
        var now = terminal
        now.width = Terminal.currentWidth(environment: ProcessEnvironment.current())
        return now
    }

    private func startWatcher(_ fd: Int32, on thread: ReaderThread) {
        thread.post { [self] in
            var byte: UInt8 = 0
            let keep = mode != .repl
            while true {
                let n = read(fd, &byte, 1)
                if n < 0 { if errno == EINTR { continue }; return }
                if n == 0 { return }
                switch byte {
                // A one-shot or a script has no prompt to take a Ctrl-C that comes between commands:
                // it stops the next one. At the REPL's prompt (`i`) the line editor takes it.
                case UInt8(ascii: "I"): running.cancel(orNext: keep)
                case UInt8(ascii: "i") where keep: running.cancel(orNext: true)
                case UInt8(ascii: "T"): if end.claim(bySignal: SIGTERM) { terminate(SIGTERM) }
                case UInt8(ascii: "H"): if end.claim(bySignal: SIGHUP) { terminate(SIGHUP) }
                case UInt8(ascii: "Q"): if end.claim(bySignal: SIGQUIT) { terminate(SIGQUIT) }
                default: break
                }
            }
        }
    }

    /// Puts back the terminal's mode from the start, when this process is in front: a job ended in the
    /// background (`sxk … &`, then SIGTERM) leaves the mode to the program in front (this runs on a
    /// thread that blocks SIGTTOU, so a background write of the mode would go through).
    private func restoreTerminal() {
        guard haveTermios, tcgetpgrp(0) == getpgrp() else { return }
        tcsetattr(0, TCSANOW, &savedTermios)
    }

    /// The shell's thread once SIGTERM/SIGHUP has claimed the end: `terminate` on the watcher's
    /// thread saves, restores the terminal and exits.
    private func waitForTheSignalsExit() -> Never {
        end.waitForTheSignalsExit { [self] in restoreTerminal() }
    }

    /// Writes the lines typed in this shell; a failure (disk full, read-only) is one warning, not silence.
    /// `waiting` false: after a command, quietly (a problem is said once, at the end's save).
    private func saveHistory(waiting: Bool = true) {
        do { try history?.save(waiting: waiting) } catch { if waiting { errors.warning("\(error)") } }
    }

    /// SIGTERM/SIGHUP, once it has claimed the shell's end (`ShellEnd`): keep the history and the
    /// app's state, restore the terminal, leave.
    private func terminate(_ sig: Int32) -> Never {
        // A command about to start is stopped too (it finds the end claimed, or the kept cancel).
        running.cancel(orNext: true)
        status.clear()
        TerminalPrompt.endOpenQuestion()
        // A write of several state files in progress (an import's keys and token, a login's token and
        // account) finishes first, or half of it would stay on disk beside the other half's old files.
        StateWrites.waitForNone(atMost: 10) { errors.note("waiting for a write of the state files to finish before exiting") }
        saveHistory()
        host.shutdown()
        stdout.flush()
        PagerProcess.endAll()
        restoreTerminal()
        // _exit, not exit: exit's teardown (stdio streams, destructors) would race the reader thread,
        // which may still be inside libedit. Everything worth keeping is written and flushed above.
        _exit(128 + sig)
    }
}
