import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the app needs to build its host: the parsed options and mode, terminal facts, environment.
public struct ShellContext: Sendable {
    public var options: GlobalOptions
    public var mode: RunMode
    public var terminal: Terminal
    public var environment: [String: String]
    /// The "waiting for …" line on stderr; the app reports its requests to it.
    public var status: StatusLine = .disabled
}

/// The entry point: `main` runs it and ends the process with its status.
public enum ShellMain {
    /// Parses the global options, handles `--version`/`--help` and usage errors (exit 2), builds the
    /// host and runs the shell. `commandSpecs` are the host's (`ShellHost.commandSpecs`): merged with the
    /// builtins once, for the options' parse and the shell. `historyPath` picks the history file and
    /// `rcPath` the startup file (defaults: `StatePaths`).
    public static func run(
        version: String,
        commandSpecs: [CommandSpec],
        arguments given: [String]? = nil,
        environment: [String: String] = ProcessEnvironment.current(),
        programName: String = "sxk",
        historyPath: ((ShellContext) -> String?)? = nil,
        rcPath: ((ShellContext) -> String?)? = nil,
        startFailureStatus: ((any Error) -> Int32)? = nil,
        makeHost: (ShellContext) async throws -> any ShellHost
    ) async -> Int32 {
        Terminal.adoptUTF8Locale()
        let arguments: [String]
        if let given {
            arguments = given
        } else {
            let read = processArguments()
            // Completion still answers for a partly typed line holding such a byte (a file's name).
            if let bad = read.invalid, read.words.first != "__complete" {
                // Read as U+FFFD it would be another word than the one given: a keyword sent, a profile made.
                ErrorPresenter(sink: StandardOutput.stderr, color: false)
                    .error("argument \(bad.index) is not valid UTF-8 (byte \(UTF8Text.hex(bad.byte))); nothing was run")
                return ExitStatus.usage
            }
            arguments = read.words
        }
        let specs = Builtins.merged(with: commandSpecs)
        let probe = Terminal.detect(noColorFlag: false, environment: environment)
        var invocation: Invocation
        do {
            invocation = try Invocation.parse(arguments, environment: environment, stdinIsTerminal: probe.stdinIsTerminal) { word in
                specs.contains { $0.matches(word) }
            }
        } catch {
            ErrorPresenter(sink: StandardOutput.stderr, color: false).error("\(ErrorPresenter.message(for: error)) (see '\(programName) --help')")
            return ExitStatus.usage
        }
        let terminal = Terminal.detect(noColorFlag: invocation.options.noColor, environment: environment)
        if invocation.options.version {
            StandardOutput.stdout.write("\(programName) \(version)\n")
            return optionOutputStatus()
        }
        // `sxk --help orders` asks for the command's help, as `sxk help orders` and `sxk orders --help` do.
        if invocation.options.help, case .oneShot(let words) = invocation.mode, !words.isEmpty {
            invocation.options.help = false
            invocation.mode = .oneShot(["help"] + words)
        }
        if invocation.options.help {
            // Fitted and paged as `help` is in the shell (a saved `set --save pager off` holds here too).
            let text = globalHelp(programName: programName, specs: specs, width: terminal.stdoutIsTerminal ? terminal.width : nil)
            let saved = DisplaySettings.load(path: StatePaths.displayFile(rcPath: StatePaths.rcFile(environment: environment))).settings
            Pager.deliver(text, to: StandardOutput.stdout, stdoutIsTerminal: terminal.stdoutIsTerminal,
                          command: invocation.options.noPager || !saved.pager ? nil : Pager.command(environment: environment))
            return optionOutputStatus()
        }
        let status = StatusLine(enabled: StatusLine.wanted(terminal: terminal, mode: invocation.mode))
        if status.isEnabled {
            StandardOutput.stderr.attach(status)
            if terminal.stdoutIsTerminal { StandardOutput.stdout.attach(status) }
        }
        let context = ShellContext(options: invocation.options, mode: invocation.mode, terminal: terminal,
                                   environment: environment, status: status)
        let host: any ShellHost
        do { host = try await makeHost(context) } catch {
            ErrorPresenter(sink: StandardOutput.stderr, color: terminal.stderrColorEnabled).error(error)
            // The app's mapping when it gives one (a bad `--base-url` is a usage error, 2).
            return startFailureStatus?(error) ?? (error is UsageError ? ExitStatus.usage : ExitStatus.failure)
        }
        let path = historyPath.map { $0(context) } ?? StatePaths.historyFile(options: invocation.options, environment: environment)
        let rc = rcPath.map { $0(context) } ?? StatePaths.rcFile(environment: environment)
        let shell = Shell(host: host, invocation: invocation, version: version, terminal: terminal,
                          historyPath: path, rcPath: rc, displayPath: StatePaths.displayFile(rcPath: rc), programName: programName, status: status,
                          specs: specs)
        return await shell.run()
    }

