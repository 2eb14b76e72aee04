import FoundationEssentials
import SXKAPI
import SXKCore
import SXKSandbox
import SXKSession
import SXKShell
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `sxk` program: builds the host from the global options and hands it to the shell.
/// Start-up does no network and no work the first prompt does not need.
public enum SXKApplication {
    public static let version = "0.1.0"

    /// What `start` read on the main thread.
    public struct Start: Sendable {
        let environment: [String: String]
    }

    /// The synchronous start, on the main thread before the program's task is made: the task waits for
    /// the cooperative pool's first thread (≈ 2 ms), so a one-shot that sends starts libcurl's load here.
    public static func start() -> Start {
        // Everything this process creates is private, including what Foundation makes on its own
        // (a URL cache folder); the state files set 0600/0700 explicitly as well.
        umask(0o077)
        // No core file: it would hold the live token (a crash is still reported on stderr).
        #if canImport(Glibc)
        let coreLimit = __rlimit_resource_t(RLIMIT_CORE.rawValue)
        #else
        let coreLimit = RLIMIT_CORE
        #endif
        var core = rlimit()
        if getrlimit(coreLimit, &core) == 0, core.rlim_cur != 0 {
            core.rlim_cur = 0
            _ = setrlimit(coreLimit, &core)
        }
        openClosedStandardDescriptors()
        let environment = ProcessEnvironment.current()
        // Only once the environment is read: loading libcurl sets and removes a variable (CCurl).
        if oneShotWillSend(Array(CommandLine.arguments.dropFirst()), environment: environment) {
            // The shell's threads first: one started during the load would wait for most of it.
            ShellThreads.startEarly()
            CurlTransport.prepareEngine()
        }
        return Start(environment: environment)
    }

