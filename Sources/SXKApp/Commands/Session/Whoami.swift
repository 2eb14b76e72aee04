import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    /// `whoami`: the local account context, read without the network.
    enum Whoami: AppCommand {
        static let spec = CommandSpec(
            "whoami", summary: "the session: phase, env, account, role, scopes, token (masked)",
            flags: tableOutput
        )

        static func showsSession(_ command: ParsedCommand) -> Bool { true }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.whoami(command)
        }
    }
}

extension AppCommands {
    func whoami(_ command: ParsedCommand) throws -> CommandOutput {
        let s = services
        let session = s.contexts.session.current
        let phase = host.shownPhase
        let account = s.contexts.account.current
        let permission = s.contexts.permission.current
        let store = s.storage.appStore
        // A device snapshot is inspected on a copy: nothing a command validates is saved, so the copy's
        // stamps are not shown as saves; its validation is this process's, kept in memory.
        let snapshot = store.isDeviceSnapshot
        let age = snapshot ? nil : store.snapshotSavedAt.map { s.clock.now().timeIntervalSince($0) }
        let validatedAt = snapshot ? host.snapshotValidatedAt(token: session.token) : store.sessionValidatedAt
        let validatedAge = validatedAt.map { s.clock.now().timeIntervalSince($0) }
        // A stored token this process saw rejected: logged out here, said as such (the prompt says it too).
        let kept = session.phase == .loggedOut && s.sessionGuard.rejectedToken != nil
        // Or a session the server ended in this process, its token cleared as the app clears it.
        let cleared = session.phase == .loggedOut && !kept && s.sessionGuard.endedByRejection
        let rejected = kept || cleared
        // A stored token of another backend than this process's: kept, not sent (the prompt says it too).
        let withheld = session.phase == .loggedOut ? s.sessionGuard.withheldStoredToken : nil
        let origin: String
        switch phase {
        case .loggedOut where kept: origin = "none: the server rejected the stored token earlier in this process (kept, not sent again)"
        case .loggedOut where cleared: origin = "none: the server rejected the token in this process, and the session was cleared as the app clears it"
        case .loggedOut where withheld != nil: origin = "none: the stored token is kept, not sent here (its session's backend: \(withheld?.owner ?? "another"))"
        case .loggedOut: origin = "none"
        // The stored validation time may be another process's: this one has not asked the server yet.
        case .restoring: origin = "snapshot on disk (not yet validated by this process)"
        case .loggedIn: origin = session.offline ? "snapshot on disk (offline: not validated)" : host.contextOrigin
        }
        let snapshotOrigin = store.isDeviceSnapshot ? host.contextOrigin : nil
        var rows: [(String, JSONValue)] = [
            ("phase", .string(phase.rawValue)),
            ("offline", .bool(session.offline)),
            ("environment", .string(s.environment.name)),
            ("baseURL", .string(s.environment.baseURL.absoluteString)),
            ("profile", .string(s.paths.profile)),
        ]
        func add(_ key: String, _ value: JSONValue?) { rows.append((key, value ?? .null)) }
        add("userId", account.userId.map { .int($0) })
        add("accountType", account.accountType.map { .string($0) })
        add("accountDisplayName", account.displayName.map { .string($0) })
        add("userName", account.userName.map { .string($0) })
        add("realName", account.realName.map { .string($0) })
        add("phone", account.phone.map { .string(Redaction.maskPhone($0)) })
        add("roleCode", permission.roleCode.map { .string($0) })
        add("roleName", permission.roleName.map { .string($0) })
        add("scenicId", account.scenicId.map { .int($0) })
        add("scenicName", account.scenicName.map { .string($0) })
        add("storeId", account.storeId.map { .int($0) })
        add("permissionCount", .int(permission.permissions.count))
        add("roleCount", .int(permission.roles.count))
        add("token", session.token.map { .string(Redaction.maskToken($0)) })
        add("tokenRejected", .bool(rejected))
        add("tokenOfBackend", withheld.map { .string($0.owner) })
        // Any finite stored time is read (a hand-edited 1e300 too): the age is capped, never trapped on.
        add("snapshotAgeSeconds", age.flatMap(LocalTime.wholeSeconds).map { .int($0) })
        add("validatedAgeSeconds", session.token == nil ? nil : validatedAge.flatMap(LocalTime.wholeSeconds).map { .int($0) })
        add("source", .string(snapshotOrigin ?? origin))
        add("deviceSnapshot", store.isDeviceSnapshot ? .string("imported from \(store.importedFrom ?? "?")"
            + (store.importedAt.map { ", \(LocalTime.duration(s.clock.now().timeIntervalSince($0))) ago" } ?? "")
            + "; inspected on a copy") : nil)
        add("sessionResets", .int(s.sessionGuard.resetCount))
        add("stateDir", .string(s.paths.profileDir))
        let table = rows.map { row -> JSONValue in
            let value: String
            switch (row.0, row.1) {
            case (_, .null): value = "–"
            case ("snapshotAgeSeconds", let v), ("validatedAgeSeconds", let v): value = v.doubleValue.map { LocalTime.duration($0) + " ago" } ?? "–"
            // The stored 0 is the app's "no store" (`AppModel.currentStore`); `--json` keeps the stored value.
            case ("storeId", let v) where v.intValue.map({ AppModel.currentStore($0) == nil }) == true: value = "none (stored \(v.intValue ?? 0))"
            case (_, let v): value = v.stringValue ?? JSONWriter.string(v)
            }
            return ["field": .string(Self.whoamiLabels[row.0] ?? row.0), "value": .string(value)]
        }
        var output = CommandOutput(data: .object(JSONObject(rows.map { (key: $0.0, value: $0.1) })))
        output.record(Self.fieldColumns(), table)
        output.notes += AppModel.changesAtNextHome(account: account, permission: permission)
        // The stored online status is not the account's status once the 2-hour rule drops it.
        if let location = AppModel.locationRestoreChange(store: store, clock: s.clock, rejectedToken: s.sessionGuard.rejectedToken) {
            output.notes.append(location.line)
        }
        return output
    }

    /// What the table view calls each `whoami` member (`--json` keeps the data keys).
    static let whoamiLabels: [String: String] = [
        "baseURL": "base URL", "userId": "user id", "accountType": "account type", "accountDisplayName": "account",
        "userName": "user name", "realName": "real name", "roleCode": "role", "roleName": "role name",
        "scenicId": "scenic id", "scenicName": "scenic", "storeId": "store id", "permissionCount": "permissions",
        "roleCount": "roles", "snapshotAgeSeconds": "snapshot saved", "validatedAgeSeconds": "validated",
        "sessionResets": "session resets (this process)", "tokenRejected": "token rejected (this process)", "tokenOfBackend": "token of backend (not sent)", "stateDir": "state folder", "deviceSnapshot": "device snapshot",
    ]
}
