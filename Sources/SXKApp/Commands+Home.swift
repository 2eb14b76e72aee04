import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `location`: the home screen's location state (`home` is in Commands+Replay.swift, `menus` in Commands+Menus.swift).
extension AppCommands {
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
