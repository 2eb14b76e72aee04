import SXKShell

/// One command as the app runs it, read from its `AppCommand` type.
struct CommandDeclaration: Sendable {
    typealias Run = @Sendable (AppCommands, ParsedCommand) async throws -> CommandOutput
    let spec: CommandSpec
    let needsServer: @Sendable (ParsedCommand) -> Bool
    let showsSession: @Sendable (ParsedCommand) -> Bool
    let unwatchable: String?
    var watchable: Bool { unwatchable == nil }
    let watchRefusal: @Sendable (ParsedCommand) -> String?
    let comparable: Bool
    let writesSnapshot: @Sendable (ParsedCommand) -> Bool
    let run: Run
}

/// Every app command, in the order help, completion and the manual page list them.
enum CommandRegistry {
    static let commands: [any AppCommand.Type] = [
        Commands.Env.self,
        Commands.Config.self,
        Commands.Get.self,
        Commands.Post.self,
        Commands.Login.self,
        Commands.Accounts.self,
        Commands.SwitchAccount.self,
        Commands.Logout.self,
        Commands.Whoami.self,
        Commands.Keys.self,
        Commands.ImportDefaults.self,
        Commands.Role.self,
        Commands.Scenic.self,
        Commands.Store.self,
        Commands.Permissions.self,
        Commands.Menus.self,
        Commands.Home.self,
        Commands.Location.self,
        Commands.Orders.self,
        Commands.Stats.self,
        Commands.Profile.self,
        Commands.Compare.self,
        Commands.Curl.self,
        Commands.Watch.self,
        Commands.Trace.self,
        Commands.Timing.self,
        Commands.Boot.self,
        Commands.Explain.self,
        Commands.Context.self,
        Commands.Har.self,
        Commands.Pager.self,
        Commands.Man.self,
    ]

    /// The declarations, with `--jq` and `--no-pager` beside each `--json` (`CommandCatalog`).
    static let all: [CommandDeclaration] = commands.map { type in
        CommandDeclaration(spec: CommandCatalog.withJQ(type.spec), needsServer: { type.needsServer($0) },
                           showsSession: { type.showsSession($0) },
                           unwatchable: type.unwatchable, watchRefusal: { type.watchRefusal($0) }, comparable: type.comparable,
                           writesSnapshot: { type.writesSnapshot($0) }) { app, command in
            try await type.run(command, app)
        }
    }

    static func declaration(for name: String) -> CommandDeclaration? { all.first { $0.spec.name == name } }
}
