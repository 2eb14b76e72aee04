import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    enum Permissions: AppCommand {
        static let spec = CommandSpec(
            "permissions", summary: "flat permission URIs of the current role",
            flags: [FlagSpec("all", summary: "the whole role-permission list")] + tableOutput
        )

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.permissions(command)
        }
    }
}

extension AppCommands {
    fileprivate func permissions(_ command: ParsedCommand) throws -> CommandOutput {
        let permission = services.contexts.permission.current
        guard services.contexts.session.token != nil || !permission.roles.isEmpty else { throw FeatureError.notLoggedIn }
        let uri = OutputColumn("uri", priority: 90), name = OutputColumn("name", priority: 70), group = OutputColumn("group", priority: 30)
        if command.has("all") {
            var output = CommandOutput(data: .array(permission.roles.map(\.json)))
            var rows: [JSONValue] = []
            // The current role's permissions are its first entry's, as the load derives them
            // (`AppModel.derivePermissions`): a second entry of the same role is listed, not marked.
            let current = permission.currentRoleIndex
            for (index, role) in permission.roles.enumerated() {
                for item in role.permissions {
                    rows.append(["current": .bool(index == current), "role": .string(role.roleCode),
                                 "uri": .string(item.uri), "name": .string(item.name), "group": .string(item.group ?? "")])
                }
            }
            output.table([Self.currentColumn, OutputColumn("role", priority: 80, cuttable: false), uri, name, group], rows)
            let entries = Dictionary(permission.roles.map { ($0.roleCode, 1) }, uniquingKeysWith: +)
            for (code, count) in entries.sorted(by: { $0.key < $1.key }) where count > 1 {
                // A first entry without permissions lists no row: the rows under the code are a later entry's.
                let firstEmpty = permission.roles.first { $0.roleCode == code }?.permissions.isEmpty == true
                let unused = firstEmpty ? " (none: every row listed for it is of a later entry, not used)" : ""
                output.notes.append("role \(AppModel.shownCode(code)) has \(count) entries in the role-permission list: its permissions are the first entry's\(unused), as the load takes them \(Rules.roleMatch.marker)")
            }
            return output
        }
        var output = CommandOutput(data: .array(permission.permissions.map(\.json)))
        if let changed = AppModel.permissionsChangedAtNextLoad(permission) { output.notes.append(changed) }
        if permission.permissions.isEmpty { output.notes.append("(no permissions for role \(permission.roleCode ?? "–"))"); return output }
        output.table([uri, name, group], permission.permissions.map {
            ["uri": .string($0.uri), "name": .string($0.name), "group": .string($0.group ?? "")]
        })
        return output
    }
}
