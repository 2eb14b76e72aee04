import SXKCore
import SXKShell
#if canImport(Glibc)
import Glibc
#endif

extension Commands {
    /// `watch [-n SECONDS] [--count N] [-e] [-d] COMMAND…` (like psql's `\watch` and watch(1)):
    /// re-runs an app command until Ctrl-C; `-d` marks what changed since the last run. On a terminal each run
    /// replaces the screen (the output is gathered first, so the redraw does not flicker); otherwise runs
    /// follow each other on stdout and a header line per run goes to stderr, so piped data stays clean.
    ///
    /// A failing run is shown and watching goes on (servers and networks recover, which is often what
    /// one watches for) — except a usage error (2) or a lost login (3), which no retry can fix, and any
    /// failure with `--errexit`. Ctrl-C ends with 130; `--count N` ends after N runs with the last run's status.
    enum Watch: AppCommand {
        static let spec = CommandSpec(
            "watch", summary: "re-run a command every few seconds, redrawing, until Ctrl-C",
            discussion: "On a terminal each run replaces the screen (a run taller than the window is cut, saying how many lines it left out; a header wider than it cuts the command first); otherwise runs follow each other on stdout with a header line per run on stderr. A failing run is shown and watching goes on, except for a usage error (2), a lost login (3), or any failure with --errexit, which stop it with that status. Ctrl-C stops it (exit 130); --count N stops after N runs with the last run's status. With -d, as watch(1)'s, what changed since the previous run is shown in reverse video (on a terminal; colour is off then).",
            arguments: [
                ArgumentSpec("COMMAND", kind: .provider("watchable-command"), summary: "the command to repeat"),
                ArgumentSpec("ARGS", optional: true, variadic: true, summary: "its arguments and flags"),
            ],
            flags: [
                FlagSpec("interval", short: "n", value: .double, valueName: "SECONDS", summary: "seconds between runs (default 2, at least 0.1)"),
                FlagSpec("count", value: .int, valueName: "N", summary: "stop after N runs"),
                FlagSpec("errexit", short: "e", summary: "stop at the first failing run"),
                FlagSpec("differences", short: "d", summary: "highlight what changed since the last run (on a terminal)"),
            ],
            examples: ["watch orders --page-size 5", "watch -d -n 5 whoami", "watch -n 10 stats --period today", "watch --count 3 -n 0.5 get /api/app/config"]
        ).passingCommand().endless(unless: "count")
        static let unwatchable: String? = "it already repeats a command"

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.watch(command)
        }
    }
}

extension AppCommands {
    static let watchMinimumInterval = 0.1

    /// A day; longer waits would overflow the nanoseconds of the sleep (and the header's number).
    static let watchMaximumInterval = 86_400.0

