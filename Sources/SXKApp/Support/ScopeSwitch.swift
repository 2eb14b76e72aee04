import SXKCore
import SXKFeatures
import SXKShell

/// `role`, `scenic`, `store`: the current-row marker and the confirmation of a switch; `-` goes
/// back to the one before the last switch (kept per profile by `ScopeFeature`).
extension AppCommands {
    static let currentColumn = OutputColumn("current", "", priority: 95, cuttable: false) { $0.objectValue?["current"] == .bool(true) ? "*" : "" }

    func change(_ change: ScopeChange) -> CommandOutput {
        var o = JSONObject()
        o["roleCode"] = change.roleCode.map { .string($0) } ?? .null
        o["roleName"] = change.roleName.map { .string($0) } ?? .null
        o["scenic"] = change.scenic?.json ?? .null
        o["storeId"] = change.storeId.map { .int($0) } ?? .null
        o["storeName"] = change.storeName.map { .string($0) } ?? .null
        o["notes"] = .array(change.notes.map { .string($0) })
        var parts: [String] = []
        if let role = change.roleCode { parts.append("role \(role)" + (change.roleName.map { " (\($0))" } ?? "")) }
        parts.append(change.scenic.map { "scenic \($0.scenicId) \($0.scenicName)" } ?? "no scenic")
        parts.append(change.storeId.map { "store \($0)" + (change.storeName.map { " \(TerminalText.sanitize($0))" } ?? "") } ?? "no store")
        // A confirmation, not data: stderr, so `store 302; orders --ndjson` pipes rows only.
        var output = CommandOutput(data: .object(o))
        output.notes = ["now " + parts.joined(separator: " · ")] + change.notes.map { "  " + $0 }
        return output
    }
}
