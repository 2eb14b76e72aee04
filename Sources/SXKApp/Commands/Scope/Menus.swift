import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

extension Commands {
    /// `menus`, `menus common [add|remove URI]`: the home menus the permissions show, and the common
    /// menus stored per scope and role.
    enum Menus: AppCommand {
        static let spec = CommandSpec(
            "menus", summary: "home menus visible with the current permissions",
            flags: [json],
            subcommands: [
                CommandSpec(
                    "common", summary: "common menus of this account and role (default: first 4)",
                    flags: [json],
                    subcommands: [
                        CommandSpec("add", summary: "add a visible menu to the common menus",
                                    arguments: [ArgumentSpec("URI", kind: .provider("menu"), summary: "menu URI")]),
                        CommandSpec("remove", summary: "remove a menu from the common menus",
                                    arguments: [ArgumentSpec("URI", kind: .provider("common-menu"), summary: "menu URI")]),
                    ]
                ),
            ]
        )

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { command.path.count > 2 }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.menus(command)
        }
    }
}

extension AppCommands {
    fileprivate func menus(_ command: ParsedCommand) throws -> CommandOutput {
        let home = try host.features().home
        // As `permissions`: without a session and with no stored lists there is nothing to show.
        let permission = services.contexts.permission.current
        guard services.contexts.session.token != nil || !permission.roles.isEmpty else { throw FeatureError.notLoggedIn }
        // No home without a usable token (as `boot` and `explain` say): the lists are what a login would show.
        let absent = AppModel.homeNotShown(token: try services.storage.appStore.token(), rejectedToken: services.sessionGuard.rejectedToken)
            .map { "(\($0.reason) \($0.rule.marker); listed: what the stored permissions show after a login)" }
        guard command.subcommand == "common" else {
            let menus = home.visibleMenus()
            let records = menus.map(\.json)
            var output = CommandOutput(data: .array(records))
            if let absent { output.notes.append(absent) }
            if let changed = AppModel.permissionsChangedAtNextLoad(services.contexts.permission.current) { output.notes.append(changed) }
            if menus.isEmpty {
                output.notes.append("(no visible menus: no permissions for the current role)")
            } else {
                output.table(Self.menuColumns, records)
            }
            return output
        }
        let common: CommonMenus
        switch command.path.count > 2 ? command.path[2] : nil {
        // A URI that cannot be added or removed is a value that cannot be used (2), as `role nope` is.
        case "add":
            let uri = try menuURI(command)
            let role = try home.commonMenusRole()
            guard try home.commonMenuChoices().contains(where: { $0.uri == uri }) else {
                // Visible with the stored permissions, but not to what the next home's load leaves (`menus` says why).
                if home.visibleMenus().contains(where: { $0.uri == uri }) {
                    throw AppError.usage(TerminalText.sanitize("'\(uri)' is visible with the stored permissions, but the next home's load leaves role \(role) without it, so the home would not show it (see the note of `menus`)"))
                }
                throw AppError.usage(TerminalText.sanitize("'\(uri)' is not a visible menu for role \(role) (see `menus`)"))
            }
            // One already there is a value that cannot be added, as one missing cannot be removed.
            guard try !home.commonMenus().uris.contains(uri) else {
                throw AppError.usage(TerminalText.sanitize("'\(uri)' is already among the common menus (see `menus common`)"))
            }
            common = try home.addCommonMenu(uri)
        case "remove":
            let uri = try menuURI(command)
            _ = try home.commonMenusRole()
            guard try home.commonMenus().uris.contains(uri) else {
                throw AppError.usage(TerminalText.sanitize("'\(uri)' is not among the common menus (see `menus common`)"))
            }
            common = try home.removeCommonMenu(uri)
        default: common = try home.commonMenus()
        }
        var output = CommandOutput(data: ["key": .string(common.key), "uris": .array(common.uris.map { .string($0) }), "defaulted": .bool(common.defaulted)])
        output.line(common.key)
        if let absent { output.notes.append(absent) }
        if common.roleAtNextHome {
            output.notes.append("(no role stored: the next home's permission load takes the first entry's, as home and boot say; these are that role's \(Rules.roleMatch.marker))")
        }
        // The default is what the home would write; listing writes nothing.
        if common.defaulted { output.notes.append("(no common menus are stored: these are the first \(CommonMenuStore.defaultCount) visible menus of the permissions the home's load leaves if the server answers as the stored list, the default the home then writes \(Rules.offlineStandIn.marker); not stored by this listing)") }
        if let changed = AppModel.permissionsChangedAtNextLoad(permission) { output.notes.append(changed) }
        if common.menus.isEmpty {
            output.notes.append("(no common menus for role \(TerminalText.sanitize(common.role)): \(common.recorded ? "the stored record is empty, and counts as a record: the home writes no default over it \(Rules.emptyCommonMenusRecord.marker)" : "no menu is visible to it after the next home's load, so the home writes no default"))")
        } else {
            output.table(Self.menuColumns, common.menus.map(\.json))
        }
        return output
    }

    static let menuColumns = [
        OutputColumn("uri", "URI", priority: 90, cuttable: false),
        OutputColumn("title", "TITLE", priority: 70),
        OutputColumn("group", "GROUP", priority: 40),
    ]

    private func menuURI(_ command: ParsedCommand) throws -> String {
        guard let uri = command.positionals.first else { throw AppError.usage("needs a menu URI") }
        return uri
    }
}
