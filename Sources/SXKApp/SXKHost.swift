import FoundationEssentials
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSandbox
import SXKSession
import SXKShell
import Dispatch
import Synchronization

/// The app as the shell sees it: the command table, the prompt, completion values from cached
/// session data, error → exit status. It owns the current `AppServices`, which `env use` replaces.
final class SXKHost: ShellHost, @unchecked Sendable {
    let shellContext: ShellContext
    let settings: AppSettings
    let transport: RecordingTransport
    let sandbox: SandboxServer?
    let stderr: any OutputSink

    private let lock = Lock()
    private var currentServices: AppServices
    /// The storages of the services replaced (an import, `env use`), for the end's clean-up.
    private var leftStorages: [ProfileStorage] = []
    private var currentFeatures: AppFeatures?
    private var origin = "login in this shell"
    private var previous: APIEnvironment?
    private var snapshotBusy = false
    private var snapshotValidation: KeptSnapshotValidation?
    private var backendWarning: String?

    /// A one-shot's or script's warning that the profile's token is another backend's, said with its
    /// first command (`AppCommands.produce`) so that an error saying the same is not doubled.
    func deferBackendWarning(_ line: String) { lock.withLock { backendWarning = line } }
    func takeBackendWarning() -> String? {
        lock.withLock {
            defer { backendWarning = nil }
            return backendWarning
        }
    }
    /// The empty state folder a stateless command ran on (`SXKApplication.readsNoState`), removed at the end.
    var borrowedStateFolder: String?
    /// Set when the `--har` file could not be written at the end.
    let harLost = Mutex(false)
    var shutdownLostOutput: Bool { harLost.withLock { $0 } }

    init(shellContext: ShellContext, services: AppServices, settings: AppSettings, transport: RecordingTransport,
         sandbox: SandboxServer?, stderr: any OutputSink) {
        self.shellContext = shellContext
        self.currentServices = services
        self.settings = settings
        self.transport = transport
        self.sandbox = sandbox
        self.stderr = stderr
    }

    var services: AppServices { lock.withLock { currentServices } }

    /// Where the account context came from, for `whoami`.
    var contextOrigin: String {
        get { lock.withLock { origin } }
        set { lock.withLock { origin = newValue } }
    }

    /// The facades, built on the first command that needs them (they need the API client).
    func features() throws -> AppFeatures {
        try lock.withLock {
            if let currentFeatures { return currentFeatures }
            let made = try AppFeatures(services: currentServices)
            currentFeatures = made
            return made
        }
    }

    /// The environment before the last `env use` in this shell, for `env use -`.
    var previousEnvironment: APIEnvironment? {
        get { lock.withLock { previous } }
        set { lock.withLock { previous = newValue } }
    }

    /// Swaps in another environment's services (`env use`); the old session stays on disk.
    func replaceServices(_ services: AppServices) {
        lock.withLock {
            leftStorages.append(currentServices.storage)
            currentServices = services
            currentFeatures = nil
        }
    }

    // MARK: Device snapshots

