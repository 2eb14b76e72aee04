import FoundationEssentials
import SXKCore

/// What the app gives the shell: its commands and how to run them. The shell owns the loop,
/// parsing, help, completion, history, signals and exit codes.
public protocol ShellHost: AnyObject, Sendable {
    /// The app's commands; the shell adds its builtins (help, version, exit, history, completion).
    var commandSpecs: [CommandSpec] { get }
    /// The REPL prompt, asked before each line.
    func prompt() -> PromptText
    /// Lines to say before the prompt is drawn (another sxk process changed the session): the
    /// prompt then shows the session as it is. Asked before each prompt of the REPL.
    func noticesBeforePrompt() -> [String]
    /// Runs one parsed app command; returns its exit status. Thrown errors are shown as one
    /// `error:` line and mapped through `exitStatus(for:)` (`UsageError` → 2, cancellation → 130).
    func execute(_ command: ParsedCommand, io: CommandIO) async throws -> Int32
    /// Values for `ValueKind.provider(name)` from cached data only, already matched to `prefix`.
    func completions(for provider: String, prefix: String) -> [CompletionCandidate]
    /// The exit status for an error thrown by `execute` (1 failed, 3 not logged in, 4 network…).
    func exitStatus(for error: any Error) -> Int32
    /// Save state before the process ends (normal exit, SIGTERM, SIGHUP).
    func shutdown()
    /// True when `shutdown` could not write a file the user asked for (`--har`): a run that
    /// succeeded otherwise then ends with 1, the artifact being lost.
    var shutdownLostOutput: Bool { get }
    /// Secrets the session holds (the token): never kept in a variable or `$_`.
    var secrets: [String] { get }
    /// Where a command would run now (profile, role, scenic, store), kept with each history line.
    func historyContext() -> HistoryContext?
    /// The pager for long output on a terminal (`Pager.command`), nil when the user turned paging
    /// off (`pager off`); the shell adds `--no-pager` and the terminal check.
    func pager() -> String?
}

extension ShellHost {
    /// The one mapping of a thrown error to an exit status: cancellation 130, usage 2, else the host's (never 0).
    public func status(forThrown error: any Error) -> Int32 {
        if error is CancellationError { return ExitStatus.interrupted }
        if error is UsageError { return ExitStatus.usage }
        let status = exitStatus(for: error)
        return status == 0 ? ExitStatus.failure : status
    }

    public func noticesBeforePrompt() -> [String] { [] }
    public var shutdownLostOutput: Bool { false }
    public var secrets: [String] { [] }
    public func historyContext() -> HistoryContext? { nil }
    public func pager() -> String? { Pager.command(environment: ProcessEnvironment.current()) }
}

/// Exit statuses shared by the shell and the app.
public enum ExitStatus {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    public static let notLoggedIn: Int32 = 3
    public static let network: Int32 = 4
    public static let interrupted: Int32 = 130
}

/// Adapts a host to the completion engine's provider protocol.
struct HostValues: CompletionValueProvider, @unchecked Sendable {
    let host: any ShellHost
    func completions(for provider: String, prefix: String) -> [CompletionCandidate] {
        host.completions(for: provider, prefix: prefix)
    }
}
