import SXKCore
import SXKFeatures
import SXKModels
import SXKShell

extension Commands {
    /// `stats`: the data tab's summary and daily rows.
    enum Stats: AppCommand {
        /// The app's first screen reads the first daily page; `--all` every page.
        static let statsAll = FlagSpec("all", summary: "read every daily page (default: the first, as the app's first screen does)")
        static let chart = FlagSpec("chart", summary: "draw daily orders and amounts as bars")
        static let statsFlags: [FlagSpec] = [
            FlagSpec("role", value: roles, valueName: "ROLE", summary: "role whose endpoints to use (default: current)"),
            FlagSpec("from", value: .date, valueName: "DATE", summary: "first day, yyyy-MM-dd"),
            FlagSpec("to", value: .date, valueName: "DATE", summary: "last day, yyyy-MM-dd"),
            FlagSpec("period", value: .choice(["today", "week", "month"]), valueName: "P", summary: "today, week (7 days) or month (30 days)"),
        ]
        static let spec = CommandSpec(
            "stats", summary: "statistics summary and daily rows of the current role",
            flags: statsFlags + [chart, statsAll] + dataOutput + [wide],
            subcommands: [
                CommandSpec("summary", summary: "the summary only", flags: statsFlags + dataOutput),
                CommandSpec("daily", summary: "the daily rows only", flags: statsFlags + [chart, limit, statsAll] + listOutput),
            ],
            examples: ["stats", "stats --period week --chart", "stats daily --from 2026-11-01 --to 2026-11-28 --json"]
        )
        static let needsServer = true

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.stats(command)
        }
    }
}

extension AppCommands {
    fileprivate func stats(_ command: ParsedCommand) async throws -> CommandOutput {
        let feature = try host.features().statistics
        let range = try feature.range(
            from: command.option("from"), to: command.option("to"), period: command.option("period").flatMap(StatsPeriod.init(rawValue:)))
        let role = command.option("role")
        let chart = try format(command).chart
        switch command.subcommand {
        case "summary":
            // The summary has no daily rows to draw: --chart asked for something this view cannot show.
            if chart { throw AppError.usage("--chart draws the daily rows: use it with `stats` or `stats daily`, not `stats summary`") }
            let summary = try await feature.summary(role: role, range: range)
            var output = dataOutput(summary.response)
            // Which days the numbers cover, as `stats` says it (a period is resolved to dates here).
            output.line("\(try feature.endpoint(role: role).role) · \(range.from) → \(range.to)")
            output.table(Self.summaryColumns, summaryRows(summary.value))
            return output
        case "daily":
            // Before the rows: a page that failed on a rejected token has ended the session by then.
            let scope = roleScope(try feature.endpoint(role: role).endpoint)
            // No page past the one holding the rows --limit shows.
            let daily = try await feature.daily(role: role, range: range, allPages: command.has("all"), limit: command.option("limit").flatMap { Int($0) })
            var output = CommandOutput(data: .array(daily.rows.map(\.raw)))
            output.raw = daily.responses.map(\.bodyText)
            addDaily(daily.rows, chart: chart, to: &output)
            Self.notePages(daily, to: &output)
            if let line = scope?.warning(outside: scope?.countOutside(daily.rows.map(\.raw)) ?? 0) { output.warnings.append(line) }
            return output
        default:
            // Before the rows, as for `stats daily`: a rejected token on a later page ends the session.
            let scope = roleScope(try feature.endpoint(role: role).endpoint)
            let report = try await feature.load(role: role, range: range, allPages: command.has("all"))
            var output = CommandOutput(data: [
                "role": .string(report.role), "range": report.range.json,
                "summary": report.summary.response.data, "daily": .array(report.daily.rows.map(\.raw)),
            ])
            output.raw = [report.summary.response.bodyText] + report.daily.responses.map(\.bodyText)
            output.line("\(report.role) · \(range.from) → \(range.to)")
            output.table(Self.summaryColumns, summaryRows(report.summary.value))
            output.line("")
            addDaily(report.daily.rows, chart: chart, to: &output)
            Self.notePages(report.daily, to: &output)
            if let line = scope?.warning(outside: scope?.countOutside(report.daily.rows.map(\.raw)) ?? 0) { output.warnings.append(line) }
            return output
        }
    }

    /// The app's first screen reads the first daily page; a note says when there are more.
    static func notePages(_ daily: DailyRows, to output: inout CommandOutput) {
        // A later page failed: the rows before it are shown, then its error, with its exit status.
        if let failure = daily.failure {
            output.warnings.append("--all stopped at daily page \(daily.pages + 1), which failed (below): the rows of \(daily.pages == 1 ? "the page" : "the \(daily.pages) pages") before it were read; the range's rows are partial")
            output.failure = failure
            return
        }
        // Rows left out are a failure a script must see.
        if let cut = daily.cut {
            output.warnings.append(cut)
            output.status = ExitStatus.failure
            return
        }
        guard !daily.lastPage, !daily.limited else { return }
        output.notes.append("daily rows: \(daily.pages == 1 ? "the first page" : "\(daily.pages) pages") \(daily.total.map { "of \(Formatting.count($0, "row"))" } ?? "(no total in the answer)"), as the app's first screen loads them; --all reads every page")
    }

    static let summaryColumns = [OutputColumn("summary", priority: 90, cuttable: false), OutputColumn("value", alignment: .right, priority: 80, cuttable: false)]

    /// The summary's four numbers as received: one without a readable number is its text as the
    /// server sent it, or `–` when the answer has none (never a 0 it did not send).
    private func summaryRows(_ s: Summary) -> [JSONValue] {
        let o = s.raw.objectValue
        return [("orders", Formatting.statsCell(o?.field("orderCount"), amount: false)), ("amount", Formatting.statsCell(o?.field("orderAmount"), amount: true)),
                ("refunds", Formatting.statsCell(o?.field("refundCount"), amount: false)), ("refunded", Formatting.statsCell(o?.field("refundAmount"), amount: true))]
            .map { ["summary": .string($0.0), "value": .string($0.1)] }
    }

    static let dailyColumns = [
        OutputColumn("date", priority: 100, cuttable: false),
        OutputColumn("orderCount", "ORDERS", alignment: .right, priority: 90, cuttable: false, received: true) { Formatting.statsCell($0.objectValue?.field("orderCount"), amount: false) },
        OutputColumn("orderAmount", "AMOUNT", alignment: .right, priority: 80, cuttable: false, received: true) { Formatting.statsCell($0.objectValue?.field("orderAmount"), amount: true) },
        OutputColumn("refundAmount", "REFUNDED", alignment: .right, priority: 70, cuttable: false, received: true) { Formatting.statsCell($0.objectValue?.field("refundAmount"), amount: true) },
    ]

    /// The daily rows as a table (which `--columns`, `--csv`… work on) or, with `--chart`, as bars.
    private func addDaily(_ rows: [Daily], chart: Bool, to output: inout CommandOutput) {
        if chart {
            let text = BarChart(width: io.terminal.width, unicode: io.terminal.utf8).render(rows)
            output.blocks.append(.lines(text.split(separator: "\n").map(String.init)))
        } else {
            output.table(Self.dailyColumns, rows.map(\.raw))
        }
    }
}
