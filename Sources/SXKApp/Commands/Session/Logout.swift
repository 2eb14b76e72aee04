import SXKShell

extension Commands {
    enum Logout: AppCommand {
        static let spec = CommandSpec("logout", summary: "clear token, snapshot and contexts; keep last phone and privacy flag")
        static let watchable = false

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.logout(command)
        }
    }
}