    /// Before a command on a device snapshot: the state as imported (held changes of the last command
    /// dropped), contexts restored from it — its account fields whatever its token — and writes held
    /// in memory unless `writes`.
    /// One command on a snapshot at a time: a command abandoned by Ctrl-C may still be finishing
    /// (its task was cancelled, the prompt came back), and its held writes or its end must not mix
    /// with the next command's (a switch would otherwise turn the hold off under it).
    func beginSnapshotCommand(writes: Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !lock.withLock({ () -> Bool in
            if snapshotBusy { return false }
            snapshotBusy = true
            return true
        }) {
            guard ContinuousClock.now < deadline else {
                throw AppError.usage("the previous command on this device snapshot is still finishing; try again")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let store = services.storage.appStore
        store.held = true
        do {
            try store.discardHeld()
            try restoreSnapshotContexts()
        } catch {
            lock.withLock { snapshotBusy = false }
            throw error
        }
        store.held = !writes
    }

    /// After it: back to the state as stored, still held while the profile is a snapshot.
    func endSnapshotCommand() {
        let store = services.storage.appStore
        try? returnToImportedSnapshot()
        store.held = store.isDeviceSnapshot
        lock.withLock { snapshotBusy = false }
    }

    /// Back to the snapshot as imported, held: what a command's held writes or a rejection's reset
    /// changed on the copy is dropped, and the contexts read it again.
    func returnToImportedSnapshot() throws {
        let store = services.storage.appStore
        store.held = true
        try store.discardHeld()
        try restoreSnapshotContexts()
    }

    /// The phase as the prompt, `whoami` and history show it: a device snapshot whose token this
    /// process's first server command validated is logged in, though each command starts from the
    /// state as imported (restoring) until a server command puts the validation's contexts back.
    var shownPhase: SessionPhase {
        let session = services.contexts.session.current
        if session.phase == .restoring, keptSnapshotValidation(token: session.token) != nil { return .loggedIn }
        return session.phase
    }

    /// Restores the session from the profile; a snapshot's account context is loaded even without a
    /// token, so whoami, keys, menus and the replays can show it.
    func restoreSnapshotContexts() throws {
        let s = services
        let restored = try features().bootstrapper.restore()
        if restored.phase == .loggedOut, s.storage.appStore.isDeviceSnapshot {
            _ = s.storage.appStore.restoreContexts(account: s.contexts.account, permission: s.contexts.permission)
        }
        if s.storage.appStore.isDeviceSnapshot {
            s.storage.appStore.held = true
            contextOrigin = snapshotOrigin
        }
    }

    /// Where a device snapshot's contexts come from, as `whoami` says it: the import, on a copy, and
    /// whether this process's first server command had its token accepted (never "on disk": nothing
    /// a command of a snapshot validates is saved).
    var snapshotOrigin: String {
        let store = services.storage.appStore
        let validated = snapshotValidatedAt(token: services.contexts.session.token) != nil
            ? "; its token accepted by the server in this process" : ""
        return "device snapshot imported from \(store.importedFrom ?? "a file"), inspected on a copy" + validated
    }

    /// When this process's validation of the snapshot's token was made (nil: none kept for it).
    func snapshotValidatedAt(token: String?) -> Date? { keptSnapshot(token: token)?.at }

    /// A device snapshot's validation, kept for this process: every command starts from the state as
    /// imported, and a server command then runs on what the first validation loaded instead of
    /// sending userinfo, role-permission and the store list again (3 requests, 2 round trips). Tied to
    /// the backend, the profile, its token and `defaults.json` as read: a switch written, a new
    /// import or another process's change validates again, and so does `--revalidate`.
    struct KeptSnapshotValidation {
        let place: String
        let file: DefaultsStore.FileVersion
        let validated: SessionBootstrapper.Validated
        let at: Date
    }

    private func snapshotPlace() -> String {
        let s = services
        return s.environment.baseURL.absoluteString + " " + s.paths.profileDir
    }

    /// Keeps what a snapshot's validation loaded (the contexts as it left them).
    func keepSnapshotValidation(_ report: AccountLoadReport) throws {
        let store = services.storage.appStore
        guard store.isDeviceSnapshot, let file = store.defaults.loadedFileVersion,
              let validated = try features().bootstrapper.validated(report) else { return }
        let kept = KeptSnapshotValidation(place: snapshotPlace(), file: file, validated: validated, at: services.clock.now())
        lock.withLock { snapshotValidation = kept }
    }

    /// The kept validation when it is still this snapshot's: same place, same file, same token.
    func keptSnapshotValidation(token: String?) -> SessionBootstrapper.Validated? { keptSnapshot(token: token)?.validated }

    /// The kept validation, read once under the lock (its time and its contexts from the same one).
    private func keptSnapshot(token: String?) -> KeptSnapshotValidation? {
        let store = services.storage.appStore
        guard store.isDeviceSnapshot, let token, let file = store.defaults.loadedFileVersion else { return nil }
        let place = snapshotPlace()
        return lock.withLock { () -> KeptSnapshotValidation? in
            guard let kept = snapshotValidation, kept.place == place, kept.file == file, kept.validated.token == token else { return nil }
            return kept
        }
    }

    var commandSpecs: [CommandSpec] { CommandCatalog.all }

    // MARK: Prompt

    /// Reads the session again when another sxk process changed it
    /// (`SessionBootstrapper.readAgainIfChangedElsewhere`); the line that says so, nil when nothing did.
    func sessionChangedElsewhere() throws -> String? {
        guard let changed = try features().bootstrapper.readAgainIfChangedElsewhere() else { return nil }
        contextOrigin = "snapshot on disk, read again after another sxk process changed it"
        return changed
    }

    /// Before a prompt: a session another process changed is read now, so the prompt shows it.
    func noticesBeforePrompt() -> [String] {
        do { return (try sessionChangedElsewhere()).map { [$0] } ?? [] } catch { return ["\(error)"] }
    }

    /// `sxk test photographer@西湖景区/湖畔店 ›`, `sxk test (logged out) ›`, with a marker while
    /// restoring or offline. `release` (the real users' backend) is in a warning colour. The reader
    /// drops all colour when it is off (NO_COLOR, --no-color, not a terminal).
    func prompt() -> PromptText {
        prompt(columns: Terminal.currentWidth(environment: shellContext.environment))
    }

    func prompt(columns: Int) -> PromptText {
        let s = services
        let session = s.contexts.session.current
        // A profile other than the environment's own is named beside it (`sxk custom:dev …`).
        let profile = s.paths.profile == s.environment.defaultProfile ? "" : ":" + s.paths.profile
        let name = s.environment.name
        var tail = ""
        let scope: String
        let style: TextStyle
        let snapshot = s.storage.appStore.isDeviceSnapshot
        if snapshot { tail += " (snapshot)" }
        // A stored token this process saw rejected is not used: the prompt says so (colour may be off),
        // as it says a snapshot's account shows without a token.
        if session.phase == .loggedOut {
            if s.sessionGuard.rejectedToken != nil {
                tail += " (token rejected)"
            } else if let withheld = s.sessionGuard.withheldStoredToken {
                // The profile's session is another backend's: its token is kept, not sent here.
                tail += " (session of \(TextWidth.truncate(withheld.owner, to: min(24, max(8, columns / 4)))))"
            } else if snapshot {
                tail += " (no token)"
            }
        }
        switch session.phase {
        case .loggedOut where !(snapshot && s.contexts.account.hasAccount):
            scope = "(logged out)"
            style = .yellow
        case .loggedOut, .restoring, .loggedIn:
            let account = s.contexts.account.current
            var text = s.contexts.permission.roleCode ?? "?"
            // A scenic the app does not count as valid (it clears it at the next home) shows as `?`.
            if let scenic = account.scenicName ?? account.scenicId.map(String.init) {
                // At most 16 columns (a quarter of a narrow window): a long name never makes the prompt two rows.
                let label = TextWidth.truncate(TerminalText.sanitize(scenic), to: max(4, min(16, columns / 4)))
                text += "@" + (AppModel.scenicClearReason(scenicId: account.scenicId, scenicName: account.scenicName) == nil ? label : "?")
            }
            // A snapshot whose token this process validated is not "restoring" between its commands.
            if shownPhase == .restoring { tail += " (restoring)" }
            if session.offline { tail += " (offline)" }
            if let store = AppModel.currentStore(account.storeId) {
                let known = account.stores.first { $0.storeId == store }?.storeName
                text += "/" + Self.storeLabel(id: store, name: known, budget: columns / 3 - TextWidth.width("sxk \(name)\(profile) \(text)/\(tail) › "))
            }
            scope = text
            style = session.offline ? .red : session.phase == .loggedOut ? .yellow : .green
        }
        let head: [PromptText.Segment] = name == "release"
            ? [.init("sxk "), .init(name, style: .red), .init(profile + " ")] : [.init("sxk \(name)\(profile) ")]
        let full = PromptText(head + [.init(scope, style: style), .init(tail + " › ")])
        // A prompt that would not fit on one row with room to type says its markers short, and names a
        // profile without its backend, still marked a profile (`sxk :NAME`, never a backend's name alone;
        // `whoami` says both): `release` keeps its warning colour and its name.
        guard TextWidth.width(full.plain) >= columns - 2 else { return full }
        var short = tail
        for (long, brief) in [(" (snapshot)", " (snap)"), (" (token rejected)", " (rejected)"), (" (restoring)", " (…)")] {
            if let range = short.range(ofBytes: long) { short.replaceSubrange(range, with: brief) }
        }
        let shortHead: [PromptText.Segment] = name == "release" || profile.isEmpty ? head
            : [.init("sxk \(TextWidth.truncate(profile, to: max(5, columns / 3))) ")]
        return PromptText(shortHead + [.init(scope, style: style), .init(short + " › ")])
    }

    /// The store's name (sanitized, cut to at most 16 columns) when it fits in `budget` columns,
    /// else its id: the prompt stays within about a third of the terminal.
    static func storeLabel(id: Int, name: String?, budget: Int) -> String {
        let clean = name.map { TerminalText.sanitize($0).trimming(\.isBlank) } ?? ""
        let cut = TextWidth.truncate(clean, to: min(16, budget))
        // Four columns at least, or the cut name says less than the id does.
        guard !clean.isEmpty, TextWidth.width(cut) >= min(4, TextWidth.width(clean)), TextWidth.width(cut) <= budget else {
            return String(id)
        }
        return cut
    }

    // MARK: Execution

    func execute(_ command: ParsedCommand, io: CommandIO) async throws -> Int32 {
        let started = DispatchTime.now().uptimeNanoseconds
        let firstRequest = transport.ring.nextRequestNumber
        defer {
            if settings.timing {
                let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                var text = "time: \(NumberText.milliseconds(ms))\n"
                for entry in transport.ring.all where entry.number >= firstRequest {
                    text += "  " + RequestTiming.line(entry, secrets: secrets) + "\n"
                }
                Diagnostics(sink: io.stderr, secrets: secrets).lines(text, statusLines: .max)
            }
        }
        let commands = AppCommands(host: self, io: io)
        return try await commands.run(command)
    }

    func exitStatus(for error: any Error) -> Int32 { ExitCodes.status(for: error) }

    func completions(for provider: String, prefix: String) -> [CompletionCandidate] {
        CompletionValues(services: services, sandbox: sandbox != nil || shellContext.options.sandbox).values(for: provider, prefix: prefix)
    }

    func shutdown() {
        writeHARAtExit()
        sandbox?.stop()
        // Profiles this run opened and made but never wrote (a mistyped --profile, the one an import left).
        for storage in lock.withLock({ leftStorages }) + [services.storage] { storage.removeIfMadeAndUnused() }
        if let folder = borrowedStateFolder { try? FileManager.default.removeItem(atPath: folder) }
    }

    // MARK: Variables and history context

    /// Every token this shell holds or has held (the session's, the login's temporary one, any
    /// read from or written to this profile's token file: one rejected or kept back is still a
    /// secret) and every other live secret this process sent or was given (`SecretMemory`): what
    /// output masks.
    var secrets: [String] {
        let auth = lock.withLock { currentFeatures?.auth }
        var all = [services.contexts.session.token].compactMap { $0 }
        for secret in (auth?.liveSecrets ?? []) + services.storage.appStore.tokens.knownTokens.reversed() + SecretMemory.all.reversed()
        where !all.contains(secret) { all.append(secret) }
        return all
    }

    /// The profile and scope a line typed now runs in, as the prompt shows them.
    func historyContext() -> HistoryContext? {
        let s = services
        let account = s.contexts.account.current
        // As the prompt: a device snapshot's account shows without a usable token too.
        let loggedOut = s.contexts.session.current.phase == .loggedOut && !(s.storage.appStore.isDeviceSnapshot && s.contexts.account.hasAccount)
        // The scope as the prompt reads it: a scenic the app does not count as valid is `?`, and a
        // stored store 0 is no store (`AppModel.currentStore`), so `history --here` matches the prompt.
        let validScenic = AppModel.scenicClearReason(scenicId: account.scenicId, scenicName: account.scenicName) == nil
        return HistoryContext(
            profile: s.paths.profile, environment: s.environment.name,
            role: loggedOut ? nil : s.contexts.permission.roleCode,
            scenicId: loggedOut || !validScenic ? nil : account.scenicId.map(String.init),
            scenicName: loggedOut || account.scenicId == nil && account.scenicName == nil ? nil : validScenic ? account.scenicName : "?",
            storeId: loggedOut ? nil : AppModel.currentStore(account.storeId).map(String.init))
    }
}