    /// Started with standard input, output or error closed (`>&-`), the first file or socket sxk
    /// opens would take that number and receive its output (a state file, libcurl's socket). Each
    /// is held by /dev/null first: input reads as empty, error output is dropped, and output is
    /// opened read-only, so writing it fails and is reported (exit 1) as any lost output is.
    static func openClosedStandardDescriptors() {
        for (fd, flags) in [(Int32(0), O_RDONLY), (1, O_RDONLY), (2, O_WRONLY)] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", flags | O_CLOEXEC)
            // Opened at the lowest free number, which is `fd` (the lower ones are open by now).
            if null >= 0, null != fd { _ = dup2(null, fd); _ = close(null) }
            if null >= 0 { _ = fcntl(fd, F_SETFD, 0) }
        }
    }

    /// `main`, then the process ends with its status on the thread that finished it (the main thread
    /// only waits: `Sources/sxk/main.swift`). Returning the status to a main-actor caller would hop
    /// there first, and on Linux that queue's work runs on a thread started for it (≈ 1 ms).
    /// `_exit` once stdio is flushed: `exit`'s handlers (OpenSSL's clean-up, every library's
    /// destructors) only free what the kernel takes back, ≈ 0.4 ms of a one-shot that loaded libcurl,
    /// and they raced a load still running on libcurl's thread (a usage error right after the start).
    /// Every file sxk writes is complete by then (and synced, but for the completion cache).
    public static func runAndExit(_ start: Start) async -> Never {
        let status = await main(start)
        fflush(nil)
        _exit(status)
    }

    public static func main(_ start: Start) async -> Int32 {
        let environment = start.environment
        if CommandLine.arguments.count > 1, CommandLine.arguments[1] == KeptConnection.holderArgument {
            return ConnectionHolder.run(arguments: CommandLine.arguments, identity: KeptConnection.identity(version: version, environment: environment))
        }
        var built: AppServices?
        return await ShellMain.run(
            version: version, commandSpecs: CommandCatalog.all, environment: environment,
            historyPath: { _ in built?.paths.historyFile },
            rcPath: { _ in built.map { $0.paths.configDir + "/sxkrc" } },
            startFailureStatus: { ExitCodes.status(for: $0) }
        ) { context in
            try await StateReset.runIfAsked(context)
            let host = try makeHost(context)
            built = host.services
            return host
        }
    }

    /// The backend the options name without `--sandbox`: `--base-url`, `--env`, the backend a named
    /// profile remembers, else `test`.
    static func namedEnvironment(_ options: GlobalOptions, _ context: ShellContext, completing: Bool) throws -> APIEnvironment {
        // A wrong `--env` is said even beside `--base-url` (which names the backend when both are given).
        var named: APIEnvironment?
        if let name = options.env {
            if name.lowercased() == "sandbox" {
                throw AppError.usage("the sandbox environment needs --sandbox (a running sxk-sandbox is reached with --base-url URL)")
            }
            let parsed = Result { () throws(APIError) in try APIEnvironment.parse(name) }
            switch parsed {
            case .success(let environment): named = environment
            // A URL says what is wrong with it; a word was meant as an environment's name.
            case .failure(let error) where name.contains("://"): throw error
            case .failure:
                throw AppError.usage(TerminalText.sanitize("--env: '\(name)' is neither an environment (test, release; sandbox with --sandbox) nor an http(s)://host[:port] URL"))
            }
        }
        if let url = options.baseURL { return .custom(try APIEnvironment.validatedBaseURL(url)) }
        if let named { return named }
        let record = try options.profile.map { named in
            ProfileBackend.record(
                root: try SXKSession.StatePaths.resolve(stateDir: options.stateDir, profile: named, envName: "test", environment: context.environment).root,
                profile: named)
        }
        if let named = options.profile, record == .unreadable, !completing {
            // Not the default `test`: the profile's session belongs to some backend, which is not known.
            throw UsageError(TerminalText.sanitize("profile '\(named)' has a backend.json sxk cannot read — add --env or --base-url"))
        }
        if let named = options.profile, case .known(let backend)? = record {
            // Only the profile named: the backend it was last used with, not the default `test`.
            return completing && backend.environment == "sandbox"
                ? .sandbox(URL(string: "http://127.0.0.1")!) : try APIEnvironment.remembered(backend, profile: named)
        }
        return .test
    }

    static func makeHost(_ context: ShellContext) throws -> SXKHost {
        let stderr = StandardOutput.stderr
        let options = context.options
        var sandbox: SandboxServer?
        let environment: APIEnvironment
        // Completion reads the profile's cache only: no sandbox is started, no backend remembered.
        let completing: Bool
        if case .oneShot(let words) = context.mode, words.first == "__complete" { completing = true } else { completing = false }
        let stateless = readsNoState(context.mode)
        if let problem = options.persistProblem, !stateless { throw UsageError(problem) }
        if options.sandbox && completing {
            environment = .sandbox(URL(string: "http://127.0.0.1")!)
        } else if options.sandbox {
            // Its tokens live beside the profile it serves, so a stored login survives the next run.
            let paths = try SXKSession.StatePaths.resolve(
                stateDir: options.stateDir, profile: options.profile, envName: "sandbox", environment: context.environment)
            let keeper = SandboxSessionFile(profileDir: paths.profileDir) { Diagnostics(sink: stderr).warning($0) }
            let spelling = try sandboxSpelling(context.environment)
            let server = SandboxServer(config: SandboxConfig(spelling: spelling, tokenKeeper: keeper))
            environment = .sandbox(try server.start())
            sandbox = server
            if context.mode == .repl {
                let spelled = spelling == .snake ? " (snake_case answers)" : ""
                Diagnostics(sink: stderr).note("sandbox backend on \(environment.baseURL.absoluteString)\(spelled) — demo logins: \(SandboxDemo.phones.joined(separator: ", ")) (password \(SandboxDemo.password))")
            }
        } else if completing || (stateless && !namesBackendOnCommandLine()) {
            // A backend named wrongly (`--base-url example.com` on the line being completed, a bad
            // SXK_BASE_URL or SXK_ENV): completion still answers, from the default profile's cache,
            // and help, version and the scripts are shown. One typed on the command line is refused.
            // Plain http off loopback (refused below) is named wrongly too.
            environment = (try? namedEnvironment(options, context, completing: true)).flatMap { refusesPlainHTTP($0, options) ? nil : $0 } ?? .test
        } else {
            environment = try namedEnvironment(options, context, completing: false)
        }
        // Plain http off loopback is refused at every request; refused here, before the profile's
        // folder is made and the backend recorded for a backend that cannot be used.
        if !stateless && !completing && refusesPlainHTTP(environment, options) {
            throw APIError.insecureURL(url: environment.baseURL.absoluteString)
        }
        let settings = AppSettings(trace: options.trace, status: context.status)
        // One libcurl transport for http and https; trust from --cacert / SXK_CACERT or the system's.
        let caCert = options.caCert, processEnvironment = context.environment
        // A CA file that cannot be read is the caller's mistake (2), said before anything runs, not
        // a TLS failure (4) at the first request; not for a command that sends nothing (Tab, help).
        if let caCert, !readsNoState(context.mode), let reason = OutputFile.readRefusal(caCert) {
            let source = context.environment["SXK_CACERT"] == caCert && !CommandLine.arguments.contains(where: { $0.hasPrefix("--cacert") }) ? "SXK_CACERT" : "--cacert"
            throw UsageError(TerminalText.sanitize("\(source): cannot read \(caCert): \(reason)"))
        }
        let transport = RecordingTransport(base: CurlTransport(
            resolvingTrust: { TrustStore.resolve(caCert: caCert, environment: processEnvironment) },
            allowPlainHTTPOffLoopback: options.insecureHTTP))
        if let har = options.harFile {
            // Refused before anything runs, not at exit after the work is done.
            if let reason = OutputFile.laterWriteRefusal(har) { throw UsageError(TerminalText.sanitize("--har: refusing to write \(har): \(reason)")) }
            transport.ring.keep(atLeast: RequestRing.harCapacity)
        }
        func makeServices(stateDir: String?) throws -> AppServices {
            var chosen = options
            if let stateDir { chosen.stateDir = stateDir }
            return try AppServices(environment: environment, options: chosen, processEnvironment: context.environment,
                                   settings: settings, transport: transport, stderr: stderr)
        }
        let services: AppServices
        var borrowedState: String?
        if stateless && !completing {
            // Help, version, the completion scripts and the man page read no state: they make none
            // (no profile folder, no lock), running on an empty folder of their own, removed at the end.
            borrowedState = try emptyStateFolder(context.environment)
            services = try makeServices(stateDir: borrowedState)
        } else {
            do {
                services = try makeServices(stateDir: nil)
            } catch where completing {
                // Tab reads the profile's cache; with no state folder to be had (a build sandbox's HOME)
                // it runs on an empty one too (commands and flags complete, no cached names).
                borrowedState = try emptyStateFolder(context.environment)
                services = try makeServices(stateDir: borrowedState)
            }
        }
        keepConnections(options: options, mode: context.mode, environment: context.environment, paths: services.paths,
                        transport: transport, settings: settings, stderr: stderr)
        let host = SXKHost(shellContext: context, services: services, settings: settings, transport: transport,
                           sandbox: sandbox, stderr: stderr)
        host.borrowedStateFolder = borrowedState
        // A backend chosen on the command line is the profile's from now on, unless the profile's
        // session belongs to another: then its token is not sent (one warning, before anything runs).
        if !completing && !stateless,
           let withheld = services.adoptBackend(explicit: options.sandbox || options.baseURL != nil || options.env != nil) {
            if context.mode == .repl { Diagnostics(sink: stderr).warning(withheld) } else { host.deferBackendWarning(withheld) }
        }
        // Restore from the token and snapshot at once; validation waits for the first command that needs the server.
        let restored = try host.features().bootstrapper.restore()
        if restored.phase != .loggedOut { host.contextOrigin = "snapshot on disk, validated at first server command" }
        if services.storage.appStore.isDeviceSnapshot { try host.restoreSnapshotContexts() }
        return host
    }

    /// Whether `--env` or `--base-url` is on the command line (not only in the environment).
    static func namesBackendOnCommandLine() -> Bool {
        CommandLine.arguments.dropFirst().contains { $0 == "--env" || $0 == "--base-url" || $0.hasPrefix("--env=") || $0.hasPrefix("--base-url=") }
    }

    /// Plain http to a host that is not loopback, without `--insecure-http`.
    static func refusesPlainHTTP(_ environment: APIEnvironment, _ options: GlobalOptions) -> Bool {
        !options.insecureHTTP && environment.baseURL.scheme?.lowercased() == "http" && !APIEnvironment.isLoopback(host: environment.baseURL.host)
    }

    /// A one-shot of a command that reads no state (`help`, `version`, `completion`, `man`, Tab's `__complete`).
    static func readsNoState(_ mode: RunMode) -> Bool {
        guard case .oneShot(let words) = mode, let first = words.first else { return false }
        return ["help", "version", "completion", "man", "__complete"].contains(first)
    }

    /// A new private folder under TMPDIR (or /tmp) for a run that has no state folder of its own.
    static func emptyStateFolder(_ environment: [String: String]) throws -> String {
        // TMPDIR when it names a folder, else /tmp.
        let base = environment["TMPDIR"].flatMap { $0.isEmpty || !PathText.isDirectory($0) ? nil : $0 } ?? "/tmp"
        var template = Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast()) + Array("sxk-nostate-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw UsageError("no state folder can be made: \(String(cString: strerror(errno)))") }
        return String(cString: made)
    }

    /// True for a one-shot whose command sends at once (`AppCommand.sendsAtOnce`) and that sends directly
    /// (no connection holder: the `--persist` flag, else `SXK_PERSIST`, else the startup file's `persist` line
    /// unless `--no-rc`, is absent or 0, which stops a holder and sends directly): it loads libcurl and
    /// starts its engine on a second thread (`CurlTransport.prepareEngine`) while this one parses the
    /// options and reads the profile. Read from the raw arguments; a wrong guess (an option value that
    /// looks like a command) only loads libcurl early.
    static func oneShotWillSend(_ arguments: [String], environment: [String: String]) -> Bool {
        var i = 0
        var persistFlag: String?
        var noRC = false
        while i < arguments.count, arguments[i].hasPrefix("-"), arguments[i] != "-" {
            let word = arguments[i]
            i += 1
            if word == "--" { break }
            // A script (`-c`) never waits for libcurl's load here.
            if word == "-c" { return false }
            if word == "--no-rc" { noRC = true }
            if word == "--persist", i < arguments.count { persistFlag = arguments[i] }
            if word.hasPrefix("--persist=") { persistFlag = String(word.dropFirst("--persist=".count)) }
            if !word.contains("="), GlobalOptions.flags.contains(where: { "--" + $0.name == word && !$0.isSwitch }) { i += 1 }
        }
        guard i < arguments.count, let command = CommandRegistry.commands.first(where: { $0.spec.name == arguments[i] }),
              command.sendsAtOnce(arguments[(i + 1)...]) else { return false }
        // What `keepConnections` will decide: a holder for a setting above 0 (an invalid one is a usage
        // error, no request; in sxkrc a warning, and the request loads libcurl when it needs it).
        var setting = persistFlag
        if setting == nil, let variable = environment["SXK_PERSIST"], !variable.isEmpty { setting = variable }
        if setting == nil, !noRC, let rc = SXKShell.StatePaths.rcFile(environment: environment), access(rc, F_OK) == 0 {
            setting = StartupFile.persistSetting(rc)
        }
        if let setting, (try? Invocation.persistSeconds(setting, "persist")) != 0 { return false }
        return true
    }

    /// `SXK_SANDBOX_SPELLING=camel|snake`: how the embedded sandbox spells its answers (camel when unset),
    /// so a whole session can be run against a snake_case backend.
    static func sandboxSpelling(_ environment: [String: String]) throws -> SandboxSpelling {
        guard let name = environment["SXK_SANDBOX_SPELLING"], !name.isEmpty else { return .camel }
        guard let spelling = SandboxSpelling(name: name) else {
            throw UsageError("SXK_SANDBOX_SPELLING must be \(SandboxSpelling.names), not '\(name)'")
        }
        return spelling
    }

    /// `--persist SECONDS` / `SXK_PERSIST`: a one-shot (or `-c`, a script) sends through the profile's
    /// connection holder, starting one when there is none; 0 stops a running holder. The REPL keeps
    /// its own connections and never uses one.
    static func keepConnections(options: GlobalOptions, mode: RunMode, environment: [String: String], paths: SXKSession.StatePaths,
                                transport: RecordingTransport, settings: AppSettings, stderr: any OutputSink) {
        guard mode != .repl, options.harFile == nil else { return }
        // The flag and SXK_PERSIST win over the startup file's `persist SECONDS` line, which `--no-rc` skips.
        var setting = options.persist
        if setting == nil, !options.noRC, let text = StartupFile.persistSetting(paths.configDir + "/sxkrc") {
            do {
                setting = try Invocation.persistSeconds(text, "sxkrc persist")
            } catch {
                // A setting of the startup file, not of this command line: said, and the one-shot runs on.
                Diagnostics(sink: stderr).warning("\(TerminalText.sanitize(paths.configDir))/sxkrc: \(error); no connection is kept")
            }
        }
        guard let seconds = setting else { return }
        let socket = paths.profileDir + "/" + KeptConnection.socketName
        let identity = KeptConnection.identity(version: version, environment: environment)
        if seconds == 0 {
            var st = stat()
            if lstat(socket, &st) == 0 { _ = KeptConnectionTransport.stopHolder(socketPath: socket, identity: identity) }
            return
        }
        // The holder runs in `/`: a file a variable names relative to this folder (a TLS key log, host
        // aliases) would be another there, so such a one-shot sends directly.
        if let relative = KeptConnection.relativePathVariable(environment) {
            if settings.trace { Diagnostics(sink: stderr).note("* kept connection not used (\(relative) is a relative path): sending directly") }
            return
        }
        transport.keepConnections(KeptConnectionTransport(
            direct: transport.base, socketPath: socket, seconds: seconds, identity: identity,
            trace: { line in if settings.trace { Diagnostics(sink: stderr).note(line) } }))
    }
}
