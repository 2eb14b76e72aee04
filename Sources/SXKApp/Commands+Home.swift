import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `menus`, `location`: the home screen (`home` is in Commands+Replay.swift) as the app would build it for this account.
extension AppCommands {
    func menus(_ command: ParsedCommand) throws -> Int32 {
        let home = try host.features().home
        guard command.subcommand == "common" else {
            let menus = home.visibleMenus()
            if emit(.array(menus.map(\.json)), command) { return ExitStatus.ok }
            if menus.isEmpty { io.stdout.line("(no visible menus: no permissions for the current role)"); return ExitStatus.ok }
            io.stdout.write(io.table([.init("URI"), .init("TITLE"), .init("GROUP")]).render(menus.map { [$0.uri, $0.title, $0.group] }))
            return ExitStatus.ok
        }
        let common: CommonMenus
        switch command.path.count > 2 ? command.path[2] : nil {
        case "add": common = try home.addCommonMenu(try uriArgument(command))
        case "remove": common = try home.removeCommonMenu(try uriArgument(command))
        default: common = try home.commonMenus()
        }
        if emit(["key": .string(common.key), "uris": .array(common.uris.map { .string($0) }), "defaulted": .bool(common.defaulted)], command) {
            return ExitStatus.ok
        }
        io.stdout.line("\(common.key)\(common.defaulted ? "  (default: first \(CommonMenuStore.defaultCount) visible menus, now stored)" : "")")
        io.stdout.write(io.table([.init("URI"), .init("TITLE"), .init("GROUP")]).render(common.menus.map { [$0.uri, $0.title, $0.group] }))
        return ExitStatus.ok
    }

    private func uriArgument(_ command: ParsedCommand) throws -> String {
        guard let uri = command.positionals.first else { throw AppError.usage("needs a menu URI") }
        return uri
    }

    func location(_ command: ParsedCommand) async throws -> Int32 {
        let home = try host.features().home
        let state: LocationStateStore.State
        switch command.subcommand {
        case "detail":
            let result = try await home.locationDetail()
            if try printData(result.response, command) { return ExitStatus.ok }
            let d = result.value
            let rows: [[String]] = [
                ["staffId", d.staffId.map(String.init) ?? "–"], ["online", d.online ? "yes" : "no"],
                ["lastReportTime", d.lastReportTime ?? "–"],
                ["position", d.latitude.flatMap { lat in d.longitude.map { "\(lat), \($0)" } } ?? "–"],
            ]
            io.stdout.write(io.table([.init("FIELD"), .init("VALUE")]).render(rows))
            return ExitStatus.ok
        case "online": state = try home.goOnline()
        case "offline": state = try home.goOffline()
        case "report": state = try home.report()
        case "remind":
            guard let minutes = command.positionals.first.flatMap(Int.init) else { throw AppError.usage("remind needs MINUTES") }
            state = try home.remind(minutes: minutes)
        default: state = home.locationState()
        }
        if emit(state.json, command) { return ExitStatus.ok }
        let rows: [[String]] = [
            ["online", state.isOnline ? "yes" : "no"],
            ["last report", state.lastReportTime.map { WireDate.timestamp($0) } ?? "–"],
            ["since report", state.elapsedSeconds.map { Formatting.duration($0) } ?? "–"],
            ["2-hour limit in", state.countdownSeconds.map { Formatting.duration($0) } ?? "–"],
            ["reminder", state.reminderMinutes.map { "\($0) min" } ?? "off"],
        ]
        io.stdout.write(io.table([.init("LOCATION"), .init("VALUE")]).render(rows))
        return ExitStatus.ok
    }
}
