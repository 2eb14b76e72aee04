import FoundationEssentials
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

extension Commands {
    /// `import-defaults`: a device's UserDefaults export rebuilt as an account context.
    enum ImportDefaults: AppCommand {
        static let spec = CommandSpec(
            "import-defaults", summary: "rebuild an account context from a device's UserDefaults export",
            arguments: [ArgumentSpec("FILE", kind: .path, summary: "plist (XML or binary) or JSON")],
            flags: [FlagSpec("profile", value: .string, valueName: "NAME", summary: "profile to import into (default: the global --profile or SXK_PROFILE, else imported)"),
                    FlagSpec("json", summary: "print the import's report as JSON (keys imported, kept out, refused)")]
        )
        static let unwatchable: String? = "it writes a profile from a file"

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { true }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.importDefaults(command)
        }
    }
}

extension AppCommands {
    /// Loads a device's UserDefaults export into a profile of its own, then switches to it.
    fileprivate func importDefaults(_ command: ParsedCommand) throws -> CommandOutput {
        guard let file = command.positionals.first else { throw AppError.usage("import-defaults needs a FILE") }
        // A file that is not there is the command line's mistake (2), as a missing script is.
        guard FileManager.default.fileExists(atPath: file) else { throw AppError.usage(TerminalText.sanitize("no such file '\(file)'")) }
        // So is a folder named where the export goes.
        if PathText.isDirectory(file) { throw AppError.usage(TerminalText.sanitize("'\(file)' is a folder, not an export file")) }
        // Named, it must be a valid name: an empty one (an unset variable in a script) would mean the
        // default profile, the logged-in session this import would replace.
        // The global `--profile` / SXK_PROFILE names it too: two customers' exports imported with
        // `sxk --profile A …` and `sxk --profile B …` must not both land in `imported`, the second over the first.
        // The one the shell started with, not the current one: an earlier import or `env use` changes that.
        let profile = command.option("profile") ?? host.shellContext.options.profile ?? "imported"
        try StatePaths.validateProfileName(profile)
        // The file before the profile: one that cannot be used leaves no profile behind.
        let prepared = try DefaultsImporter().read(file)
        var options = services.options
        options.profile = profile
        let folder = try StatePaths(root: services.paths.root, profile: profile, configDir: services.paths.configDir).profileDir
        let existed = PathText.isDirectory(folder)
        let target = try AppServices(
            environment: services.environment, options: options, processEnvironment: host.shellContext.environment,
            settings: host.settings, transport: host.transport, stderr: io.stderr)
        // A profile holding a login's session is not replaced by a device's state: that session would
        // be lost without a word (a snapshot imported before is replaced: that is what re-importing is).
        let store = target.storage.appStore
        if existed, !store.isDeviceSnapshot, (try? store.token()) != nil || store.tokens.isOnDisk {
            throw AppError.failed(TerminalText.sanitize("profile \(profile) holds a logged-in session: import into another profile (--profile NAME), or `logout` there first"))
        }
        let report: DefaultsImporter.Report
        // Interrupted while the file was read: nothing written. Once the write starts, it finishes.
        if Task.isCancelled {
            if !existed { StatePaths.removeEmptyProfile(folder) }
            throw CancellationError()
        }
        do {
            report = try DefaultsImporter().write(prepared, into: target.storage.appStore)
        } catch {
            // A profile made for this import, which its failure left empty, goes again.
            if !existed { StatePaths.removeEmptyProfile(folder) }
            throw error
        }
        // The imported profile talks to the backend it was imported under (`--profile NAME` alone).
        target.rememberBackend()
        host.replaceServices(target)
        // A device snapshot from now on: its account context is loaded whatever its token, and every
        // later command inspects it on a copy.
        try host.restoreSnapshotContexts()
        var output = CommandOutput(data: [
            "file": .string(file), "profile": .string(profile), "format": .string(report.format),
            "importedKeys": .array(report.importedKeys.map { .string($0) }), "tokenImported": .bool(report.tokenImported),
            "unknownKeys": .array(report.unknownKeys.map { .string($0) }),
            "unmodelledKeys": .array(report.unmodelledKeys.map { .string($0) }),
            "rejected": .array(report.rejected.map { ["key": .string($0.key), "reason": .string($0.reason)] }),
            "readAsShanghaiTime": .array(report.readAsShanghaiTime.map { .string($0) }),
        ])
        output.notes.append("imported \(Formatting.count(report.importedKeys.count, "key")) (\(report.format)) into profile \(profile)"
            + (report.tokenImported ? ", token included" : ", no token"))
        // A line names the first keys of a list; `--json` holds every one (an export may hold thousands).
        func listed(_ keys: [String]) -> String {
            let shown = keys.prefix(20).joined(separator: ", ")
            return keys.count > 20 ? shown + " … and \(Formatting.count(keys.count - 20)) more (--json lists them all)" : shown
        }
        if !report.unmodelledKeys.isEmpty {
            output.notes.append("in an account's scope, kept but not modelled by sxk: \(listed(report.unmodelledKeys))")
        }
        if !report.unknownKeys.isEmpty {
            output.notes.append("unknown keys (kept out): \(listed(report.unknownKeys))")
        }
        if !report.readAsShanghaiTime.isEmpty {
            output.notes.append("a time given as text without a zone, read as Asia/Shanghai time (the backend's zone) \(Rules.importedTextTime.marker): \(listed(report.readAsShanghaiTime))")
        }
        output.warnings = report.rejected.map { "\($0.key): \($0.reason)" }
        // Without a user id or an account type the state's scope is `guest` (seed 000 §6.1): an export's
        // account-scoped keys of a real account are then read by no view, as the app reads none of them.
        let scope = target.storage.appStore.accountCachePrefix
        if scope == "guest" {
            let orphaned = report.importedKeys.filter { key in
                let parts = key.split(separator: "_", maxSplits: 2)
                return parts.count == 3 && Int(parts[0]) != nil
            }
            if !orphaned.isEmpty {
                let missing = target.storage.appStore.userId == nil ? "key_in_user_id" : "key_in_account_type"
                let read = report.rejected.contains { $0.key == missing } ? "no \(missing) that could be read" : "no \(missing)"
                output.warnings.append("the export has \(read), so its account scope is guest \(Rules.storage.marker): "
                    + "\(Formatting.count(orphaned.count, "account-scoped key")) of another scope (\(listed(orphaned))) are kept but read by no view, as the app reads none of them")
            }
        }
        // A Ctrl-C that came while the write ran: the import is on disk whole, and stands; the run
        // still ends as interrupted (130), as a login interrupted after set-user does.
        if Task.isCancelled {
            output.warnings.append("interrupted: the import was already written whole, and stands (profile \(profile))")
            output.status = ExitStatus.interrupted
        }
        // A later process starts on its default profile: say how to reach this one from there.
        // With what this process was started with that picks the profile's place and backend: the
        // state folder, and the sandbox (a sandbox profile needs `--sandbox`; another backend is on record).
        var words = ["sxk"]
        if let dir = io.options.stateDir { words += ["--state-dir", CurlCommand.quote(dir)] }
        if host.sandbox != nil { words.append("--sandbox") }
        words += ["--profile", profile.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) ? profile : CurlCommand.quote(profile), "whoami"]
        let next = host.shellContext.mode == .repl ? "whoami, keys, home, boot, context diff"
            : words.joined(separator: " ") + " (keys, home, boot, context diff)"
        output.notes.append("now on profile \(profile), a device snapshot: commands inspect it on a copy; switches and --apply write it. Try \(next)")
        return output
    }
}
