import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `explain` (the stored values and rules behind a menu, a dialog, the scope or a key; read-only, no
/// call) and `context diff` (the stored state beside the server's answers now; read-only).
extension AppCommands {
    func explain(_ command: ParsedCommand) async throws -> CommandOutput {
        let s = services
        let feature = ExplainFeature(store: s.storage.appStore, catalog: s.menuCatalog, clock: s.clock)
        var explanations: [Explanation]
        var dialog: JSONValue?
        switch command.subcommand {
        case "menu":
            guard let uri = command.positionals.first else { throw AppError.usage("explain menu needs a menu URI") }
            explanations = [try feature.menu(uri)]
        case "dialog":
            let only: HomeDialog?
            switch command.positionals.first {
            case nil: only = nil
            case "permission": only = .permission
            case "scenic": only = .scenic
            case "location": only = .locationTimeout
            case let other?: throw AppError.usage("explain dialog: no dialog '\(other)' (permission, scenic, location)")
            }
            (dialog, explanations) = try await feature.dialogs(only)
        case "scope":
            explanations = [try feature.scope()]
        case "key":
            guard let key = command.positionals.first else { throw AppError.usage("explain key needs a key name") }
            explanations = [try feature.key(key)]
        default:
            throw AppError.usage("explain what? menu URI | dialog [permission|scenic|location] | scope | key KEY")
        }
        let data: JSONValue = dialog.map { ["dialog": $0, "explanations": .array(explanations.map(\.json))] }
            ?? explanations[0].json
        var out = CommandOutput(data: data)
        out.line(Self.basisLegend)
        for explanation in explanations {
            out.line("")
            out.line("\(explanation.verdict)  [\(explanation.basis.rawValue)]")
            for (i, step) in explanation.steps.enumerated() { out.line("   \(i + 1). " + step.line) }
        }
        return out
    }

    /// `context diff`: needs a token, not a validation first (that would save over the state it compares).
    func contextDiff(_ command: ParsedCommand) async throws -> CommandOutput {
        let s = services
        let network = try s.network()
        let diff = try await ContextDiffFeature(account: network.account, commerce: network.commerce, operation: network.operation,
                                                guard: s.sessionGuard, catalog: s.menuCatalog, clock: s.clock).diff()
        var out = CommandOutput(data: diff.json)
        out.table([
            OutputColumn("key", "KEY", priority: 90, cuttable: false),
            OutputColumn("stored", "STORED", priority: 70),
            OutputColumn("server", "SERVER NOW", priority: 70),
            OutputColumn("same", "", priority: 80, cuttable: false) { $0.objectValue?["same"] == .bool(true) ? "same" : "DIFFERS" },
        ], diff.rows.map(\.json))
        out.line("")
        if diff.home.sessionExpired {
            out.line("the server rejected the token: at its next start the app would clear the login state and show the login page  \(Rules.sessionExpiry.marker)")
        }
        out.line("at the app's next start (the home replayed with these answers, \(diff.home.changes.count) key\(diff.home.changes.count == 1 ? "" : "s") written):")
        for step in diff.nextStart { out.line("   " + step.line) }
        out.line("read-only: \(diff.calls.map { "\($0.method) \($0.path)" }.joined(separator: ", ")); nothing saved")
        return out
    }
}
