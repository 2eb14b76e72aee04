import FoundationEssentials
import SXKFeatures
import SXKShell
import SXKCore

/// The password of a login, never an argument: `--password-stdin`'s first line or a no-echo prompt.
extension AppCommands {
    /// Whether the password is asked at the no-echo prompt: without `--password-stdin`, or with it on a terminal.
    func asksForPassword(_ command: ParsedCommand) -> Bool { !command.has("password-stdin") || io.terminal.stdinIsTerminal }

    /// The password from stdin (`--password-stdin`, first line) or a no-echo prompt; never an argument.
    func readPassword(fromStdin: Bool) async throws -> String {
        // On a terminal, stdin's next line is what the user types next: asked for with echo off, as
        // without the flag, so it is never shown nor taken from a line meant as the next command.
        if fromStdin, !io.terminal.stdinIsTerminal {
            guard let line = StdinLine.read() else { throw AppError.usage("--password-stdin: standard input is empty") }
            return line
        }
        switch try await io.readReply(prompt: "password: ", secret: true) {
        case .answer(let secret): return secret
        case .endOfInput: throw FeatureError.cancelled
        case .noTerminal: throw AppError.usage("no terminal to ask for the password — use --password-stdin")
        }
    }

    /// The password for a new login when no held token can do the set-user (`switch-account`,
    /// `compare --as account:` in a new process): stdin with `--password-stdin`, else the no-echo prompt.
    func passwordSource(fromStdin: Bool, failure: PasswordFailure) -> AuthSessionCoordinator.PasswordSource {
        let commands = self
        return { phone, account in
            commands.diagnostics.warning("no token of this process can switch to account \(account.userId) — password of \(Redaction.maskPhone(phone)) needed once")
            do { return try await commands.readPassword(fromStdin: fromStdin) } catch let error as AppError {
                failure.error = error
                throw error
            }
        }
    }
}

/// What the password prompt threw when it was the prompt's own problem (no terminal, empty stdin),
/// kept so the command reports it as a usage error rather than as the facade's wrapped failure.
final class PasswordFailure: @unchecked Sendable {
    private let lock = Lock()
    private var stored: AppError?
    var error: AppError? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Reads one line of standard input through the shell's shared reader, so a password line that
/// follows `login --password-stdin` in piped input is not lost to the command loop's buffer.
enum StdinLine {
    static func read() -> String? {
        switch PlainLineReader.standardInput.readLine(prompt: PromptText("")) {
        case .line(let text): return text
        default: return nil
        }
    }
}
