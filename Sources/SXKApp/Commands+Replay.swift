import Foundation
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `home` and `boot`: the app's home initialisation and cold start replayed on a copy of the stored
/// state (docs/app-behaviour.md#replays). Every step names its basis; the key diff shows what the app
/// would write, and `--apply` writes exactly that.
extension AppCommands {
    /// Names the two markers every step carries.
    static let basisLegend = "basis: [documented: …] the app's documents state it; [inferred: docs/app-behaviour.md#…] sxk's choice where they are silent"

    func home(_ command: ParsedCommand) async throws -> CommandOutput {
        let apply = command.has("apply")
        let trace = try await host.features().home.initializeReplay(offline: command.has("offline"), apply: apply)
        if apply { host.contextOrigin = "home --apply" }
        var out = CommandOutput(data: trace.json)
        out.line(trace.offline
            ? "HomeViewModel.initialize replayed on a copy of the stored state, offline: no call made, stored answers used"
            : "HomeViewModel.initialize replayed on a copy of the stored state: the app's calls made, nothing saved")
        out.line(Self.basisLegend)
        out.line("")
        for (i, step) in trace.steps.enumerated() {
            out.line("\(i + 1). \(step.name)\(step.skipped ? "  (skipped)" : "")  \(step.rule.marker)")
            for read in step.reads { out.line("   read   \(read)") }
            for call in step.calls { out.line("   call   " + Self.callText(call)) }
            for stored in step.stores { out.line("   store  \(stored)") }
            for note in step.notes { out.line("   note   \(note)") }
        }
        out.line("")
        out.line("calls in order:")
        if trace.calls.isEmpty { out.line("   (none)") }
        for call in trace.calls.sorted(by: { $0.order < $1.order }) { out.line("   " + Self.callText(call)) }
        out.line("")
        out.line("dialogs (priority order, \(Rules.dialogPriority.marker)):")
        for check in trace.checks { out.line(Self.dialogLine(check)) }
        if trace.sessionExpired { out.line("   (not evaluated: the server rejected the token, the app leaves the home)") }
        out.line("→ \(trace.verdict)  \(trace.verdictRule.marker)")
        Self.appendChanges(trace.changes, applied: trace.applied, hint: "home --apply", to: &out)
        return out
    }

    /// One dialog of the replay: whether the app would show it, why, and the rule's basis.
    private static func dialogLine(_ check: DialogCheck) -> String {
        let state = check.state
        return "   \(check.dialog.rawValue): \(state) — \(check.reason)  \(check.rule.marker)"
    }

    private static func callText(_ call: ReplayCall) -> String {
        let head = "#\(call.order) \(call.method) \(call.path)"
        guard call.made else { return "\(head)  not made" + (call.note.map { ": \($0)" } ?? "") }
        let status = call.ok ? "ok" : "failed: \(call.error ?? "")"
        return "\(head)  \(String(format: "%.0f", call.ms)) ms  \(status)"
    }

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

    func boot(_ command: ParsedCommand) async throws -> CommandOutput {
        let s = services
        let storage = try bootStorage(profile: command.option("profile"))
        let apply = command.has("apply")
        let trace = try await BootReplay(store: storage.appStore, catalog: s.menuCatalog, clock: s.clock).replay(apply: apply)
        if apply, storage.paths.profile == s.storage.paths.profile {
            // The live contexts follow what is now stored.
            _ = s.storage.appStore.restoreContexts(account: s.contexts.account, permission: s.contexts.permission)
            host.contextOrigin = "boot --apply"
        }
        var data = trace.json.objectValue ?? JSONObject()
        data.entries.insert((key: "profile", value: .string(storage.paths.profile)), at: 0)
        data.entries.insert((key: "stateDir", value: .string(storage.paths.profileDir)), at: 1)
        var out = CommandOutput(data: .object(data))
        out.line("cold start of profile \(storage.paths.profile) (\(storage.paths.profileDir)), replayed without network")
        out.line(Self.basisLegend)
        out.line("")
        out.line("1. AppDelegate.didFinishLaunching: SDKs  \(Rules.launch.marker)")
        let nameWidth = trace.sdks.map { TextWidth.width($0.name) }.max() ?? 0
        for sdk in trace.sdks {
            out.line("   \(TextWidth.pad(sdk.name, to: nameWidth))  \(sdk.initialised ? "initialised" : "not initialised"): \(sdk.reason)")
            let indent = String(repeating: " ", count: nameWidth + 5)
            out.line("\(indent)call  \(sdk.call)")
            for read in sdk.reads { out.line("\(indent)read  \(read.line)") }
            out.line("\(indent)rule  \(sdk.rule)")
            out.line("\(indent)seed  \(sdk.seed)")
        }
        out.line("   note   \(BootReplay.launchNote)")
        out.line("")
        out.line("2. SceneDelegate.willConnect -> AppRouter.makeRootViewController()  \(Rules.root.marker)")
        for read in trace.root.reads { out.line("   read   \(read.line)") }
        out.line("   → \(trace.root.screen.controller)")
        out.line("     \(trace.root.reason)")
        out.line("")
        out.line("3. first screen: \(trace.firstScreen)")
        for (i, step) in trace.steps.enumerated() {
            out.line("   3.\(i + 1) \(step.name)\(step.skipped ? "  (skipped)" : "")  \(step.rule.marker)")
            for read in step.reads { out.line("       read   \(read.line)") }
            for call in step.calls { out.line("       call   #\(call.order) \(call.method) \(call.path)") }
            for stored in step.stores { out.line("       store  \(stored)") }
            for note in step.notes { out.line("       note   \(note)") }
        }
        out.line("")
        out.line("API calls of the first screen, in order:")
        if trace.calls.isEmpty { out.line("   (none)") }
        for call in trace.calls {
            out.line("   \(call.order). \(call.method) \(call.path)")
            out.line("      by     \(call.caller)")
            out.line("      when   \(call.condition)")
            out.line("      reads  " + (call.reads.isEmpty ? "nothing" : call.reads.map(\.line).joined(separator: ", ")))
            out.line("      keeps  " + call.stores.joined(separator: "; "))
        }
        if !trace.checks.isEmpty {
            out.line("")
            out.line("dialogs the home screen would evaluate (\(Rules.dialogPriority.marker)):")
            for check in trace.checks { out.line(Self.dialogLine(check)) }
        }
        out.line("")
        out.line("where the seeds' cold starts differ  \(BootReplay.coldStartNote.rule.marker)")
        for line in BootReplay.coldStartNote.lines { out.line("   " + line) }
        out.line("")
        out.line("→ \(trace.verdict)")
        if trace.root.screen == .mainTab {
            Self.appendChanges(trace.changes, applied: trace.applied, hint: "boot --apply", to: &out)
        }
        return out
    }

    /// The current profile's storage, or another profile's under the same state root (read for the replay).
    private func bootStorage(profile: String?) throws -> ProfileStorage {
        let current = services.storage
        guard let profile, profile != current.paths.profile else { return current }
        let paths = try SXKSession.StatePaths(root: current.paths.root, profile: profile, configDir: current.paths.configDir)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: paths.profileDir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw AppError.usage("no profile '\(profile)' under \(paths.root)")
        }
        let stderr = io.stderr
        return try ProfileStorage(paths: paths, warn: { stderr.write("warning: \($0)\n") }, clock: services.clock)
    }
}
