import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `login`, `accounts`, `switch-account`, `logout` (seed 000 §3, seed 001 登录和退出).
extension AppCommands {
    func login(_ command: ParsedCommand) async throws -> CommandOutput {
        let features = try host.features()
        let auth = features.auth
        let prefs = auth.storedPreferences
        guard let phone = command.positionals.first ?? prefs.lastPhone else {
            throw AppError.usage("login needs a PHONE (no last phone stored)")
        }
        if command.positionals.isEmpty {
            // The login page fills in the last phone; say which one before the password is asked.
            io.stderr.write(TerminalText.sanitize("phone \(Redaction.maskPhone(phone)) (the last login's; `login PHONE` for another)") + "\n")
        }
        let privacy = prefs.privacyAccepted || command.has("accept-privacy")
        // Local checks first (seed 000 §3.3), then the password, then the network: a password typed
        // ahead of the prompt is read with echo off instead of meeting a terminal still echoing.
        try AuthSessionCoordinator.validateLogin(phone: phone, password: "-", privacyAccepted: privacy)
        let password = try await readPassword(fromStdin: command.has("password-stdin"))
        // The login page loads the config as it appears, beside v9/login; a failure is ignored (seed 000 §3.2).
        let step = try await auth.loginFromLoginPage(phone: phone, password: password, privacyAccepted: privacy, choice: command.option("account"))
        let outcome: LoginOutcome
        switch step {
        case .completed(let done):
            outcome = done
        case .chooseAccount(let accounts):
            let choice: String
            do { choice = try await chooseAccount(accounts) } catch { auth.cancelAccountChoice(); throw error }
            outcome = try await auth.chooseAccount(choice)
        }
        host.contextOrigin = "login in this shell"
        // The session belongs to this backend: `--profile NAME` alone comes back to it.
        services.rememberBackend()
        return report(outcome, verb: "logged in as")
    }

    /// The password from stdin (`--password-stdin`, first line) or a no-echo prompt; never an argument.
    func readPassword(fromStdin: Bool) async throws -> String {
        if fromStdin {
            guard let line = StdinLine.read() else { throw AppError.usage("--password-stdin: standard input is empty") }
            return line
        }
        switch try await io.readReply(prompt: "password: ", secret: true) {
        case .answer(let secret): return secret
        case .endOfInput: throw FeatureError.cancelled
        case .noTerminal: throw AppError.usage("no terminal to ask for the password — use --password-stdin")
        }
    }

    /// The numbered account choice the app shows as a dialog when a login has several accounts.
    private func chooseAccount(_ accounts: [Account]) async throws -> String {
        io.stderr.write("this login has \(accounts.count) accounts:\n")
        for (i, account) in accounts.enumerated() {
            // Names and codes are server text: made inert before the terminal.
            io.stderr.write(TerminalText.sanitize("  \(i + 1)) \(account.accountDisplayName)  [\(account.userId) \(account.accountType) \(account.roleCode)]") + "\n")
        }
        // A wrong answer asks again; Ctrl-C, Ctrl-D or an empty line cancel.
        while true {
            switch try await io.readReply(prompt: "choose 1-\(accounts.count): ") {
            case .noTerminal: throw AppError.usage("several accounts and no terminal to choose — pass --account ID|INDEX")
            case .endOfInput: throw FeatureError.cancelled
            case .answer(let answer):
                switch AuthSessionCoordinator.accountChoice(answer, in: accounts) {
                case .chosen(let account): return String(account.userId)
                case .cancel: throw FeatureError.cancelled
                case .invalid(let why): io.stderr.write(why + "\n")
                }
            }
        }
    }

    /// The account a login or switch ended on: `--json` prints the record; the confirmation line is
    /// a status, so it goes to stderr and stdout stays data (`login …; orders --ndjson | jq` works).
    private func report(_ outcome: LoginOutcome, verb: String) -> CommandOutput {
        for warning in outcome.warnings { io.warning(warning) }
        StoreListCache.remember(services.contexts.account.current.stores, in: services.storage)
        let account = outcome.account
        var output = CommandOutput(data: ["account": account.json, "accounts": .int(outcome.accounts.count)])
        let role = services.contexts.permission.current.roleCode ?? account.roleCode
        output.notes.append("\(verb) \(account.accountDisplayName) (user \(account.userId), \(account.accountType), role \(role))")
        return output
    }

