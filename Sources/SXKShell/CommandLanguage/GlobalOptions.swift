import FoundationEssentials
import SXKCore

/// The options given before the command (`sxk [GLOBAL OPTIONS] …`) merged with their environment
/// variables (flags win). Their meaning belongs to the app; the shell only parses them.
public struct GlobalOptions: Sendable, Equatable {
    public var env: String?
    public var baseURL: String?
    public var profile: String?
    public var stateDir: String?
    public var json = false
    public var noColor = false
    public var trace = false
    /// Seconds, checked to be a positive number.
    public var timeout: Double?
    public var insecureHTTP = false
    public var sandbox = false
    public var keepGoing = false
    /// `--reset-state`: clear the profile's token, snapshot and preferences before anything else.
    public var resetState = false
    /// Do not run the startup file (`$XDG_CONFIG_HOME/sxk/sxkrc`) in the REPL.
    public var noRC = false
    /// `--no-pager`: print long output directly.
    public var noPager = false
    public var version = false
    public var help = false
    /// `--revalidate`: a one-shot validates the session even when it was validated recently.
    public var revalidate = false
    /// `--har FILE`: write the requests sent as an HTTP Archive at exit.
    public var harFile: String?
    /// `--cacert FILE` (`SXK_CACERT`): trust exactly the CA certificates in FILE for https.
    public var caCert: String?
    /// `--persist SECONDS` (`SXK_PERSIST`): keep connections open in a holder process for the next
    /// one-shots, that long after the last use; 0 stops a running holder.
    public var persist: Double?
    /// Why `SXK_PERSIST` could not be read: said by a run that uses it, not by one that reads no
    /// state (help, version, the completion scripts, Tab).
    public var persistProblem: String?

    public init() {}

    /// Every global flag with its summary, for `sxk --help` and the completion scripts.
    public static let flags: [FlagSpec] = [
        FlagSpec("env", value: .choice(["test", "release", "sandbox"]), valueName: "NAME", summary: "Environment: test or release, or an http(s) URL as --base-url takes; sandbox only with --sandbox (SXK_ENV)"),
        FlagSpec("base-url", value: .string, valueName: "URL", summary: "Use this server instead of the environment's (SXK_BASE_URL)"),
        FlagSpec("profile", value: .string, valueName: "NAME", summary: "State profile, default the environment name or host-port of --base-url (SXK_PROFILE)"),
        FlagSpec("state-dir", value: .path, valueName: "DIR", summary: "Keep state in DIR (SXK_STATE_DIR)"),
        FlagSpec("json", summary: "Print data as JSON"),
        FlagSpec("no-color", summary: "No colour (also NO_COLOR)"),
        FlagSpec("trace", summary: "Print each request and response (secrets masked) on stderr"),
        FlagSpec("timeout", value: .double, valueName: "SECONDS", summary: "Request timeout"),
        FlagSpec("insecure-http", summary: "Allow plain http:// to a non-loopback host"),
        FlagSpec("sandbox", summary: "Start the embedded sandbox backend and use it"),
        FlagSpec("keep-going", summary: "Scripts, -c and piped commands: go on after a failing command"),
        FlagSpec("reset-state", summary: "Clear the profile's token, snapshot and preferences first (asks on a terminal)"),
        FlagSpec("no-rc", summary: "Do not run the startup file ($XDG_CONFIG_HOME/sxk/sxkrc)"),
        FlagSpec("version", summary: "Print the version and exit"),
        FlagSpec("help", short: "h", summary: "Show this help and exit"),
        FlagSpec("revalidate", summary: "Validate the session first (whoami too) even if it was validated in the last 5 minutes"),
        FlagSpec("har", value: .path, valueName: "FILE", summary: "At exit, write the requests sent to FILE as HTTP Archive 1.2 (secrets masked)"),
        FlagSpec("no-pager", summary: "Print long output directly, not through $SXK_PAGER / $PAGER / less"),
        FlagSpec("cacert", value: .path, valueName: "FILE", summary: "Trust the CA certificates in FILE for https instead of the system's (SXK_CACERT)"),
        FlagSpec("persist", value: .double, valueName: "SECONDS", summary: "Keep connections open for later one-shots that long after last use; 0 stops (SXK_PERSIST)"),
    ]
}

extension GlobalOptions {
    /// The global option `word` names (`--NAME`, or `-X` for one with a short name), nil for none.
    public static func flag(named word: String) -> FlagSpec? {
        flags.first { "--" + $0.name == word || $0.short.map { "-" + String($0) == word } == true }
    }
}

