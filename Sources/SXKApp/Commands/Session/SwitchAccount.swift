import SXKFeatures
import SXKSession
import SXKShell

extension Commands {
    enum SwitchAccount: AppCommand {
        static let spec = CommandSpec(
            "switch-account", summary: "switch to another account of this login via set-user",
            discussion: "Works in any process: the login's account list is kept in the profile (never a token). When no held token can do the set-user (a new process has no temporary token), the password is asked once (no echo) or read with --password-stdin.",
            arguments: [ArgumentSpec("ID[:TYPE]|INDEX|-", kind: .provider("account"), optional: true,
                                     summary: "account id (ID:scenic or ID:store when an id is both), list number, or - for the one before",
                                     typedInPlace: .account)],
            flags: [FlagSpec("password-stdin", summary: "read the password from standard input if a new login is needed"), json],
            examples: ["switch-account 2", "switch-account 5001:store", "switch-account -", "echo \"$PW\" | sxk switch-account 4002 --password-stdin"],
            neverInHistory: true
        )
        static let unwatchable: String? = "it replaces the session (and may ask for a password)"
        /// With an account named (or `-`, the one before); a bare one may have nothing to choose, or waits for a choice.
        static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool { words.contains { $0 == "-" || !$0.hasPrefix("-") } }

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { true }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.switchAccount(command)
        }
    }
}

extension AppCommands {
    fileprivate func switchAccount(_ command: ParsedCommand) async throws -> CommandOutput {
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
            // One account leaves nothing to choose: it is the one switched to (or already on).
            if rows.count == 1, let only = rows.first?.account {
                selector = "\(only.userId):\(only.accountType)"
            } else {
                selector = try await chooseAccount(rows.map(\.account), hint: "name one: switch-account ID|INDEX")
            }
        }
        // The account already current: nothing to switch, and the role chosen in it stays.
        if let target = auth.currentAccount(named: selector) {
            let role = services.contexts.permission.current.roleCode ?? target.roleCode
            var output = CommandOutput(data: ["account": target.json, "accounts": .int(auth.knownAccounts().count), "switched": false])
            output.notes.append("already on \(target.accountDisplayName) (user \(target.userId), \(target.accountType), role \(role)): nothing switched")
            return output
        }
        // A new process holds no temporary token: the password is asked once (or read from stdin).
        let asked = PasswordFailure()
        let outcome: LoginOutcome
        do {
            // A password may be asked once set-user has answered: keys typed ahead are not shown meanwhile.
            let password = passwordSource(fromStdin: command.has("password-stdin"), failure: asked)
            outcome = try await io.withEchoOff(prompting: asksForPassword(command)) { try await auth.switchAccount(to: selector, password: password) }
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
}
