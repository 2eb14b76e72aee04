import Foundation
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `boot`: the app's cold start replayed on a profile's stored state (seed 000 §1, §7), no network.
extension AppCommands {
    func boot(_ command: ParsedCommand) throws -> Int32 {
        let s = services
        let storage = try bootStorage(profile: command.option("profile"))
        let trace = try BootReplay(store: storage.appStore, catalog: s.menuCatalog, clock: s.clock).replay()
        if wantsJSON(command) {
            guard case .object(var o) = trace.json else { return ExitStatus.failure }
            o.entries.insert((key: "profile", value: .string(storage.paths.profile)), at: 0)
            o.entries.insert((key: "stateDir", value: .string(storage.paths.profileDir)), at: 1)
            io.json.print(.object(o))
            return ExitStatus.ok
        }
        let out = io.stdout
        out.line("cold start of profile \(storage.paths.profile) (\(storage.paths.profileDir)), replayed without network")
        out.line("")
        out.line("1. AppDelegate.didFinishLaunching: SDKs")
        let nameWidth = trace.sdks.map { TextWidth.width($0.name) }.max() ?? 0
        for sdk in trace.sdks {
            let state = sdk.initialised ? "initialised" : "not initialised"
            out.line("   \(TextWidth.pad(sdk.name, to: nameWidth))  \(state): \(sdk.reason)")
            let indent = String(repeating: " ", count: nameWidth + 5)
            out.line("\(indent)call  \(sdk.call)")
            for read in sdk.reads { out.line("\(indent)read  \(read.line)") }
            out.line("\(indent)rule  \(sdk.rule)")
            out.line("\(indent)seed  \(sdk.seed)")
        }
        out.line("   note   \(BootReplay.launchNote)")
        out.line("")
        out.line("2. SceneDelegate.willConnect -> AppRouter.makeRootViewController()")
        for read in trace.root.reads { out.line("   read   \(read.line)") }
        out.line("   → \(trace.root.screen.controller)")
        out.line("     \(trace.root.reason)")
        out.line("")
        out.line("3. first screen: \(trace.firstScreen)")
        for (i, step) in trace.steps.enumerated() {
            out.line("   3.\(i + 1) \(step.name)\(step.skipped ? "  (skipped)" : "")")
            for read in step.reads { out.line("       read   \(read.line)") }
            for call in step.calls { out.line("       call   #\(call.order) \(call.method) \(call.path)") }
            for stored in step.stores { out.line("       store  \(stored)") }
            for note in step.notes { out.line("       note   \(note)") }
        }
        out.line("")
        out.line("API calls of the first screen, in order:")
        for call in trace.calls {
            out.line("   \(call.order). \(call.method) \(call.path)")
            out.line("      by     \(call.caller)")
            out.line("      when   \(call.condition)")
            out.line("      reads  " + (call.reads.isEmpty ? "nothing" : call.reads.map(\.line).joined(separator: ", ")))
            out.line("      keeps  " + call.stores.joined(separator: "; "))
        }
        out.line("")
        out.line("→ \(trace.verdict)")
        return ExitStatus.ok
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
