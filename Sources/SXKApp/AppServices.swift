import FoundationEssentials
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSandbox
import SXKSession
import SXKShell
import Dispatch

/// The composition root (the app's `AppServices`): one profile's storage, the session contexts,
/// one API client shared by every endpoint group, and the feature facades. Nothing here touches
/// the network at construction; the client is built on the first call (lazily, as the app does).
final class AppServices: @unchecked Sendable {
    let environment: APIEnvironment
    let options: GlobalOptions
    let storage: ProfileStorage
    let contexts: SessionContexts
    let sessionGuard: SessionGuard
    let settings: AppSettings
    let clock: any WallClock
    let transport: RecordingTransport
    let stderr: any OutputSink
    let menuCatalog: MenuCatalog
    /// Tab candidates for scenic areas and stores, rebuilt only when the lists change.
    let scenicCompletion = IdNameCompletion()
    let storeCompletion = IdNameCompletion()

    private let lock = Lock()
    private var builtNetwork: NetworkBundle?

    init(
        environment: APIEnvironment, options: GlobalOptions, processEnvironment: [String: String],
        settings: AppSettings, transport: RecordingTransport, stderr: any OutputSink, clock: any WallClock = SystemClock()
    ) throws {
        self.environment = environment
        self.options = options
        self.settings = settings
        self.transport = transport
        self.stderr = stderr
        self.clock = clock
        let paths = try SXKSession.StatePaths.resolve(
            stateDir: options.stateDir, profile: options.profile,
            envName: environment.defaultProfile, environment: processEnvironment)
        let diagnostics = Diagnostics(sink: stderr)
        let warn: WarningSink = { message in diagnostics.warning(message) }
        storage = try ProfileStorage(paths: paths, warn: warn, clock: clock)
        contexts = SessionContexts(
            session: AppSession(), account: AccountContext(), permission: PermissionContext(), store: storage.appStore)
        sessionGuard = SessionGuard(contexts: contexts)
        menuCatalog = MenuCatalogResource.catalog
        installOwnerCheck()
        // A token written here (a login, an account switch, an import) is this backend's: recorded
        // first, so no reader ever sees the new token beside the old owner.
        let here = backend
        storage.appStore.tokens.beforeWrite = { [weak storage] () throws(SessionError) -> (@Sendable () -> Void)? in
            guard let storage else { return nil }
            return try here.rememberHoldingLock(in: storage)
        }
    }

    var paths: SXKSession.StatePaths { storage.paths }

    /// This process's backend as a profile remembers it.
    var backend: ProfileBackend {
        if case .custom(let base) = environment { return ProfileBackend(environment: environment.name, baseURL: base.absoluteString) }
        return ProfileBackend(environment: environment.name, baseURL: nil)
    }

    /// Keeps this backend in the profile (`ProfileBackend`), so `--profile NAME` alone comes back
    /// to it, unless the profile holds a token (checked under the profile lock: a login's token
    /// records its own backend as it is written); a failure costs only that (one warning).
    func rememberBackend() {
        let storage = self.storage, here = backend
        do {
            let ownName = paths.profile == environment.defaultProfile
            try storage.lock.withLock { () throws(SessionError) in
                // A token's record is written with the token; one with none on record is taken as this
                // backend's only in a profile named after it (`installOwnerCheck`), and recorded so.
                if storage.appStore.tokens.isOnDisk {
                    guard ownName, ProfileBackend.record(root: paths.root, profile: paths.profile) == .none else { return }
                }
                _ = try here.rememberHoldingLock(in: storage)
            }
        } catch {
            Diagnostics(sink: stderr).warning("cannot remember the backend of profile \(paths.profile): \(error)")
        }
    }

    /// At start and at `env use`: a profile whose stored token is another backend's says so once (the
    /// token is kept and not sent: `SessionGuard.ownerCheck`); otherwise a backend named on the command
    /// line (`explicit`) becomes the profile's, or chosen by `env use` (`told`). Named at start, it is
    /// not written into a device snapshot (only switches and `--apply` write one) or into a profile
    /// this run made (a command that only shows leaves no folder behind; a login records its backend).
    /// Returns the warning line, nil when there is none.
    func adoptBackend(explicit: Bool, told: Bool = false) -> String? {
        // The usual case, the profile already this backend's: one read, no lock (a one-shot's start).
        if ProfileBackend.record(root: paths.root, profile: paths.profile, through: storage.file) == .known(backend) { return nil }
        // A token file counts whatever its state: one refused for now (a loose mode) is still a session.
        if storage.appStore.tokens.isOnDisk, let withheld = sessionGuard.ownerCheck?() {
            return "profile \(TerminalText.sanitize(paths.profile)) holds a session of \(withheld.owner): its token is not sent to \(hereName) (`login` here replaces it)"
        }
        if told || (explicit && !storage.madeProfileFolder && !storage.appStore.isDeviceSnapshot) { rememberBackend() }
        return nil
    }

    /// This process's backend as the lines about it name it.
    private var hereName: String {
        if case .custom(let base) = environment { return TerminalText.sanitize(base.absoluteString) }
        return environment.name
    }

