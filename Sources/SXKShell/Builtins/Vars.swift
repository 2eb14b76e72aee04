import SXKCore

extension Builtins {
    /// `vars`: the variables and `$_`, with their values and where each came from.
    enum Vars: ParsedBuiltin {
        static let spec = CommandSpec("vars", summary: "List the variables and $_ with their values",
            flags: output(json: "Print the variables as one JSON object"))

        static func run(_ command: ParsedCommand, in shell: Shell, io: CommandIO) async -> Int32 {
            await shell.showVariables(command, io: io)
        }
    }
}

extension Shell {
    /// `vars`: the variables as one object (`--json`), one row each in the table and row formats.
    func showVariables(_ command: ParsedCommand, io: CommandIO) async -> Int32 {
        let secrets = host.secrets
        let all = variables.all.map { (name: $0.name, value: Variables.sanitize($0.entry.value, secrets: secrets), source: $0.entry.source) }
        return await render(command, io: io) { format in
            var output = CommandOutput(data: .object(JSONObject(all.map { (key: $0.name, value: $0.value) })))
            let rows: [JSONValue] = all.map { .object(["name": .string($0.name), "value": $0.value, "from": .string($0.source)]) }
            let columns = [
                OutputColumn("name", "NAME", priority: 90, cuttable: false) { "$" + OutputColumn.plain($0.objectValue?["name"]) },
                OutputColumn("value", "VALUE") { Variables.preview($0.objectValue?["value"] ?? .null, width: 60) },
                OutputColumn("from", "FROM"),
            ]
            if all.isEmpty {
                output.rows = OutputTable(columns: columns, rows: [])
                if format.kind == .table && format.jq == nil { output.notes = ["(no variables — let NAME = COMMAND… PATH)"] }
            } else {
                output.table(columns, rows)
            }
            return output
        }
    }
}
