import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    /// `explain`: the stored values and rules behind a menu, a dialog, the scope or a key; read-only, no call.
    enum Explain: AppCommand {
        static let spec = CommandSpec(
            "explain", summary: "the stored values and rules behind a menu, a dialog, the scope or a key, each with its basis",
            discussion: "Read from the profile as stored; nothing is called or written. Each step names the key it read, the rule applied and whether the app's documents state it ([documented: seed …]) or sxk inferred it ([inferred: docs/app-behaviour.md#…]).",
            flags: [json],
            subcommands: [
                CommandSpec("menu", summary: "why a menu is shown or hidden",
                            arguments: [ArgumentSpec("URI", kind: .provider("explain-menu"), summary: "menu URI")], flags: [json]),
                CommandSpec("dialog", summary: "the home dialogs in priority order (or one)",
                            arguments: [ArgumentSpec("DIALOG", kind: .choice(["permission", "scenic", "location"]), optional: true, summary: "permission, scenic or location")],
                            flags: [json]),
                CommandSpec("scope", summary: "the account scope, role, scenic and store the scoped keys use", flags: [json]),
                CommandSpec("key", summary: "one UserDefaults key: its value and who writes it",
                            arguments: [ArgumentSpec("KEY", kind: .provider("stored-key"), summary: "key name")], flags: [json]),
                CommandSpec("rules", summary: "every rule of the app model: its engine function, basis and the keys it writes",
                            flags: tableOutput),
            ],
            examples: ["explain menu home/order", "explain dialog", "explain dialog scenic --json", "explain scope", "explain key key_in_current_store_id", "explain rules"]
        ).requiringSubcommand()

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.explain(command)
        }
    }
}

extension AppCommands {
    fileprivate func explain(_ command: ParsedCommand) async throws -> CommandOutput {
        if command.subcommand == "rules" { return Self.rules() }
        let s = services
        var feature = ExplainFeature(store: s.storage.appStore, catalog: s.menuCatalog, clock: s.clock)
        feature.rejectedToken = s.sessionGuard.rejectedToken
        var explanations: [Explanation]
        var dialog: JSONValue?
        var judged = false
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
            (dialog, explanations, judged) = try await feature.judgedDialogs(only)
        case "scope":
            explanations = [try feature.scope()]
        case "key":
            guard let key = command.positionals.first else { throw AppError.usage("explain key needs a key name") }
            explanations = [try feature.key(key)]
        default:
            throw AppError.usage("explain what? menu URI | dialog [permission|scenic|location] | scope | key KEY | rules")
        }
        // Dialogs the home judged offline (a token, not rejected here): their condition, said with them.
        let data: JSONValue = dialog.map {
            var o: JSONObject = ["dialog": $0, "explanations": .array(explanations.map(\.json))]
            if judged { o["assumes"] = .string(AppModel.offlineCondition) }
            return .object(o)
        } ?? explanations[0].json
        var out = CommandOutput(data: data)
        out.line(Self.basisLegend)
        if judged { out.line("\(AppModel.offlineCondition) \(Rules.offlineStandIn.marker)") }
        for explanation in explanations {
            out.line("")
            out.line("\(explanation.verdict)  [\(explanation.basis.rawValue)]")
            for (i, step) in explanation.steps.enumerated() { out.line("   \(i + 1). " + step.line) }
        }
        return out
    }
}

extension AppCommands {
    /// `explain rules`: the app model's registry (`AppModel.rules`), one row a rule, and the count of
    /// documented and inferred ones.
    fileprivate static func rules() -> CommandOutput {
        let rules = AppModel.rules
        var out = CommandOutput(data: .array(rules.map(\.json)))
        out.table([
            // The source, then the rule's text take the room left; the keys (per key in `explain key`) last.
            OutputColumn("source", "SOURCE", priority: 88),
            OutputColumn("function", "FUNCTION", priority: 90, cuttable: false),
            OutputColumn("basis", "BASIS", priority: 95, cuttable: false),
            OutputColumn("keys", "KEYS", priority: 40) { $0.objectValue?["keys"]?.arrayValue?.compactMap(\.stringValue).joined(separator: " ") ?? "" },
            OutputColumn("what", "RULE", priority: 85),
        ], rules.map(\.json))
        // Rules are read whole: a terminal too narrow for the table shows them as records, wrapped.
        out.readWhole = true
        let documented = rules.filter { $0.basis.basis == .documented }.count
        out.notes.append("\(rules.count) rules: \(documented) documented, \(rules.count - documented) inferred")
        return out
    }
}
