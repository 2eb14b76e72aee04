import SXKCore
import SXKShell

extension Commands {
    enum Accounts: AppCommand {
        static let spec = CommandSpec("accounts", summary: "list the accounts of this login (current marked)", flags: tableOutput)

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.accounts(command)
        }
    }
}

extension AppCommands {
    fileprivate func accounts(_ command: ParsedCommand) throws -> CommandOutput {
        let rows = try host.features().auth.accounts()
        let records: [JSONValue] = rows.map { row in
            var o = row.account.json.objectValue ?? JSONObject()
            o["index"] = .int(row.index)
            o["current"] = .bool(row.isCurrent)
            return .object(o)
        }
        var output = CommandOutput(data: .array(records))
        guard !rows.isEmpty else {
            output.notes.append("(no account list: none is kept from a login on this profile — `login` makes one)")
            return output
        }
        output.table([
            OutputColumn("current", "", priority: 95, cuttable: false) { $0.objectValue?["current"] == .bool(true) ? "*" : "" },
            OutputColumn("index", "#", alignment: .right, priority: 90, cuttable: false),
            OutputColumn("userId", "USER", alignment: .right, priority: 85, cuttable: false),
            OutputColumn("accountType", "TYPE", priority: 40),
            // A code to type (`role photographer`), whole like the role tables' and kept before the
            // account's name, which is cut (or left out) first.
            OutputColumn("roleCode", "ROLE", priority: 75, cuttable: false),
            OutputColumn("accountDisplayName", "ACCOUNT", priority: 70) { r in rows.first { $0.index == r.objectValue?.int("index") }?.account.accountDisplayName ?? "" },
        ], records)
        return output
    }
}
