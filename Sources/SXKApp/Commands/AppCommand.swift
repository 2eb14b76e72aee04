import SXKShell

/// One app command, declared in one file named after it (`Commands/<group>/<Name>.swift`): its spec
/// (parsing, help, completion and the manual page all read it), whether it calls the server (a
/// restored session is then validated first), whether `watch` may repeat it and `compare` send it,
/// and its run function, which returns data and notes for the renderer and never prints.
protocol AppCommand: Sendable {
    static var spec: CommandSpec { get }
    static var needsServer: Bool { get }
    /// `needsServer` for this run, for a command whose subcommands differ (`location` shows the
    /// stored state; only `location detail` calls).
    static func needsServer(_ command: ParsedCommand) -> Bool
    /// Whether a one-shot of it, these words after its name, sends a request at once: libcurl is then
    /// loaded beside the process's start (`SXKApplication.oneShotWillSend`). Read from the raw words
    /// before anything is parsed, so a guess: a wrong yes only loads libcurl early.
    static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool
    /// Whether this run shows the session (`whoami`): `--revalidate` then validates it first, so the
    /// view answers whether the server still accepts it.
    static func showsSession(_ command: ParsedCommand) -> Bool
    /// Why `watch` may not repeat it (it reads input, replaces the session, writes a file), said when
    /// asked to; nil for a command `watch` repeats.
    static var unwatchable: String? { get }
    /// Why `watch` cannot repeat this run of a watchable command (nil: it can), e.g. one that writes
    /// its rows as a stream rather than one screen.
    static func watchRefusal(_ command: ParsedCommand) -> String?
    /// `compare` may send it under several identities.
    static var comparable: Bool { get }
    /// Whether this run may write a device snapshot (docs/app-behaviour.md#snapshots): a switch the
    /// user typed, or a command that replaces the session. `--apply` always may.
    static func writesSnapshot(_ command: ParsedCommand) -> Bool
    static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput
}

extension AppCommand {
    static var needsServer: Bool { false }
    static func needsServer(_ command: ParsedCommand) -> Bool { needsServer }
    static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool { needsServer }
    static func showsSession(_ command: ParsedCommand) -> Bool { false }
    static var unwatchable: String? { nil }
    static func watchRefusal(_ command: ParsedCommand) -> String? { nil }
    static var comparable: Bool { false }
    static func writesSnapshot(_ command: ParsedCommand) -> Bool { false }
}

/// The namespace of the command types (`Commands.Orders`, `Commands.Stats` …), listed in `CommandRegistry`.
enum Commands {}
