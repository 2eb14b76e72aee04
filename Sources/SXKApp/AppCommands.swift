import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// Runs one parsed command: binds each spec in `CommandCatalog` to its handler. Handlers call
/// facades (or, for raw `get`/`post`, the client) and render; errors propagate to the shell,
/// which prints them once and maps the exit status through `ExitCodes`.
struct AppCommands {
    let host: SXKHost
    let io: CommandIO

    var services: AppServices { host.services }

    func run(_ command: ParsedCommand) async throws -> Int32 {
        if Self.needsServer.contains(command.spec.name) { try await validateRestoredSession() }
        switch command.spec.name {
        case "env": return try await env(command)
        case "config": return try await config(command)
        case "get": return try await raw(command, method: "GET")
        case "post": return try await raw(command, method: "POST")
        case "login": return try await login(command)
        case "accounts": return try accounts(command)
        case "switch-account": return try await switchAccount(command)
        case "logout": return try logout(command)
        case "whoami": return try whoami(command)
        case "keys": return try keys(command)
        case "import-defaults": return try importDefaults(command)
        case "role": return try await role(command)
        case "scenic": return try await scenic(command)
        case "store": return try await store(command)
        case "permissions": return try permissions(command)
        case "menus": return try menus(command)
        case "home": return try await home(command)
        case "location": return try await location(command)
        case "orders": return try await orders(command)
        case "stats": return try await stats(command)
        case "profile": return try await profile(command)
        case "compare": return try await compare(command)
        case "curl": return try curl(command)
        case "watch": return try await watch(command)
        case "trace": return toggle(command, name: "trace") { host.settings.trace = $0 } current: { host.settings.trace }
        case "timing": return toggle(command, name: "timing") { host.settings.timing = $0 } current: { host.settings.timing }
        case "boot": return try boot(command)
        case "man": return manPage(command)
        case "har": return try har(command)
        default: throw AppError.usage("unknown command '\(command.spec.name)'")
        }
    }

    /// Commands that call the server; a session restored from the snapshot is validated before
    /// the first of them runs (seed 001: restore at once, validate when the network is needed).
    static let needsServer: Set<String> = [
        "get", "post", "switch-account", "store", "home", "location", "orders", "stats", "profile",
    ]

    /// Whether the command or the global option asked for JSON.
    func wantsJSON(_ command: ParsedCommand) -> Bool { command.has("json") || io.options.json }

    // MARK: Session validation at first use

    /// How long after a validation a one-shot command trusts the session without one (docs/session.md).
    static let validationWindow: TimeInterval = 5 * 60

    func validateRestoredSession() async throws {
        let features = try host.features()
        guard features.bootstrapper.needsValidation else { return }
        // One-shots, -c and scripts send only their own request on a recently validated session; an
        // expired token then shows in that request's answer (exit 3, same reset). The REPL validates.
        if host.shellContext.mode != .repl, !io.options.revalidate,
           let at = features.bootstrapper.trustRecentValidation(window: Self.validationWindow, now: services.clock.now()) {
            host.contextOrigin = "snapshot on disk, validated \(Formatting.duration(services.clock.now().timeIntervalSince(at))) ago (not repeated)"
            return
        }
        switch await features.bootstrapper.validate() {
        case .loggedOut(let notice): io.warning(notice)
        case .offline(let reason): io.warning("server unreachable, working from the snapshot (offline): \(reason)")
        case .loggedIn: host.contextOrigin = "snapshot on disk, validated by userinfo + role-permission"
        case .loggedInUnsaved(_, let reason):
            host.contextOrigin = "snapshot on disk, validated by userinfo + role-permission (not saved)"
            io.warning("session validated but not saved: \(reason)")
        case .notLoggedIn: break
        }
    }

    // MARK: Shell switches

    func toggle(_ command: ParsedCommand, name: String, set: (Bool) -> Void, current: () -> Bool) -> Int32 {
        if let value = command.positionals.first { set(value == "on") }
        io.stdout.line("\(name) \(current() ? "on" : "off")")
        return ExitStatus.ok
    }
}
