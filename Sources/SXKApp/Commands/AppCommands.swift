import FoundationEssentials
import SXKAPI
import SXKCore
import SXKFeatures
import SXKShell

extension SXKHost {
    /// `$SXK_PAGER`/`$PAGER`/`less -FRX`: the pager for command output and help alike (whether it
    /// is used is `CommandIO.pager`'s call: `set pager`, `--no-pager`, the terminal).
    func pager() -> String? { Pager.command(environment: shellContext.environment) }
}

/// Runs one parsed command through its declaration in `CommandRegistry` and hands what it
/// returns to the renderer; errors propagate to the shell, which prints them once.
struct AppCommands: Sendable {
    let host: SXKHost
    let io: CommandIO

    var services: AppServices { host.services }

    func run(_ command: ParsedCommand) async throws -> Int32 {
        // Worked out once: a bad combination of format flags is a usage error before anything runs.
        let format = try self.format(command)
        let output = try await produce(command, format: format)
        let status: Int32
        do {
            status = try await renderer(format).render(output)
        } catch {
            // What was read could not be shown (a `--jq` error), and the command's own failure still
            // stands: both are said, and the failure's status is the command's (3 after a rejected token).
            guard let failure = output.failure else { throw error }
            throw FollowedError(error, then: failure)
        }
        if let failure = output.failure { throw failure }
        return status
    }

    /// The command's output without printing it (also what `watch` shows each run). Its validation and
    /// its own calls share one `AnswerMemo`: a GET the validation just answered is not sent again.
    func produce(_ command: ParsedCommand, format given: OutputFormat? = nil) async throws -> CommandOutput {
        try await AnswerMemo.$current.withValue(AnswerMemo()) { try await producing(command, format: given) }
    }

    private func producing(_ command: ParsedCommand, format given: OutputFormat?) async throws -> CommandOutput {
        guard let declaration = CommandRegistry.declaration(for: command.spec.name) else {
            throw AppError.usage("unknown command '\(command.spec.name)'")
        }
        let format = try given ?? self.format(command)
        // A session another sxk process changed is read again first: no command runs as an account
        // this profile no longer holds, nor writes that account's scope into another's state.
        if let changed = try host.sessionChangedElsewhere() { diagnostics.warning(changed) }
        // A device snapshot is inspected on a copy: each command starts from the state as imported,
        // and only a switch the user typed or `--apply` writes (docs/app-behaviour.md#snapshots).
        let snapshot = services.storage.appStore.isDeviceSnapshot
        let writes = snapshot && Self.writesSnapshot(command, declaration)
        if snapshot { try await host.beginSnapshotCommand(writes: writes) }
        defer { if snapshot { host.endSnapshotCommand() } }
        // A switch on a snapshot is not validated first: that would write the server's answers too.
        // `--revalidate whoami` asks the server first, so the view says whether the session still holds.
        let validates = declaration.needsServer(command) || io.options.revalidate && declaration.showsSession(command)
        let validation = validates && !writes ? try await validateRestoredSession() : SessionValidation()
        let expired = validation.expired
        // `--revalidate whoami` says whether the session holds: its status, read from what the
        // validation left. A snapshot's view then shows the state as imported, as every view of it
        // does in this process (`orders; whoami` shows the same): the server's answers stay the
        // validation's, for the commands that send (`context diff` shows them beside the import).
        let showsValidation = io.options.revalidate && declaration.showsSession(command) && !declaration.needsServer(command)
        var validationStatus: Int32?
        if showsValidation {
            let session = services.contexts.session.current
            if session.phase != .loggedIn {
                validationStatus = ExitStatus.notLoggedIn
            } else if session.offline {
                validationStatus = validation.unvalidated.map { ExitCodes.status(for: $0) } ?? ExitStatus.network
            }
            // Offline (no answer, or an error answer) the contexts are the snapshot's already, and the
            // view says `offline` as its warning and status do.
            if snapshot, !writes, session.phase == .loggedIn, !session.offline { try host.returnToImportedSnapshot() }
        }
        // The start's word about a stored token of another backend, when a one-shot or script has not
        // said it yet: after the command, unless its error line says the same.
        let heldBack = host.takeBackendWarning()
        // Whether the command went out with a token: one it had (and the server refused) is not "kept back".
        let hadToken = services.contexts.session.token != nil
        var output: CommandOutput
        do {
            output = try await declaration.run(self, command)
        } catch {
            // A command that needs the session the validation just ended says so in one line: the
            // expiry (its request sent without a token is refused as expired too: a raw `get`).
            if let expired {
                let feature = error as? FeatureError
                if feature == .notLoggedIn || feature?.apiError?.kind == .sessionExpired || (error as? APIError)?.kind == .sessionExpired {
                    throw AppError.notLoggedIn(expired)
                }
                diagnostics.warning(expired)
            }
            // Not logged in because the stored token is kept back (another backend's, or rejected earlier):
            // said as such, also when a request sent without it was refused as expired (a raw `get`).
            let feature = error as? FeatureError
            let refusedUnsent = (feature?.apiError?.kind ?? (error as? APIError)?.kind) == .sessionExpired && !hadToken
            if feature == .notLoggedIn || refusedUnsent, let note = services.sessionGuard.unusableTokenNote {
                throw AppError.notLoggedIn(note)
            }
            if let heldBack { diagnostics.warning(heldBack) }
            throw error
        }
        if let heldBack { diagnostics.warning(heldBack) }
        // It ran logged out (a request that needs no token): the expiry is a warning before its output.
        if let expired { diagnostics.warning(expired) }
        // `--revalidate whoami`: its status says what the server said (`… >/dev/null && echo valid`
        // reads it): 0 accepted now, 3 no session (none, expired, rejected, another backend's), 4 not
        // reached, 1 an error answer.
        if let validationStatus { output.status = validationStatus }
        if output.format == nil { output.format = format }
        return output
    }

