import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    enum Scenic: AppCommand {
        static let spec = CommandSpec(
            "scenic", summary: "list the role's scenic areas or switch scenic scope",
            discussion: "- goes back to the scenic area before the last switch (kept per profile).",
            arguments: [ArgumentSpec("ID|NAME|-", kind: .provider("scenic"), optional: true, summary: "scenic id or unique name prefix, or - for the one before")],
            flags: tableOutput,
            examples: ["scenic", "scenic 2", "scenic 灵隐", "scenic -"]
        )

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { !command.positionals.isEmpty }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.scenic(command)
        }
    }
}

extension AppCommands {
    fileprivate func scenic(_ command: ParsedCommand) async throws -> CommandOutput {
        let scope = try host.features().scope
        if var query = command.positionals.first {
            if query == "-" { query = try scope.previous(.scenic) }
            return change(try await scope.selectScenic(query))
        }
        let rows: [JSONValue] = try scope.scenics().map {
            ["scenicId": .int($0.scenic.scenicId), "scenicName": .string($0.scenic.scenicName), "current": .bool($0.isCurrent)]
        }
        var output = CommandOutput(data: .array(rows))
        // A current scenic the role's list lacks (an imported state): no row is marked, said why.
        let account = services.contexts.account.current
        if let current = AppModel.validScenic(account.scenicId), !rows.contains(where: { $0.objectValue?["current"] == .bool(true) }) {
            output.notes.append("(the current scenic \(current)\(account.scenicName.map { " " + $0 } ?? "") is not among the role's scenic areas listed here)")
        }
        if let changed = AppModel.scenicListChangedAtNextLoad(services.contexts.permission.current, currentScenic: account.scenicId) {
            output.notes.append(changed)
            // What is listed (and what `scenic ID` takes) is that next load's list, when there is an entry for it.
            if AppModel.scenicsToChoose(services.contexts.permission.current).map(\.scenicId) != services.contexts.permission.current.scenicList.map(\.scenicId) {
                output.notes.append("listed, and taken by `scenic ID`: the scenic areas that load leaves the role")
            }
        }
        if rows.isEmpty { output.notes.append("(no scenic areas for this role)"); return output }
        output.table([Self.currentColumn, OutputColumn("scenicId", "ID", alignment: .right, priority: 90, cuttable: false),
                      OutputColumn("scenicName", "SCENIC", priority: 80)], rows)
        return output
    }
}