/// How sxk was asked to run.
public enum RunMode: Sendable, Equatable {
    /// Interactive line editor (stdin is a terminal, no command given).
    case repl
    /// `-c 'CMDS'`: commands separated by `;` or newlines.
    case commands(String)
    /// `sxk FILE`.
    case script(String)
    /// `sxk COMMAND ARGS…`.
    case oneShot([String])
    /// stdin is not a terminal: read commands line by line, no prompt, no history.
    case stdin
}

/// The parsed command line: global options and the run mode.
public struct Invocation: Sendable, Equatable {
    public var options: GlobalOptions
    public var mode: RunMode

    public init(options: GlobalOptions, mode: RunMode) {
        self.options = options
        self.mode = mode
    }

    /// Parses `arguments` (without the program name). `isCommand` tells a command name from a
    /// script path: the first non-option word that names a command makes a one-shot run.
    public static func parse(
        _ arguments: [String], environment: [String: String], stdinIsTerminal: Bool,
        isCommand: (String) -> Bool
    ) throws -> Invocation {
        var o = GlobalOptions()
        o.env = environment["SXK_ENV"].flatMap(nonEmpty)
        o.baseURL = environment["SXK_BASE_URL"].flatMap(nonEmpty)
        o.profile = environment["SXK_PROFILE"].flatMap(nonEmpty)
        o.stateDir = environment["SXK_STATE_DIR"].flatMap(nonEmpty).map { ValueCheck.expanded($0, kind: .path) }
        o.noColor = Terminal.noColor(environment)
        o.caCert = environment["SXK_CACERT"].flatMap(nonEmpty).map { ValueCheck.expanded($0, kind: .path) }
        // A bad setting in the environment is said by the run that uses it (`persistProblem`): help,
        // version, the completion scripts and Tab never do, and keep working.
        if let text = environment["SXK_PERSIST"].flatMap(nonEmpty) {
            do { o.persist = try persistSeconds(text, "SXK_PERSIST") } catch { o.persistProblem = "\(error)" }
        }
        var commandText: String?
        var baseURLGiven = false, envGiven = false, sandboxGiven = false
        var i = 0

        func value(_ name: String, inline: String?) throws -> String {
            if let inline { return inline }
            guard i < arguments.count else { throw UsageError("missing value for '\(name)'") }
            defer { i += 1 }
            return arguments[i]
        }

        while i < arguments.count {
            let arg = arguments[i]
            if !arg.hasPrefix("-") || arg == "-" { break }
            i += 1
            if arg == "--" { break }
            var name = arg
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            if name == "-c" {
                // Two would silently run only the last: said, and `;` shown as the way to give several.
                guard commandText == nil else { throw UsageError("-c is given once: separate the commands with ';' or newlines") }
                commandText = try value(name, inline: inline)
                continue
            }
            // Which options there are and which take a value is `flags`' to say, as for help and completion.
            guard let spec = GlobalOptions.flag(named: name) else {
                let names = GlobalOptions.flags.map { "--" + $0.name } + ["-c"]
                throw UsageError("unknown option '\(name)'\(Suggestion.hint(name, names))")
            }
            if spec.isSwitch, inline != nil { throw UsageError("option '\(name)' takes no value") }
            let text = spec.isSwitch ? "" : try value(name, inline: inline)
            switch spec.name {
            case "env":
                o.env = text
                envGiven = true
                // The command line's environment beats SXK_BASE_URL's (a --base-url given too still wins).
                if !baseURLGiven { o.baseURL = nil }
            case "base-url":
                o.baseURL = text
                baseURLGiven = true
            case "profile":
                // An empty name would quietly be the environment's own profile.
                if text.isEmpty { throw UsageError("--profile needs a name") }
                o.profile = text
            case "state-dir":
                // An empty folder would quietly be the default one: the user's real profiles.
                if text.isEmpty { throw UsageError("--state-dir needs a folder") }
                o.stateDir = ValueCheck.expanded(text, kind: .path)
            case "cacert":
                if text.isEmpty { throw UsageError("--cacert needs a file") }
                o.caCert = ValueCheck.expanded(text, kind: .path)
            case "persist": o.persist = try persistSeconds(text, "--persist")
            case "timeout":
                guard let seconds = JSONValue.decimal(text), seconds > 0, seconds.isFinite else {
                    throw UsageError("--timeout expects a positive number of seconds, got '\(text)'")
                }
                o.timeout = seconds
            case "har":
                guard !text.isEmpty else { throw UsageError("--har expects a file name") }
                // `--har=~/x.har` reaches sxk unexpanded: sh expands a `~` only at a word's start.
                o.harFile = ValueCheck.expanded(text, kind: .path)
            case "json": o.json = true
            case "no-color": o.noColor = true
            case "trace": o.trace = true
            case "insecure-http": o.insecureHTTP = true
            case "sandbox": o.sandbox = true; sandboxGiven = true
            case "keep-going": o.keepGoing = true
            case "reset-state": o.resetState = true
            case "no-rc": o.noRC = true
            case "no-pager": o.noPager = true
            case "version": o.version = true
            case "help": o.help = true
            case "revalidate": o.revalidate = true
            default:
                preconditionFailure("global option --\(spec.name) is declared in GlobalOptions.flags but not read")
            }
        }
        // Two backends named on one command line: one of them would be silently ignored.
        if sandboxGiven && (baseURLGiven || (envGiven && o.env?.lowercased() != "sandbox")) {
            throw UsageError("--sandbox starts its own backend: leave out --\(baseURLGiven ? "base-url" : "env") (or --sandbox)")
        }
        let rest = Array(arguments[i...])
        if let commandText {
            if !rest.isEmpty { throw UsageError("unexpected argument '\(rest[0])' after -c") }
            return Invocation(options: o, mode: .commands(commandText))
        }
        guard let first = rest.first else {
            return Invocation(options: o, mode: stdinIsTerminal ? .repl : .stdin)
        }
        // `-` as the script, as sh reads it: the commands come from standard input, even a terminal's.
        if first == "-" {
            if rest.count > 1 { throw UsageError("unexpected argument '\(rest[1])' after script '-'") }
            return Invocation(options: o, mode: .stdin)
        }
        if isCommand(first) {
            if first == "__complete" { adoptCompletionLine(Array(rest.dropFirst()), into: &o) }
            return Invocation(options: o, mode: .oneShot(rest))
        }
        // A script's `~/` is the home folder, as every FILE's is.
        let script = first.hasPrefix("~/") ? ValueCheck.expanded(first, kind: .path) : first
        let isFile = FileManager.default.fileExists(atPath: script)
        // A mistyped command (`sxk ordrs --json`) runs as one, so the runner suggests the right name.
        if !isFile && looksLikeCommand(first) { return Invocation(options: o, mode: .oneShot(rest)) }
        if rest.count > 1 {
            if !isFile { throw UsageError("no such script file '\(first)'") }
            throw UsageError("unexpected argument '\(rest[1])' after script '\(first)'")
        }
        return Invocation(options: o, mode: .script(script))
    }

