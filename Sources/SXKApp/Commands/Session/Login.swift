import SXKShell

extension Commands {
    enum Login: AppCommand {
        static let spec = CommandSpec(
            "login", summary: "log in: local checks, v9/login, account choice, set-user",
            discussion: "The password is read at a no-echo prompt, or from standard input with --password-stdin; it is never accepted as an argument. A login line is never written to history.",
            arguments: [ArgumentSpec("PHONE", optional: true, summary: "11 digits starting with 1 (default: the last phone)")],
            flags: [
                FlagSpec("password-stdin", summary: "read the password from standard input"),
                FlagSpec("account", value: .provider("login-account"), valueName: "ID|INDEX", summary: "choose this account when the login has several"),
                FlagSpec("accept-privacy", summary: "accept the privacy agreement (remembered)"),
                json,
            ],
            examples: ["login 13800000001", "echo \"$PW\" | sxk login 13800000004 --password-stdin --account 2"],
            neverInHistory: true
        )
        static let watchable = false

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.login(command)
        }
    }
}
