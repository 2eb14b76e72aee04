import FoundationEssentials
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

extension Commands {
    /// `boot`: the app's cold start replayed on a copy of the stored state (docs/app-behaviour.md#replays).
    enum Boot: AppCommand {
        static let spec = CommandSpec(
            "boot", summary: "replay the app's cold start on the stored state: SDKs, root screen, first screen's calls",
            discussion: "Seed 000 §1 and §7 applied to the profile's stored token and UserDefaults keys, without any request: which SDKs the app initialises at launch and why (Umeng with the privacy agreement accepted, WeChat always, AMap with privacy accepted and a token), whether it shows the login page or the main tab, and the first screen's API calls in order (login page: config; main tab: home's sequence), each with what it reads from storage. After import-defaults it answers what happens when that user opens the app.",
            flags: [
                FlagSpec("profile", value: .string, valueName: "NAME", summary: "replay this profile's stored state (default: the current profile)"),
                FlagSpec("apply", summary: "write what the home's first appearance would write (the key diff)"),
                json,
            ],
            examples: ["boot", "boot --json", "boot --profile imported", "boot --apply"]
        )

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.boot(command)
        }
    }
}

extension AppCommands {
    fileprivate func boot(_ command: ParsedCommand) async throws -> CommandOutput {
        let s = services
        let storage = try bootStorage(profile: command.option("profile"))
        let apply = command.has("apply")
        // What the server said of a token in this process counts for this profile only.
        let rejected = storage.paths.profile == s.storage.paths.profile ? s.sessionGuard.rejectedToken : nil
        let trace = try await BootReplay(store: storage.appStore, catalog: s.menuCatalog, clock: s.clock, rejectedToken: rejected).replay(apply: apply)
        if apply, storage.paths.profile == s.storage.paths.profile {
            // The live contexts follow what is now stored.
            _ = s.storage.appStore.restoreContexts(account: s.contexts.account, permission: s.contexts.permission)
            host.contextOrigin = "boot --apply"
        }
        var data = trace.json.objectValue ?? JSONObject()
        data.entries.insert((key: "profile", value: .string(storage.paths.profile)), at: 0)
        data.entries.insert((key: "stateDir", value: .string(storage.paths.profileDir)), at: 1)
        if trace.root.screen == .mainTab, !trace.sessionExpired { data["assumes"] = .string(AppModel.offlineCondition) }
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
        // The verdict's condition, said with it: the home ran offline on what is stored.
        if trace.root.screen == .mainTab, !trace.sessionExpired { out.line("  \(AppModel.offlineCondition) \(Rules.offlineStandIn.marker)") }
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
        guard PathText.isDirectory(paths.profileDir) else {
            throw AppError.usage("no profile '\(profile)' under \(paths.root)")
        }
        let diagnostics = self.diagnostics
        return try ProfileStorage(paths: paths, warn: { diagnostics.warning($0) }, clock: services.clock)
    }
}
