import SXKShell

extension Commands {
    enum Accounts: AppCommand {
        static let spec = CommandSpec("accounts", summary: "list the accounts of this login (current marked)", flags: tableOutput)

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.accounts(command)
        }
    }
}
