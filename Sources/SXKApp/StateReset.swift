import FoundationEssentials
import SXKAPI
import SXKSession
import SXKShell
import SXKCore

/// `--reset-state`, the shell's twin of the app's UI-test reset flag: before anything else at start
/// (before the sandbox, the profile's storage or the session restore), the chosen profile's token and
/// `defaults.json` — snapshot, preferences, account-scoped keys — are removed under the profile lock.
/// On a terminal it asks first and a "no" stops sxk (exit 1) with nothing changed; without a terminal
/// (scripts, CI, UI tests) it proceeds, as the app's launch flag does. History and other profiles stay.
enum StateReset {
    static func runIfAsked(_ context: ShellContext) async throws {
        let options = context.options
        guard options.resetState, let envName = environmentName(options) else { return }
        let paths = try SXKSession.StatePaths.resolve(
            stateDir: options.stateDir, profile: options.profile, envName: envName, environment: context.environment)
        let reset = ProfileReset(paths: paths)
        let stderr = StandardOutput.stderr
        guard !reset.storedFiles.isEmpty else {
            Diagnostics(sink: stderr).note("reset-state: profile '\(paths.profile)' holds no token, snapshot or preferences; nothing to clear")
            return
        }
        if context.terminal.stdinIsTerminal {
            let io = CommandIO(stdout: StandardOutput.stdout, stderr: stderr, terminal: context.terminal, options: options, isInteractive: true)
            let answer: String?
            do {
                answer = try await io.readLine(prompt: "Reset state of profile '\(paths.profile)' (token, snapshot, preferences)? [y/N] ")
            } catch {
                answer = nil
            }
            let yes = ["y", "yes"].contains(answer?.trimming(\.isBlank).lowercased() ?? "")
            guard yes else { throw AppError.failed("reset cancelled: profile '\(paths.profile)' left as it was") }
        }
        let removed = try reset.run()
        let names = removed.map { PathText.name(of: $0) }.joined(separator: " and ")
        Diagnostics(sink: stderr).note("reset-state: profile '\(paths.profile)' cleared (\(names) removed)")
    }

    /// The environment's name, which names the default profile; nil when the options name no valid
    /// environment (the normal start-up then reports that error).
    static func environmentName(_ options: GlobalOptions) -> String? {
        if options.sandbox { return "sandbox" }
        if let url = options.baseURL {
            return (try? APIEnvironment.validatedBaseURL(url)).map { APIEnvironment.custom($0).defaultProfile }
        }
        guard let name = options.env else { return APIEnvironment.test.name }
        return (try? APIEnvironment.parse(name)).map { $0.defaultProfile }
    }
}