    /// The completion scripts pass the whole line (`sxk __complete -- --profile dev scenic ""`): the
    /// backend and state options typed before its command pick the profile whose cache completes it,
    /// as they would for the command itself. The last word is the one being completed, never a value.
    /// A malformed option is left to the command line itself; completion stays quiet.
    static func adoptCompletionLine(_ words: [String], into o: inout GlobalOptions) {
        var line = words
        if line.first == "--" { line.removeFirst() }
        guard !line.isEmpty else { return }
        line.removeLast()
        var i = 0
        while i < line.count, line[i].hasPrefix("-"), line[i] != "-" {
            var name = line[i], inline: String?
            if name.hasPrefix("--"), let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            i += 1
            let takesValue = name == "-c" || GlobalOptions.flags.contains { "--" + $0.name == name && !$0.isSwitch }
            var value = inline
            if takesValue && inline == nil {
                guard i < line.count else { return }
                value = line[i]
                i += 1
            }
            switch (name, value) {
            case ("--env", let v?): o.env = v
            case ("--base-url", let v?): o.baseURL = v
            case ("--profile", let v?): o.profile = v
            case ("--state-dir", let v?): o.stateDir = v
            case ("--sandbox", _): o.sandbox = true
            default: break
            }
        }
    }

    /// A word that is no file and has no `/` or `.` is taken for a command name, not a script path.
    public static func looksLikeCommand(_ word: String) -> Bool {
        !word.contains("/") && !word.contains(".")
    }

    private static func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }

    /// A persist time: 0 (stop) or a positive number of seconds up to a day.
    public static func persistSeconds(_ text: String, _ name: String) throws -> Double {
        // Decimal only (`ValueCheck.isNumber`): `Double` also reads hexadecimal (`0x10`), which no one means as seconds.
        // No sign, and 0 only as written (`1e-400` reads as 0): 0 stops the holder, never by a typo's rounding.
        let signed = text.hasPrefix("-") || text.hasPrefix("+")
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        guard !signed, let seconds = JSONValue.decimal(text), seconds.isFinite, seconds >= 0, seconds <= 86_400,
              seconds > 0 || !mantissa.contains(where: { ("1"..."9").contains($0) }) else {
            throw UsageError("\(name) expects seconds from 0 to 86400, got '\(text)'")
        }
        return seconds
    }
}
