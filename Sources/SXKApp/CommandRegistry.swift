import SXKShell

/// One command as the app runs it: its spec (from `CommandCatalog`), whether it calls the server
/// (a restored session is then validated first), whether `watch` may repeat it and `compare` send
/// it, and its run function, which returns data for the renderer and never prints.
struct CommandDeclaration: Sendable {
    typealias Run = @Sendable (AppCommands, ParsedCommand) async throws -> CommandOutput
    let spec: CommandSpec
    let needsServer: Bool
    /// `watch` may repeat it (commands that read input or replace the session may not).
    let watchable: Bool
    /// `compare` may send it under several identities.
    let comparable: Bool
    let run: Run
}

/// Every app command's behaviour, declared once and keyed by its spec. The test in
/// `Tests/SXKAppTests/CommandRegistryTests.swift` checks each spec has exactly one declaration.
enum CommandRegistry {
    /// A declaration waiting for its spec.
    struct Entry: Sendable {
        let name: String
        var server = false
        var watch = true
        var compare = false
        let run: CommandDeclaration.Run
    }

    static let entries: [Entry] = [
        Entry(name: "env", watch: false) { try await $0.env($1) },
        Entry(name: "config") { try await $0.config($1) },
        Entry(name: "get", server: true, compare: true) { try await $0.raw($1, method: "GET") },
        Entry(name: "post", server: true, compare: true) { try await $0.raw($1, method: "POST") },
        Entry(name: "login", watch: false) { try await $0.login($1) },
        Entry(name: "accounts") { try $0.accounts($1) },
        Entry(name: "switch-account", watch: false) { try await $0.switchAccount($1) },
        Entry(name: "logout", watch: false) { try $0.logout($1) },
        Entry(name: "whoami") { try $0.whoami($1) },
        Entry(name: "keys") { try $0.keys($1) },
        Entry(name: "import-defaults", watch: false) { try $0.importDefaults($1) },
        Entry(name: "role") { try await $0.role($1) },
        Entry(name: "scenic") { try await $0.scenic($1) },
        Entry(name: "store", server: true) { try await $0.store($1) },
        Entry(name: "permissions") { try $0.permissions($1) },
        Entry(name: "menus") { try $0.menus($1) },
        // Not validated first: that would save over an imported state before the replay reads it.
        Entry(name: "home") { try await $0.home($1) },
        Entry(name: "location", server: true) { try await $0.location($1) },
        Entry(name: "orders", server: true, compare: true) { try await $0.orders($1) },
        Entry(name: "stats", server: true) { try await $0.stats($1) },
        Entry(name: "profile", server: true) { try await $0.profile($1) },
        Entry(name: "compare") { try await $0.compare($1) },
        Entry(name: "curl") { try $0.curl($1) },
        Entry(name: "watch", watch: false) { try await $0.watch($1) },
        Entry(name: "trace") { a, c in a.toggle(c, name: "trace") { a.host.settings.trace = $0 } current: { a.host.settings.trace } },
        Entry(name: "timing") { a, c in a.toggle(c, name: "timing") { a.host.settings.timing = $0 } current: { a.host.settings.timing } },
        // The same setting as `set pager on|off`.
        Entry(name: "pager") { a, c in a.toggle(c, name: "pager") { a.io.display.pager = $0 } current: { a.io.display.pager } },
        Entry(name: "boot") { try await $0.boot($1) },
        Entry(name: "har", watch: false) { try $0.har($1) },
        Entry(name: "explain") { try await $0.explain($1) },
        // context diff needs a token, not a validation (that would save over the state it compares).
        Entry(name: "context") { a, c in c.subcommand == "diff" ? try await a.contextDiff(c) : try a.whoami(c) },
        Entry(name: "man") { a, _ in CommandOutput(blocks: [.lines(Manual.page.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))]) },
    ]

    /// The declarations with their specs, in catalog order; a spec without an entry (or the
    /// reverse) stops the program at start, and the registry test catches it first.
    static let all: [CommandDeclaration] = CommandCatalog.all.map { spec in
        guard let entry = entries.first(where: { $0.name == spec.name }) else {
            preconditionFailure("command '\(spec.name)' has a spec but no declaration in CommandRegistry")
        }
        return CommandDeclaration(spec: spec, needsServer: entry.server, watchable: entry.watch, comparable: entry.compare, run: entry.run)
    }

    static func declaration(for name: String) -> CommandDeclaration? { all.first { $0.spec.name == name } }
}
