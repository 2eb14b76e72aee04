import SXKShell

extension Commands {
    enum SwitchAccount: AppCommand {
        static let spec = CommandSpec(
            "switch-account", summary: "switch to another account of this login via set-user",
            discussion: "Works in any process: the login's account list is kept in the profile (never a token). When no held token can do the set-user (a new process has no temporary token), the password is asked once (no echo) or read with --password-stdin.",
            arguments: [ArgumentSpec("ID[:TYPE]|INDEX|-", kind: .provider("account"), optional: true,
                                     summary: "account id (ID:scenic or ID:store when an id is both), list number, or - for the one before")],
            flags: [FlagSpec("password-stdin", summary: "read the password from standard input if a new login is needed"), json],
            examples: ["switch-account 2", "switch-account 5001:store", "switch-account -", "echo \"$PW\" | sxk switch-account 4002 --password-stdin"],
            neverInHistory: true
        )
        static let watchable = false

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.switchAccount(command)
        }
    }
}