    /// Judges a stored token by the profile's `backend.json` as it is when the token is about to be
    /// used: this backend's (or, with no record, a profile named after this backend, as sxk names
    /// them) is sent; another's, or one of no backend on record under another name, is kept back.
    private func installOwnerCheck() {
        let here = backend, root = paths.root, profile = paths.profile
        let ownName = profile == environment.defaultProfile
        let hereName = self.hereName
        let shownProfile = TerminalText.sanitize(profile)
        let appStore = storage.appStore
        sessionGuard.ownerCheck = {
            let owner: ProfileBackend
            let record = ProfileBackend.record(root: root, profile: profile)
            switch record {
            case .known(let known): owner = known
            case .none where ownName: return nil
            case .none, .unreadable:
                let why = record == .unreadable ? "its backend.json cannot be read" : "no backend.json"
                return SessionGuard.WithheldToken(
                    owner: "unknown backend (\(why))",
                    note: "not logged in here: profile \(shownProfile)'s token has no backend on record (\(why)), so it is not sent to \(hereName) — `login` here replaces it")
            }
            if owner.isSameBackend(as: here) { return nil }
            let ownerName = TerminalText.sanitize(owner.environment == "custom" ? owner.baseURL ?? "another base URL" : owner.environment)
            // A device snapshot is debugged, not replaced: a login would end it.
            let remedy = appStore.isDeviceSnapshot
                ? "use that backend, or import the device's export again with this one (`import-defaults FILE`)"
                : "use the profile with that backend, or `login` here to replace it"
            return SessionGuard.WithheldToken(
                owner: ownerName,
                note: "not logged in here: profile \(shownProfile)'s session belongs to \(ownerName), and its token is not sent to \(hereName) — \(remedy)")
        }
    }

    /// The one client of this shell, built on first use from the environment and global options.
    func network() throws -> NetworkBundle {
        try lock.withLock {
            if let builtNetwork { return builtNetwork }
            let configuration = APIConfiguration(
                environment: environment,
                timeout: options.timeout ?? APIConfiguration.defaultTimeout,
                insecureHTTP: options.insecureHTTP)
            let session = contexts.session, tokens = storage.appStore.tokens
            let bundle = try NetworkBundle(
                configuration: configuration, transport: transport, observer: TraceObserver(settings: settings, sink: stderr),
                tokenProvider: { session.token }, heldSecrets: { tokens.knownTokens })
            builtNetwork = bundle
            return bundle
        }
    }
}

/// The shell's transport (`CurlTransport`, for http and https) with a memory of what it sent: every
/// request is kept in `ring` for `curl`, with its status or failure and its time.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    let base: CurlTransport
    let ring = RequestRing()
    private let lock = Lock()
    private var kept: KeptConnectionTransport?

    init(base: CurlTransport) { self.base = base }

    /// From now on requests go through the profile's connection holder (`--persist`), falling back to `base`.
    func keepConnections(_ transport: KeptConnectionTransport) { lock.withLock { kept = transport } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (number, bodySecrets) = ring.begin(request)
        let base: any HTTPTransport = lock.withLock { kept } ?? self.base
        let started = DispatchTime.now().uptimeNanoseconds
        func ms() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6 }
        do {
            let response = try await base.send(request)
            ring.finish(number, response: response, bodySecrets: bodySecrets, elapsedMs: ms())
            return response
        } catch {
            ring.finish(number, status: nil, failure: RequestRing.describe(error), elapsedMs: ms())
            throw error
        }
    }
}

/// Prints each request and response to stderr while `trace` is on. The client hands over
/// headers and excerpts with secrets already replaced by `***`. Every request also goes to the
/// shell's status line, which decides whether to show it.
struct TraceObserver: APIObserver {
    let settings: AppSettings
    let sink: any OutputSink

    var isTracing: Bool { settings.trace }

    func requestWillSend(_ request: TraceRequest) {
        guard settings.trace else { return }
        Diagnostics(sink: sink).lines(request.description + "\n")
    }

    func responseReceived(_ response: TraceResponse) {
        guard settings.trace else { return }
        // The answer's line is a status line; its headers and body excerpt stay as received.
        Diagnostics(sink: sink).lines(response.description + "\n", statusLines: 1)
    }

    func warning(_ message: String) {
        Diagnostics(sink: sink).warning(message)
    }

    func requestStarted(_ activity: RequestActivity) {
        settings.status.requestStarted(id: activity.id, label: activity.label)
    }

    func requestFinished(_ activity: RequestActivity) {
        settings.status.requestFinished(id: activity.id)
    }
}

extension APIEnvironment {
    /// The backend a profile remembers (`ProfileBackend`), for a start that names only the profile.
    static func remembered(_ backend: ProfileBackend, profile: String) throws -> APIEnvironment {
        switch backend.environment {
        case "test": return .test
        case "release": return .release
        case "sandbox":
            // Its port changes with every run: only a new embedded sandbox can serve the profile.
            throw UsageError("profile '\(profile)' belongs to the embedded sandbox — add --sandbox")
        default:
            guard let url = backend.baseURL else { throw UsageError("profile '\(profile)' names no base URL — add --base-url or --env") }
            return .custom(try APIEnvironment.validatedBaseURL(url))
        }
    }

    /// The state profile this environment uses unless `--profile` names one (`StatePaths.defaultProfile`).
    var defaultProfile: String {
        if case .custom(let url) = self { return StatePaths.defaultProfile(environmentName: name, customURL: url) }
        return StatePaths.defaultProfile(environmentName: name, customURL: nil)
    }
}
