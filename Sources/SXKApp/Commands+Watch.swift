import Foundation
import SXKCore
import SXKShell

/// `watch [-n SECONDS] [--count N] [-e] COMMAND…` (issue 9 §5, like psql's `\watch` and watch(1)):
/// re-runs an app command until Ctrl-C. On a terminal each run replaces the screen (the output is
/// gathered first, so the redraw does not flicker); otherwise runs follow each other on stdout and
/// a header line per run goes to stderr, so piped data stays clean.
///
/// A failing run is shown and watching goes on (servers and networks recover, which is often what
/// one watches for) — except a usage error (2) or a lost login (3), which no retry can fix, and any
/// failure with `--errexit`. Ctrl-C ends with 130; `--count N` ends after N runs with the last run's status.
extension AppCommands {
    static let watchMinimumInterval = 0.1
    /// A day; longer waits would overflow the nanoseconds of the sleep (and the header's number).
    static let watchMaximumInterval = 86_400.0
    /// Commands that read input or replace the session: repeating them makes no sense.
    static let unwatchable: Set<String> = ["watch", "login", "logout", "switch-account", "import-defaults", "env"]

    func watch(_ command: ParsedCommand) async throws -> Int32 {
        let interval = try Self.watchInterval(command.option("interval"))
        let count = command.option("count").flatMap(Int.init)
        if let count, count < 1 { throw AppError.usage("--count must be 1 or more") }
        let stopOnFailure = command.has("errexit")
        let words = command.positionals
        guard let name = words.first else { throw AppError.usage("watch needs a COMMAND to run") }

        let specs = Builtins.merged(with: CommandCatalog.all)
        let inner: ParsedCommand
        switch try CommandParser(specs: specs).parse(words) {
        case .help(let chain):
            io.stdout.write(HelpRenderer(specs: specs, width: io.terminal.width).page(for: chain))
            return ExitStatus.ok
        case .run(let parsed):
            inner = parsed
        }
        if Builtins.specs.contains(inner.spec) {
            throw AppError.usage("watch runs app commands; '\(name)' is a shell builtin")
        }
        if Self.unwatchable.contains(inner.spec.name) {
            throw AppError.usage("watch cannot repeat '\(inner.spec.name)': it reads input or replaces the session")
        }

        let title = words.map(Tokenizer.quote).joined(separator: " ")
        let redraw = io.terminal.stdoutIsTerminal
        var framed = io.terminal
        framed.stderrIsTerminal = false
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var runs = 0
        var status: Int32 = ExitStatus.ok
        while true {
            runs += 1
            let header = "Every \(Self.seconds(interval))s: \(title)    \(formatter.string(from: services.clock.now())) · run \(runs)\(count.map { "/\($0)" } ?? "")"
            if redraw {
                let frame = BufferOutput()
                let frameIO = CommandIO(stdout: frame, stderr: frame, terminal: framed, options: io.options, isInteractive: false)
                status = await runOnce(inner, io: frameIO)
                if Task.isCancelled { break }
                io.stdout.write("\u{1B}[H\u{1B}[2J" + header + "\n\n" + frame.text)
            } else {
                io.stderr.write(header + "\n")
                status = await runOnce(inner, io: io)
            }
            io.stdout.flush()
            if Task.isCancelled { break }
            if status == ExitStatus.usage || status == ExitStatus.notLoggedIn || (stopOnFailure && status != ExitStatus.ok) {
                io.stderr.write("watch: stopped after run \(runs) (exit \(status))\n")
                return status
            }
            if let count, runs >= count { return status }
            do { try await Task.sleep(nanoseconds: UInt64(interval * 1e9)) } catch { break }
        }
        io.stderr.write("\nwatch: stopped after \(runs) run\(runs == 1 ? "" : "s")\n")
        return ExitStatus.interrupted
    }

    /// One run through the host, as the shell would run it; errors become their line and status.
    private func runOnce(_ command: ParsedCommand, io runIO: CommandIO) async -> Int32 {
        do {
            return try await host.execute(command, io: runIO)
        } catch {
            if Task.isCancelled || error is CancellationError { return ExitStatus.interrupted }
            runIO.errors.error(error)
            let status = host.exitStatus(for: error)
            return status == 0 ? ExitStatus.failure : status
        }
    }

    static func watchInterval(_ text: String?) throws -> Double {
        guard let text else { return 2 }
        guard let value = Double(text), value.isFinite else { throw AppError.usage("-n expects seconds, got '\(text)'") }
        guard value >= watchMinimumInterval else {
            throw AppError.usage("-n must be at least \(seconds(watchMinimumInterval)) s (got \(text))")
        }
        guard value <= watchMaximumInterval else {
            throw AppError.usage("-n must be at most \(seconds(watchMaximumInterval)) s (a day; got \(text))")
        }
        return value
    }

    /// `2`, `0.5`, `1.25`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }
}