    func accounts(_ command: ParsedCommand) throws -> CommandOutput {
        let rows = try host.features().auth.accounts()
        let records: [JSONValue] = rows.map { row in
            var o = row.account.json.objectValue ?? JSONObject()
            o["index"] = .int(row.index)
            o["current"] = .bool(row.isCurrent)
            return .object(o)
        }
        var output = CommandOutput(data: .array(records))
        guard !rows.isEmpty else {
            output.notes.append("(no account list — the list exists after `login` in this shell)")
            return output
        }
        output.table([
            OutputColumn("current", "", priority: 95, cuttable: false) { $0.objectValue?["current"] == .bool(true) ? "*" : "" },
            OutputColumn("index", "#", alignment: .right, priority: 90, cuttable: false),
            OutputColumn("userId", "USER", alignment: .right, priority: 85, cuttable: false),
            OutputColumn("accountType", "TYPE", priority: 40),
            OutputColumn("roleCode", "ROLE", priority: 60),
            OutputColumn("accountDisplayName", "ACCOUNT", priority: 70) { r in rows.first { $0.index == r.objectValue?.int("index") }?.account.accountDisplayName ?? "" },
        ], records)
        return output
    }

    func switchAccount(_ command: ParsedCommand) async throws -> CommandOutput {
        let auth = try host.features().auth
        let selector: String
        let appStore = services.storage.appStore
        // `ID:TYPE`: an id can be a scenic and a store account at once.
        let left = appStore.userId.map { "\($0):\(appStore.accountType ?? "")" }
        if command.positionals.first == "-" {
            guard let previous = appStore.previous(.account) else { throw FeatureError.noPrevious("account") }
            selector = previous
        } else if let given = command.positionals.first {
            selector = given
        } else {
            let rows = auth.accounts()
            guard !rows.isEmpty else { throw FeatureError.noAccountList }
            selector = try await chooseAccount(rows.map(\.account))
        }
        // The account already current: nothing to switch, and the role chosen in it stays (set-user
        // would load the account's own role again).
        let known = auth.knownAccounts()
        if services.contexts.session.token != nil, let target = try? AuthSessionCoordinator.resolve(selector, in: known),
           target.userId == appStore.userId, target.accountType == appStore.accountType {
            let role = services.contexts.permission.current.roleCode ?? target.roleCode
            var output = CommandOutput(data: ["account": target.json, "accounts": .int(known.count), "switched": false])
            output.notes.append("already on \(target.accountDisplayName) (user \(target.userId), \(target.accountType), role \(role)): nothing switched")
            return output
        }
        // A new process holds no temporary token: the password is asked once (or read from stdin).
        let asked = PasswordFailure()
        let outcome: LoginOutcome
        do {
            outcome = try await auth.switchAccount(to: selector, password: passwordSource(fromStdin: command.has("password-stdin"), failure: asked))
        } catch {
            // The facade wraps what the prompt threw; a usage problem (no terminal, empty stdin) stays one.
            throw asked.error ?? error
        }
        host.contextOrigin = "switch-account"
        // What `switch-account -` goes back to (one atomic save of defaults.json).
        let now = appStore.userId.map { "\($0):\(appStore.accountType ?? "")" }
        if let left, left != now { try appStore.batch { () throws(SessionError) in appStore.stagePrevious(.account, left) } }
        var output = report(outcome, verb: "switched to")
        if outcome.setUserWith == .formal {
            output.notes.append("set-user was sent with the current formal token: the app sends the login's temporary token (seed 000 §3.3), which this process does not hold; a refusal falls back to logging in again \(Rules.switchAccountToken.marker)")
        }
        return output
    }

    /// The password for a new login when no held token can do the set-user (`switch-account`,
    /// `compare --as account:` in a new process): stdin with `--password-stdin`, else the no-echo prompt.
    func passwordSource(fromStdin: Bool, failure: PasswordFailure) -> AuthSessionCoordinator.PasswordSource {
        let commands = self
        return { phone, account in
            commands.io.warning("no token of this process can switch to account \(account.userId) — password of \(phone) needed once")
            do { return try await commands.readPassword(fromStdin: fromStdin) } catch let error as AppError {
                failure.error = error
                throw error
            }
        }
    }

    func logout(_ command: ParsedCommand) throws -> CommandOutput {
        try host.features().auth.logout()
        var output = CommandOutput(data: ["loggedOut": true, "kept": ["lastPhone", "privacyAccepted"]])
        output.notes.append("logged out (last phone and privacy choice kept)")
        return output
    }
}

/// What the password prompt threw when it was the prompt's own problem (no terminal, empty stdin),
/// kept so the command reports it as a usage error rather than as the facade's wrapped failure.
final class PasswordFailure: @unchecked Sendable {
    private let lock = NSLock()
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
