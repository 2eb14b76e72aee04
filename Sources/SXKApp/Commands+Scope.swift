import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `role`, `scenic`, `store`, `permissions`: list the choices or switch scope on the fly.
extension AppCommands {
    func role(_ command: ParsedCommand) async throws -> Int32 {
        let scope = try host.features().scope
        if let code = command.positionals.first {
            return printChange(try await scope.selectRole(code), command)
        }
        let rows = try await scope.roles()
        if emit(.array(rows.map {
                ["roleCode": .string($0.code), "roleName": .string($0.name), "scenicCount": .int($0.scenicCount),
                 "permissionCount": .int($0.permissionCount), "current": .bool($0.isCurrent)]
            }), command) {
            return ExitStatus.ok
        }
        io.stdout.write(io.table([.init(""), .init("ROLE"), .init("NAME"), .init("SCENICS", alignment: .right), .init("PERMISSIONS", alignment: .right)])
            .render(rows.map { [$0.isCurrent ? "*" : "", $0.code, $0.name, String($0.scenicCount), String($0.permissionCount)] }))
        return ExitStatus.ok
    }

    func scenic(_ command: ParsedCommand) async throws -> Int32 {
        let scope = try host.features().scope
        if let query = command.positionals.first {
            return printChange(try await scope.selectScenic(query), command)
        }
        let rows = try scope.scenics()
        if emit(.array(rows.map { ["scenicId": .int($0.scenic.scenicId), "scenicName": .string($0.scenic.scenicName), "current": .bool($0.isCurrent)] }), command) {
            return ExitStatus.ok
        }
        if rows.isEmpty { io.stdout.line("(no scenic areas for this role)"); return ExitStatus.ok }
        io.stdout.write(io.table([.init(""), .init("ID", alignment: .right), .init("SCENIC")])
            .render(rows.map { [$0.isCurrent ? "*" : "", String($0.scenic.scenicId), $0.scenic.scenicName] }))
        return ExitStatus.ok
    }

    func store(_ command: ParsedCommand) async throws -> Int32 {
        let scope = try host.features().scope
        if let query = command.positionals.first {
            return printChange(try await scope.selectStore(query), command)
        }
        let rows = try await scope.stores(refresh: true)
        if emit(.array(rows.map { row in
                var o: JSONObject = ["storeId": .int(row.store.storeId), "storeName": .string(row.store.storeName)]
                if let scenicId = row.store.scenicId { o["scenicId"] = .int(scenicId) }
                if let address = row.store.address { o["address"] = .string(address) }
                o["current"] = .bool(row.isCurrent)
                return .object(o)
            }), command) {
            return ExitStatus.ok
        }
        if rows.isEmpty { io.stdout.line("(no stores in the current scenic)"); return ExitStatus.ok }
        io.stdout.write(io.table([.init(""), .init("ID", alignment: .right), .init("STORE"), .init("ADDRESS")])
            .render(rows.map { [$0.isCurrent ? "*" : "", String($0.store.storeId), $0.store.storeName, $0.store.address ?? ""] }))
        return ExitStatus.ok
    }

    private func printChange(_ change: ScopeChange, _ command: ParsedCommand) -> Int32 {
        do {
            var o = JSONObject()
            o["roleCode"] = change.roleCode.map { .string($0) } ?? .null
            o["roleName"] = change.roleName.map { .string($0) } ?? .null
            o["scenic"] = change.scenic?.json ?? .null
            o["storeId"] = change.storeId.map { .int($0) } ?? .null
            o["notes"] = .array(change.notes.map { .string($0) })
            if emit(.object(o), command) { return ExitStatus.ok }
        }
        var parts: [String] = []
        if let role = change.roleCode { parts.append("role \(role)" + (change.roleName.map { " (\($0))" } ?? "")) }
        parts.append(change.scenic.map { "scenic \($0.scenicId) \($0.scenicName)" } ?? "no scenic")
        parts.append(change.storeId.map { "store \($0)" } ?? "no store")
        io.stdout.line("now " + parts.joined(separator: " · "))
        for note in change.notes { io.stdout.line("  " + note) }
        return ExitStatus.ok
    }

    func permissions(_ command: ParsedCommand) throws -> Int32 {
        let permission = services.contexts.permission.current
        guard services.contexts.session.token != nil || !permission.roles.isEmpty else { throw FeatureError.notLoggedIn }
        if command.has("all") {
            if emit(.array(permission.roles.map(\.json)), command) { return ExitStatus.ok }
            var rows: [[String]] = []
            for role in permission.roles {
                for item in role.permissions {
                    rows.append([role.roleCode == permission.roleCode ? "*" : "", role.roleCode, item.uri, item.name, item.group ?? ""])
                }
            }
            io.stdout.write(io.table([.init(""), .init("ROLE"), .init("URI"), .init("NAME"), .init("GROUP")]).render(rows))
            return ExitStatus.ok
        }
        if emit(.array(permission.permissions.map(\.json)), command) { return ExitStatus.ok }
        if permission.permissions.isEmpty { io.stdout.line("(no permissions for role \(permission.roleCode ?? "–"))"); return ExitStatus.ok }
        io.stdout.write(io.table([.init("URI"), .init("NAME"), .init("GROUP")])
            .render(permission.permissions.map { [$0.uri, $0.name, $0.group ?? ""] }))
        return ExitStatus.ok
    }
}
