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
        let result = try await services.sessionGuard.guarding { try await services.network().account.config() }
        var output = dataOutput(result.response)
        // Each key as the contract names it whatever the server's spelling (`enable_register` is
        // `enableRegister`), and the flag the app reads as it decodes it (`0`/`1` too); `--json` keeps both as sent.
        let rows: [JSONValue] = result.response.data.objectValue?.entries.map { entry in
            let key = JSONObject.camelCase(entry.key)
            let value: JSONValue = key == "enableRegister" ? result.value.enableRegister.map { .bool($0) } ?? entry.value : entry.value
            return ["key": .string(key), "value": value]
        } ?? []
        let columns = [OutputColumn("key", priority: 90, cuttable: false), OutputColumn("value", priority: 80)]
        // A record: the machine formats and `--columns` take the config's own keys (as `whoami`'s),
        // an empty one too; data that is no object (a list, null) is shown as the rows it has: none.
        if result.response.data.objectValue != nil { output.record(columns, rows) } else { output.table(columns, rows) }
        return output
    }
}
