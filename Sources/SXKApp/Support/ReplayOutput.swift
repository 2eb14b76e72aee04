import SXKCore
import SXKFeatures
import SXKShell

/// What `home`, `boot` and `explain` print alike: the basis legend, dialogs, calls and the key diff of a replay.
extension AppCommands {
    /// Names the two markers every step carries.
    static let basisLegend = "basis: [documented: …] the app's documents state it; [inferred: docs/app-behaviour.md#…] sxk's choice where they are silent"

    /// The key diff as `key: before → after` lines, and whether it was written.
    static func appendChanges(_ changes: [KeyChange], applied: Bool, hint: String, to out: inout CommandOutput) {
        out.line("")
        guard !changes.isEmpty else {
            out.line("stored keys: no change")
            return
        }
        let keys = Formatting.count(changes.count, "key")
        out.line(applied ? "written (\(keys)):" : "the app would write (\(keys), not saved — `\(hint)` writes them):")
        for change in changes { out.line("   " + change.line) }
    }

    /// One dialog of the replay: whether the app would show it, why, and the rule's basis.
    static func dialogLine(_ check: DialogCheck) -> String {
        let state = check.state
        return "   \(check.dialog.rawValue): \(state) — \(check.reason)  \(check.rule.marker)"
    }

    static func callText(_ call: ReplayCall) -> String {
        let head = "#\(call.order) \(call.method) \(call.path)"
        guard call.made else { return "\(head)  not made" + (call.note.map { ": \($0)" } ?? "") }
        let status = call.ok ? "ok" : "failed: \(call.error ?? "")"
        return "\(head)  \(NumberText.milliseconds(call.ms))  \(status)"
    }
}