    fileprivate func watch(_ command: ParsedCommand) async throws -> CommandOutput {
        let interval = try Self.watchInterval(command.option("interval"))
        let count = try Self.number(command, "count", in: 1...Int.max)
        let stopOnFailure = command.has("errexit")
        let words = command.positionals
        guard let name = words.first else { throw AppError.usage("watch needs a COMMAND to run") }
        guard let parser = io.parser else { throw AppError.usage("watch runs inside the shell only") }
        // Said before its words are read as the command's (`watch let` lacks let's NAME, `watch har` its
        // `save`): a command watch never repeats is refused for what it is.
        if CommandRegistry.declaration(for: name) == nil, Builtins.names.contains(name) {
            throw AppError.usage("watch runs app commands; '\(name)' is a shell builtin")
        }
        if let spec = parser.command(named: name), let reason = CommandRegistry.declaration(for: spec.name)?.unwatchable {
            throw AppError.usage("watch cannot repeat '\(spec.name)': \(reason)")
        }
        let inner: ParsedCommand
        switch try parser.parse(words) {
        case .help(let chain):
            let text = HelpRenderer(specs: parser.specs, width: io.terminal.stdoutIsTerminal ? io.terminal.width : nil).page(for: chain)
            return CommandOutput(blocks: [.lines(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))])
        case .run(let parsed):
            inner = parsed
        }
        guard let declaration = CommandRegistry.declaration(for: inner.spec.name) else {
            throw AppError.usage("watch runs app commands; '\(name)' is a shell builtin")
        }
        _ = try format(inner)
        // A frame is one screen of one answer: a run that streams its rows is not one.
        if let refusal = declaration.watchRefusal(inner) { throw AppError.usage(refusal) }
        let title = words.map { Tokenizer.quote(Redaction.maskWord($0)) }.joined(separator: " ")
        let me = self
        var output = CommandOutput()
        output.live = LiveOutput(highlightChanges: command.has("differences")) { show in
            var runs = 0, shown = 0
            var status: Int32 = ExitStatus.ok
            while true {
                runs += 1
                let now = me.services.clock.now(), run = "run \(runs)\(count.map { "/\($0)" } ?? "")"
                let header = LiveOutput.Header(title: "Every \(Self.seconds(interval))s: \(title)",
                                               status: "\(LocalTime.human(now)) · \(run)", shortStatus: "\(LocalTime.clock(now)) · \(run)")
                // Said inside the run it changes (a screen's clear would wipe a line said before it).
                var changed: String?
                do {
                    changed = try me.host.sessionChangedElsewhere()
                    var frame = try await me.produce(inner)
                    if Task.isCancelled { break }
                    if let changed { frame.warnings.insert(changed, at: 0) }
                    let failure = frame.failure
                    frame.failure = nil
                    status = await show(header, frame, failure)
                    shown = runs
                    if let failure { status = me.host.status(forThrown: failure) }
                } catch {
                    if Task.isCancelled || error is CancellationError { break }
                    var said = CommandOutput()
                    if let changed { said.warnings = [changed] }
                    _ = await show(header, changed == nil ? nil : said, error)
                    shown = runs
                    status = me.host.status(forThrown: error)
                }
                if Task.isCancelled { break }
                // Its reader has gone (`| head`): nothing more is asked of the server, as a script's
                // commands stop; quietly, as a lost reader ends any run.
                me.io.stdout.flush()
                if me.io.stdout.readerGone { return status }
                // Output that cannot be written (a full disk, a closed descriptor) ends it as a failure.
                if let lost = me.io.stdout.takeWriteError() {
                    me.diagnostics.error("the output could not be written: \(String(cString: strerror(lost)))")
                    return ExitStatus.failure
                }
                if status == ExitStatus.usage || status == ExitStatus.notLoggedIn || (stopOnFailure && status != ExitStatus.ok) {
                    me.diagnostics.note("watch: stopped after run \(runs) (exit \(status))")
                    return status
                }
                if let count, runs >= count { return status }
                do { try await Task.sleep(nanoseconds: UInt64(interval * 1e9)) } catch { break }
            }
            // A Ctrl-C during a run stops it before it showed: only the runs before count as done.
            me.diagnostics.lines("\nwatch: stopped \(Self.stopped(runs: runs, shown: shown))\n")
            return ExitStatus.interrupted
        }
        return output
    }

    static func watchInterval(_ text: String?) throws -> Double {
        guard let text else { return 2 }
        guard let value = JSONValue.decimal(text) else { throw AppError.usage("-n expects seconds, got '\(text)'") }
        guard value >= watchMinimumInterval else {
            throw AppError.usage("-n must be at least \(seconds(watchMinimumInterval)) s (got \(text))")
        }
        guard value <= watchMaximumInterval else {
            throw AppError.usage("-n must be at most \(seconds(watchMaximumInterval)) s (a day; got \(text))")
        }
        return value
    }

    /// Where a Ctrl-C stopped it: between runs, or during one that had not shown (`shown` runs did).
    static func stopped(runs: Int, shown: Int) -> String {
        let done = "\(shown) run\(shown == 1 ? "" : "s")"
        if shown == runs { return "after \(done)" }
        return shown == 0 ? "during run \(runs)" : "during run \(runs), after \(done)"
    }

    /// `2`, `0.5`, `1.25`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : "\(value)"
    }
}
