import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

extension Commands {
    /// `location`: the home screen's location state.
    enum Location: AppCommand {
        static let spec = CommandSpec(
            "location", summary: "location state and the 2-hour report timer",
            flags: [json],
            subcommands: [
                CommandSpec("detail", summary: "GET photog/loacation/detail for this account", flags: dataOutput),
                CommandSpec("online", summary: "go online (starts the 2-hour timer)"),
                CommandSpec("offline", summary: "go offline"),
                CommandSpec("report", summary: "record a location report now"),
                CommandSpec("remind", summary: "set the reminder minutes",
                            arguments: [ArgumentSpec("MINUTES", kind: .int, summary: "minutes, 0 turns it off")]),
            ]
        )
        // Only the detail calls; the rest is the state the app keeps on the device (seed 000 §6.3).
        static func needsServer(_ command: ParsedCommand) -> Bool { command.subcommand == "detail" }
        static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool { words.first == "detail" }

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { ["online", "offline", "report", "remind"].contains(command.subcommand ?? "") }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.location(command)
        }
    }
}

extension AppCommands {
    /// `location [detail|online|offline|report|remind MINUTES]`: the stored location state and its
    /// 2-hour timer, or the server's detail (times by the README "Times" rule).
    fileprivate func location(_ command: ParsedCommand) async throws -> CommandOutput {
        let home = try host.features().home
        let state: LocationStateStore.State
        switch command.subcommand {
        case "detail":
            let result = try await home.locationDetail()
            var output = dataOutput(result.response)
            let d = result.value
            let rows: [(String, String)] = [
                ("staffId", d.staffId.map(String.init) ?? "–"), ("online", d.online.map { $0 ? "yes" : "no" } ?? "unknown (no readable online in the answer)"),
                ("lastReportTime", d.lastReportTime.map { LocalTime.human(wire: $0) } ?? "–"),
                ("position", d.latitude.flatMap { lat in d.longitude.map { "\(lat), \($0)" } } ?? "–"),
            ]
            output.table(Self.fieldColumns(), rows.map { ["field": .string($0.0), "value": .string($0.1)] })
            return output
        case "online": state = try home.goOnline()
        case "offline": state = try home.goOffline()
        case "report": state = try home.report()
        case "remind":
            guard let minutes = command.positionals.first.flatMap(Int.init) else { throw AppError.usage("remind needs MINUTES") }
            state = try home.remind(minutes: minutes)
        default: state = home.locationState()
        }
        // The engine's restore decides what the app shows; when it drops stored values, say which and why.
        let change = home.locationRestoreChange(state)
        let storedReport = change == nil ? nil : state.storedLastReportTime.map { "– (stored \(LocalTime.human($0)), removed with the status)" }
        let rows: [(String, String)] = [
            ("online", state.isOnline ? "yes" : change.map { "no — \($0.note) (stored: yes)" } ?? "no"),
            ("last report", state.lastReportTime.map { LocalTime.human($0) } ?? storedReport ?? "–"),
            // A report ahead of this clock (a device clock set forward, another zone): said as such, not as a negative span.
            ("since report", state.elapsedSeconds.map { $0 < 0 ? "– (the report is \(LocalTime.duration(-$0)) ahead of this clock)" : LocalTime.duration($0) } ?? "–"),
            ("2-hour limit in", state.countdownSeconds.map { LocalTime.duration($0) } ?? "–"),
            // A stored 0 is no reminder, as the home's location check reads it (`Rules.reminderUnset`).
            ("reminder", state.reminderMinutes.map { AppModel.reminderSet($0).map { "\($0) min" } ?? "off (stored \($0))" } ?? "off"),
        ]
        var output = CommandOutput(data: state.json)
        // The app keeps these on the device (the 2-hour timer); no endpoint takes them, so say so
        // rather than let a changed table read as a report the server received.
        if let change = command.subcommand, ["online", "offline", "report", "remind"].contains(change) {
            output.notes.append("\(change): stored locally only (as the app keeps it on the device); nothing was sent to the server")
        }
        if let change { output.notes.append("\(change.line); shown here as that restore leaves them, nothing written") }
        if state.isOnline, let ahead = state.elapsedSeconds, ahead < 0 {
            output.notes.append("the last report time is in the future (\(LocalTime.duration(-ahead)) ahead of this clock): the 2-hour countdown counts from now, not past 2 hours \(Rules.futureReport.marker)")
        }
        output.table(Self.fieldColumns("LOCATION"), rows.map { ["field": .string($0.0), "value": .string($0.1)] })
        return output
    }
}
