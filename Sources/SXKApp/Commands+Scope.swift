import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `role`, `scenic`, `store`, `permissions`: list the choices or switch scope on the fly; `-` goes
/// back to the one before the last switch (kept per profile by `ScopeFeature`).
extension AppCommands {
    func role(_ command: ParsedCommand) async throws -> CommandOutput {
        let scope = try host.features().scope
        if var code = command.positionals.first {
            if code == "-" { code = try scope.previous(.role) }
            return change(try await scope.selectRole(code))
        }
        let rows: [JSONValue] = try await scope.roles().map {
            ["roleCode": .string($0.code), "roleName": .string($0.name), "scenicCount": .int($0.scenicCount),
             "permissionCount": .int($0.permissionCount), "current": .bool($0.isCurrent)]
        }
        var output = CommandOutput(data: .array(rows))
        output.table([Self.currentColumn, OutputColumn("roleCode", "ROLE", priority: 90, cuttable: false), OutputColumn("roleName", "NAME", priority: 70),
                      OutputColumn("scenicCount", "SCENICS", alignment: .right, priority: 40, cuttable: false),
                      OutputColumn("permissionCount", "PERMISSIONS", alignment: .right, priority: 30, cuttable: false)], rows)
        return output
    }

    static let currentColumn = OutputColumn("current", "", priority: 95, cuttable: false) { $0.objectValue?["current"] == .bool(true) ? "*" : "" }

    func scenic(_ command: ParsedCommand) async throws -> CommandOutput {
        let scope = try host.features().scope
        if var query = command.positionals.first {
            if query == "-" { query = try scope.previous(.scenic) }
            return change(try await scope.selectScenic(query))
        }
        let rows: [JSONValue] = try scope.scenics().map {
            ["scenicId": .int($0.scenic.scenicId), "scenicName": .string($0.scenic.scenicName), "current": .bool($0.isCurrent)]
        }
        var output = CommandOutput(data: .array(rows))
        if rows.isEmpty { output.notes.append("(no scenic areas for this role)"); return output }
        output.table([Self.currentColumn, OutputColumn("scenicId", "ID", alignment: .right, priority: 90, cuttable: false),
                      OutputColumn("scenicName", "SCENIC", priority: 80)], rows)
        return output
    }

    func store(_ command: ParsedCommand) async throws -> CommandOutput {
        let scope = try host.features().scope
        // The list is fetched afresh each time, a switch too: a store renamed on the server shows
        // its new name in the confirmation and the prompt, not the one a list fetched earlier had.
        let rows: [StoreRow]
        let hadList = !services.contexts.account.current.stores.isEmpty
        var fresh: [StoreRow]?
        var failure: FeatureError?
        do { fresh = try await scope.stores(refresh: true) } catch { failure = error }
        if let fresh {
            rows = fresh
            StoreListCache.remember(services.contexts.account.current.stores, in: services.storage)
        } else {
            // Unreachable: the list this shell fetched last still serves, said once.
            guard let failure, failure.apiError?.kind == .network, hadList else { throw failure ?? FeatureError.notLoggedIn }
            io.warning("store list not refreshed (\(failure)); using the one fetched earlier in this shell")
            rows = try await scope.stores(refresh: false)
        }
        let own = ownStoreId()
        if var query = command.positionals.first {
            if query == "-" { query = try scope.previous(.store) }
            var output = change(try await scope.selectStore(query))
            // Taken (the app's store picker would offer it), but said at once: the server answers
            // this account's requests for any other store with 无权限访问该门店.
            if let own, let chosen = services.contexts.account.current.storeId, chosen != own {
                let name = rows.first { $0.store.storeId == own }.map { " " + TerminalText.sanitize($0.store.storeName) } ?? ""
                output.warnings.append("store \(chosen) is not this account's own store (\(own)\(name)): the server will refuse its orders and statistics — `store -` goes back")
            }
            return output
        }
        let records: [JSONValue] = rows.map { row in
            var o: JSONObject = ["storeId": .int(row.store.storeId), "storeName": .string(row.store.storeName)]
            if let scenicId = row.store.scenicId { o["scenicId"] = .int(scenicId) }
            if let address = row.store.address { o["address"] = .string(address) }
            o["current"] = .bool(row.isCurrent)
            if let own { o["own"] = .bool(row.store.storeId == own) }
            return .object(o)
        }
        var output = CommandOutput(data: .array(records))
        if records.isEmpty { output.notes.append("(no stores in the current scenic)"); return output }
        var columns = [Self.currentColumn, OutputColumn("storeId", "ID", alignment: .right, priority: 90, cuttable: false),
                       OutputColumn("storeName", "STORE", priority: 80)]
        if own != nil {
            columns.append(OutputColumn("own", "OWN", priority: 85, cuttable: false) { $0.objectValue?["own"] == .bool(true) ? "yes" : "" })
        }
        output.table(columns + [OutputColumn("address", priority: 30)], records)
        return output
    }

    /// The store a store account stands for (its `storeId` in this login's account list): the one
    /// store the server lets it use. nil for a scenic account, or when no account list is kept.
    private func ownStoreId() -> Int? {
        guard let auth = try? host.features().auth else { return nil }
        let current = services.contexts.account.current
        guard current.accountType == "store" else { return nil }
        return auth.knownAccounts().first { $0.userId == current.userId && $0.accountType == current.accountType }?.storeId
    }

    private func change(_ change: ScopeChange) -> CommandOutput {
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

    func permissions(_ command: ParsedCommand) throws -> CommandOutput {
        let permission = services.contexts.permission.current
        guard services.contexts.session.token != nil || !permission.roles.isEmpty else { throw FeatureError.notLoggedIn }
        let uri = OutputColumn("uri", priority: 90), name = OutputColumn("name", priority: 70), group = OutputColumn("group", priority: 30)
        if command.has("all") {
            var output = CommandOutput(data: .array(permission.roles.map(\.json)))
            var rows: [JSONValue] = []
            for role in permission.roles {
                for item in role.permissions {
                    rows.append(["current": .bool(role.roleCode == permission.roleCode), "role": .string(role.roleCode),
                                 "uri": .string(item.uri), "name": .string(item.name), "group": .string(item.group ?? "")])
                }
            }
            output.table([Self.currentColumn, OutputColumn("role", priority: 80, cuttable: false), uri, name, group], rows)
            return output
        }
        var output = CommandOutput(data: .array(permission.permissions.map(\.json)))
        if permission.permissions.isEmpty { output.notes.append("(no permissions for role \(permission.roleCode ?? "–"))"); return output }
        output.table([uri, name, group], permission.permissions.map {
            ["uri": .string($0.uri), "name": .string($0.name), "group": .string($0.group ?? "")]
        })
        return output
    }
}
