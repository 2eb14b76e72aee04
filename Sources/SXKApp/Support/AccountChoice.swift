import SXKFeatures
import SXKModels
import SXKShell

/// What `login` and `switch-account` share: the numbered account choice and the account they end on.
extension AppCommands {
    /// The numbered account choice the app shows as a dialog when a login has several accounts.
    /// `hint` says how to choose without a terminal (`login` takes `--account`, `switch-account` an argument).
    func chooseAccount(_ accounts: [Account], hint: String = "pass --account ID|INDEX") async throws -> String {
        // Said before the prompt, so through the sink at once (names and codes are server text).
        diagnostics.note("this login has \(accounts.count) accounts:")
        // Part of the question: wrapped at spaces on a terminal, as the lines after it are.
        for (i, account) in accounts.enumerated() {
            diagnostics.question("  \(i + 1)) \(account.accountDisplayName)  [\(account.userId) \(account.accountType) \(account.roleCode)]")
        }
        // A wrong answer asks again; Ctrl-C, Ctrl-D or an empty line cancel.
        while true {
            switch try await io.readReply(prompt: "choose 1-\(accounts.count): ") {
            case .noTerminal: throw AppError.usage("several accounts and no terminal to choose — \(hint)")
            case .endOfInput: throw FeatureError.cancelled
            case .answer(let answer):
                switch AuthSessionCoordinator.accountChoice(answer, in: accounts) {
                case .chosen(let account): return String(account.userId)
                case .cancel: throw FeatureError.cancelled
                case .invalid(let why): diagnostics.question(why)
                }
            }
        }
    }

    /// The account a login or switch ended on: `--json` prints the record; the confirmation line is
    /// a status, so it goes to stderr and stdout stays data (`login …; orders --ndjson | jq` works).
    func report(_ outcome: LoginOutcome, verb: String) -> CommandOutput {
        StoreListCache.remember(services.contexts.account.current.stores, in: services.storage)
        let account = outcome.account
        var output = CommandOutput(data: ["account": account.json, "accounts": .int(outcome.accounts.count)])
        output.warnings = outcome.warnings
        if outcome.interrupted { output.status = ExitStatus.interrupted }
        let role = services.contexts.permission.current.roleCode ?? account.roleCode
        output.notes.append("\(verb) \(account.accountDisplayName) (user \(account.userId), \(account.accountType), role \(role))")
        return output
    }
}
