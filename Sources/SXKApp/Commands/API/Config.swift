import SXKCore
import SXKShell

extension Commands {
    enum Config: AppCommand {
        static let spec = CommandSpec("config", summary: "GET /api/app/config (the login page's first call)", flags: [raw] + tableOutput)

        static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool { true }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.config(command)
        }
    }
}

extension AppCommands {
    fileprivate func config(_ command: ParsedCommand) async throws -> CommandOutput {
        let result = try await guarded { try await services.network().account.config() }
        var output = dataOutput(result.response)
        let rows: [JSONValue] = result.response.data.objectValue?.entries.map {
            ["key": .string($0.key), "value": $0.value]
        } ?? []
        let columns = [OutputColumn("key", priority: 90, cuttable: false), OutputColumn("value", priority: 80)]
        // A record: the machine formats and `--columns` take the config's own keys (as `whoami`'s),
        // an empty one too; data that is no object (a list, null) is shown as the rows it has: none.
        if result.response.data.objectValue != nil { output.record(columns, rows) } else { output.table(columns, rows) }
        return output
    }
}
