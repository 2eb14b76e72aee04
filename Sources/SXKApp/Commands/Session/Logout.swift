import SXKShell

extension Commands {
    enum Logout: AppCommand {
        static let spec = CommandSpec("logout", summary: "clear token, snapshot and contexts; keep last phone and privacy flag")
        static let unwatchable: String? = "it ends the session"

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { true }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.logout(command)
        }
    }
}

extension AppCommands {
    fileprivate func logout(_ command: ParsedCommand) throws -> CommandOutput {
        try host.features().auth.logout()
        var output = CommandOutput(data: ["loggedOut": true, "kept": ["lastPhone", "privacyAccepted"]])
        output.notes.append("logged out (last phone and privacy choice kept)")
        return output
    }
}