    /// `--version` and `--help` are done when their text was written: lost to a full disk, one line and 1.
    private static func optionOutputStatus() -> Int32 {
        StandardOutput.stdout.flush()
        guard let lost = StandardOutput.stdout.takeWriteError() else { return 0 }
        ErrorPresenter(sink: StandardOutput.stderr, color: false).outputLost(lost)
        return ExitStatus.failure
    }

    /// `sxk --help`: invocation forms, global options, then the command table; fitted to `width`
    /// when there is one (`HelpRenderer.width`).
    public static func globalHelp(programName: String, specs: [CommandSpec], width: Int? = nil) -> String {
        let renderer = HelpRenderer(specs: specs, programName: programName, width: width)
        let forms = [
            ("[OPTIONS]", "interactive shell (commands from stdin when not a terminal)"),
            ("[OPTIONS] -c 'CMD; CMD'", "run commands and exit"),
            ("[OPTIONS] FILE", "run a script file (- reads the commands from standard input)"),
            ("[OPTIONS] COMMAND [ARGS…]", "run one command"),
        ].map { ("\(programName) \($0.0)", $0.1) }
        var out = "Usage:\n" + renderer.table(forms) + "\nOptions:\n"
        let rows = GlobalOptions.flags.map { f -> (String, String) in
            let left = (f.short.map { "-\($0), " } ?? "    ") + "--" + f.name + (f.isSwitch ? "" : " " + f.valueName)
            return (left, f.summary)
        } + [("-c CMDS", "Run the commands (separated by ';' or newlines) and exit")]
        out += renderer.table(rows) + "\n"
        out += renderer.overview()
        out += "\n" + renderer.paragraph("Exit status: 0 ok, 1 failed, 2 usage, 3 not logged in, 4 network, 130 interrupted, 129/143 hangup/terminated.")
        return out
    }

    /// The process's arguments after its name, and the first one (counted from 1) holding a byte that
    /// is not UTF-8, read from `argv` itself (`CommandLine.arguments` has replaced such bytes).
    static func processArguments() -> (words: [String], invalid: (index: Int, byte: UInt8)?) {
        var words: [String] = []
        var invalid: (index: Int, byte: UInt8)?
        for i in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[i] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if invalid == nil, let bad = UTF8Text.firstInvalid(Array(bytes)) { invalid = (i, bad.byte) }
            words.append(String(decoding: bytes, as: UTF8.self))
        }
        return (words, invalid)
    }
}

/// Where the shell keeps its own files when the app does not say.
public enum StatePaths {
    /// `--state-dir/history`, else `$XDG_STATE_HOME/sxk/<profile|env|default>/history`
    /// (`~/.local/state` when XDG_STATE_HOME is unset).
    public static func historyFile(options: GlobalOptions, environment: [String: String]) -> String? {
        if let dir = options.stateDir { return dir + "/history" }
        let base: String
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], !home.isEmpty {
            base = home + "/.local/state"
        } else {
            return nil
        }
        let profile = options.profile ?? options.env ?? "default"
        return base + "/sxk/" + profile + "/history"
    }

    /// `$XDG_CONFIG_HOME/sxk/sxkrc` (`~/.config/sxk/sxkrc` when XDG_CONFIG_HOME is unset or relative).
    /// `set --save` keeps the display settings beside the startup file.
    public static func displayFile(rcPath: String?) -> String? {
        rcPath.map { PathText.folder(of: $0) + "/display" }
    }

    public static func rcFile(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/sxk/sxkrc" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/sxk/sxkrc"
    }
}