    /// What may write a device snapshot: `--apply`, and what the command's type says (a switch the
    /// user typed, a command that replaces the session).
    static func writesSnapshot(_ command: ParsedCommand, _ declaration: CommandDeclaration) -> Bool {
        command.has("apply") || declaration.writesSnapshot(command)
    }

    func renderer(_ format: OutputFormat) -> Renderer {
        Renderer(io: io, format: format, secrets: host.secrets, pager: io.pager(host.pager(), format: format))
    }

    /// The format this command line asked for (`stats --chart` reads it).
    func format(_ command: ParsedCommand) throws -> OutputFormat { try OutputFormat.from(command, options: io.options, display: io.display) }

    // MARK: Session validation at first use

    /// How long after a validation a one-shot command trusts the session without one (docs/session.md).
    static let validationWindow: TimeInterval = 5 * 60

    /// What a validation at a command's start concluded, for the command to say.
    struct SessionValidation {
        /// The expiry notice when the server rejected the token (not a device snapshot's): the caller
        /// says it once, as the command's error or as a warning before its output.
        var expired: String?
        /// Why the session goes on offline: no answer, or an error answer (warned already).
        var unvalidated: FeatureError?
    }

    /// Validates a restored session before its first command that needs the server.
    @discardableResult
    func validateRestoredSession() async throws -> SessionValidation {
        let features = try host.features()
        guard features.bootstrapper.needsValidation else { return SessionValidation() }
        // One-shots, -c and scripts send only their own request on a recently validated session; an
        // expired token then shows in that request's answer (exit 3, same reset). The REPL validates.
        if host.shellContext.mode != .repl, !io.options.revalidate,
           let at = features.bootstrapper.trustRecentValidation(window: Self.validationWindow, now: services.clock.now()) {
            host.contextOrigin = "snapshot on disk, validated \(LocalTime.duration(services.clock.now().timeIntervalSince(at))) ago (not repeated)"
            return SessionValidation()
        }
        let snapshot = services.storage.appStore.isDeviceSnapshot
        if snapshot, !io.options.revalidate, let kept = host.keptSnapshotValidation(token: services.contexts.session.token),
           try features.bootstrapper.reuse(kept) {
            host.contextOrigin = host.snapshotOrigin
            roleDerivedNote(kept.report)
            return SessionValidation()
        }
        switch await features.bootstrapper.validate() {
        case .loggedOut where snapshot:
            // The rejection reset the copy with the session: this command, as every later one, reads
            // the import's account again.
            try host.returnToImportedSnapshot()
            return SessionValidation(expired: "the server rejects this device snapshot's token (session expired): the snapshot stays as imported; this process goes on logged out")
        case .loggedOut(let notice): return SessionValidation(expired: notice)
        case .offline(let failure):
            diagnostics.warning("the session could not be validated, working from the snapshot (offline): \(failure)")
            return SessionValidation(unvalidated: failure)
        case .loggedIn(let report):
            host.contextOrigin = "snapshot on disk, validated by userinfo + role-permission"
            if snapshot {
                try host.keepSnapshotValidation(report)
                host.contextOrigin = host.snapshotOrigin
            }
            roleDerivedNote(report)
        case .loggedInUnsaved(let report, let reason):
            host.contextOrigin = "snapshot on disk, validated by userinfo + role-permission (not saved)"
            diagnostics.warning("session validated but not saved: \(reason)")
            roleDerivedNote(report)
        case .notLoggedIn: break
        case .cancelled: throw CancellationError()
        }
        return SessionValidation()
    }

    /// A role the validation's permission load chose (none was stored) is said, not acted on silently.
    private func roleDerivedNote(_ report: AccountLoadReport) {
        let derivation = report.derivation
        guard derivation.matched != nil, !derivation.exactMatch, let reason = derivation.reason else { return }
        diagnostics.note("\(reason) (as the app's permission load takes it)")
    }

    // MARK: Shell switches

    func toggle(_ command: ParsedCommand, name: String, set: (Bool) -> Void, current: () -> Bool) -> CommandOutput {
        // Asked, the state is what the command prints (stdout); set, the line confirms it (stderr).
        guard let value = command.positionals.first else {
            var output = CommandOutput(data: [name: .bool(current())])
            output.line("\(name) \(current() ? "on" : "off")")
            return output
        }
        set(value == "on")
        var output = CommandOutput()
        output.notes = ["\(name) \(current() ? "on" : "off")"]
        return output
    }

    // MARK: API calls outside a facade

    /// A response's `data` member (for `--json`, `$_`) and its body as received (for `--raw`).
    func dataOutput(_ responses: APIResponse...) -> CommandOutput {
        var output = CommandOutput(data: responses.first?.data)
        output.raw = responses.map(\.bodyText)
        return output
    }
}
