import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    /// `keys`: the state as the iOS app's UserDefaults would hold it, read without the network.
    enum Keys: AppCommand {
        static let spec = CommandSpec("keys", summary: "the state as the iOS app's UserDefaults would hold it",
                    flags: [FlagSpec("all", summary: "also sxk's own bookkeeping keys (sxk_…), which are not the app's")] + tableOutput)

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.keys(command)
        }
    }
}

extension AppCommands {
    fileprivate func keys(_ command: ParsedCommand) throws -> CommandOutput {
        let entries = services.storage.appStore.allKeys(includeSxk: command.has("all"))
        var output = CommandOutput(data: .object(JSONObject(entries.map { (key: $0.key, value: $0.value) })))
        let rows = entries.map { entry -> JSONValue in
            let text: String
            switch entry.value {
            // A string as it is (JSON text kept as a string too), its secret members masked.
            case .string(let s): text = Redaction.scrubMembers(s)
            case .null: text = "–"
            default: text = KeyValueText.human(entry.value, key: entry.key)
            }
            return ["field": .string(entry.key), "value": .string(text)]
        }
        // The keys as stored; a location status the app drops at its next home is said beside them.
        if let location = AppModel.locationRestoreChange(store: services.storage.appStore, clock: services.clock,
                                                         rejectedToken: services.sessionGuard.rejectedToken) {
            output.notes.append(location.line)
        }
        if rows.isEmpty {
            output.notes.append("(no keys stored in profile \(services.paths.profile))")
        } else {
            output.record(Self.fieldColumns("KEY"), rows)
        }
        return output
    }
}
