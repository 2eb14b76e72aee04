import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    enum Role: AppCommand {
        static let spec = CommandSpec(
            "role", summary: "list roles (current marked) or switch role",
            discussion: "- goes back to the role before the last switch (kept per profile, so also in a later process).",
            arguments: [ArgumentSpec("CODE|-", kind: roles, optional: true, summary: "role code, or - for the one before")], flags: tableOutput,
            examples: ["role", "role photographer", "role -"]
        )

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { !command.positionals.isEmpty }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.role(command)
        }
    }
}

extension AppCommands {
    fileprivate func role(_ command: ParsedCommand) async throws -> CommandOutput {
        let scope = try host.features().scope
        if var code = command.positionals.first {
            if code == "-" { code = try scope.previous(.role) }
            return change(try await scope.selectRole(code))
        }
        // No list stored: `roles` asks the server, and the listing is its answer, not the stored state
        // the other views (`permissions`, `scenic`) read.
        let asked = !services.contexts.permission.current.rolesLoaded
        let rows: [JSONValue] = try await scope.roles().map {
            ["roleCode": .string($0.code), "roleName": .string($0.name), "scenicCount": .int($0.scenicCount),
             "permissionCount": .int($0.permissionCount), "current": .bool($0.isCurrent)]
        }
        var output = CommandOutput(data: .array(rows))
        if asked {
            output.notes.append("(no role-permission list was stored: these roles are the server's answer now (GET role-permission), "
                + (services.storage.appStore.isDeviceSnapshot ? "not saved into the device snapshot)" : "saved as the app's permission load saves it)"))
        }
        // A current role the list lacks (another account's list left in this scope): no row is marked,
        // said why, with what the next home's load makes of it, as `permissions` says it.
        let permission = services.contexts.permission.current
        if let code = permission.roleCode, !code.isEmpty, !rows.isEmpty, !rows.contains(where: { $0.objectValue?["current"] == .bool(true) }) {
            output.notes.append("(the current role \(code) is not among the roles listed here)")
            if let changed = AppModel.permissionsChangedAtNextLoad(permission) { output.notes.append(changed) }
        }
        if rows.isEmpty { output.notes.append("(no roles: the stored role-permission list is empty, the server's last answer; `home` loads it again)"); return output }
        output.table([Self.currentColumn, OutputColumn("roleCode", "ROLE", priority: 90, cuttable: false), OutputColumn("roleName", "NAME", priority: 70),
                      OutputColumn("scenicCount", "SCENICS", alignment: .right, priority: 40, cuttable: false),
                      OutputColumn("permissionCount", "PERMISSIONS", alignment: .right, priority: 30, cuttable: false)], rows)
        return output
    }
}
