import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    enum Login: AppCommand {
        static let spec = CommandSpec(
            "login", summary: "log in: local checks, v9/login, account choice, set-user",
            discussion: "The password is read at a no-echo prompt, or from standard input with --password-stdin; it is never accepted as an argument. A login line is never written to history.",
            arguments: [ArgumentSpec("PHONE", optional: true, summary: "11 digits starting with 1 (default: the last phone)", typedInPlace: .phone)],
            flags: [
                FlagSpec("password-stdin", summary: "read the password from standard input (a terminal: asked with echo off)"),
                FlagSpec("account", value: .provider("login-account"), valueName: "ID|INDEX", summary: "choose this account when the login has several"),
                FlagSpec("accept-privacy", summary: "accept the privacy agreement (remembered)"),
                json,
            ],
            examples: ["login 13800000001", "echo \"$PW\" | sxk login 13800000004 --password-stdin --account 2"],
            neverInHistory: true
        )
        static let unwatchable: String? = "it reads a password and replaces the session"
        static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool { true }

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { true }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.login(command)
        }
    }
}

extension AppCommands {
    fileprivate func login(_ command: ParsedCommand) async throws -> CommandOutput {
        let features = try host.features()
        let auth = features.auth
        let prefs = auth.storedPreferences
        guard let phone = command.positionals.first ?? prefs.lastPhone else {
            // No prompt follows: a password typed ahead for it is dropped, not run as the next line.
            if asksForPassword(command) { io.discardTypedAhead() }
            throw AppError.usage("login needs a PHONE (no last phone stored)")
        }
        if command.positionals.isEmpty {
            // The login page fills in the last phone; say which one before the password is asked.
            diagnostics.note("phone \(Redaction.maskPhone(phone)) (the last login's; `login PHONE` for another)")
        }
        let privacy = prefs.privacyAccepted || command.has("accept-privacy")
        // Local checks first (as the login page does), then the password, then the network: a password typed
        // ahead of the prompt is read with echo off instead of meeting a terminal still echoing.
        do {
            try AuthSessionCoordinator.validateLogin(phone: phone, password: "-", privacyAccepted: privacy)
        } catch {
            if asksForPassword(command) { io.discardTypedAhead() }
            throw error
        }
        let password = try await readPassword(fromStdin: command.has("password-stdin"))
        // The login page loads the config as it appears, beside v9/login; a failure is ignored.
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
        // The session belongs to this backend: its token's write recorded it (`TokenStore.beforeWrite`),
        // under the same lock, so `--profile NAME` alone comes back to it.
        host.contextOrigin = "login in this shell"
        return report(outcome, verb: "logged in as")
    }
}
