import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `stats` and `profile`: the data and "mine" tabs (seed 000 §5.2, §5.3).
extension AppCommands {
    func stats(_ command: ParsedCommand) async throws -> CommandOutput {
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
            let daily = try await feature.daily(role: role, range: range, allPages: command.has("all"))
            let scope = roleScope(try feature.endpoint(role: role).endpoint)
            var output = CommandOutput(data: .array(daily.rows.map(\.raw)))
            output.raw = daily.responses.map(\.bodyText)
            addDaily(daily.rows, chart: chart, to: &output)
            Self.notePages(daily, to: &output)
            if let line = scope?.warning(outside: scope?.countOutside(daily.rows.map(\.raw)) ?? 0) { output.warnings.append(line) }
            return output
        default:
            let report = try await feature.load(role: role, range: range, allPages: command.has("all"))
            let scope = roleScope(report.endpoint)
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
        guard !daily.lastPage else { return }
        output.notes.append("daily rows: \(daily.pages == 1 ? "the first page" : "\(daily.pages) pages") of \(daily.total) rows, as the app's first screen loads them; --all reads every page")
    }

    static let summaryColumns = [OutputColumn("summary", priority: 90, cuttable: false), OutputColumn("value", alignment: .right, priority: 80, cuttable: false)]

    private func summaryRows(_ s: Summary) -> [JSONValue] {
        [("orders", Formatting.count(s.orderCount)), ("amount", Formatting.yuan(s.orderAmount)),
         ("refunds", Formatting.count(s.refundCount)), ("refunded", Formatting.yuan(s.refundAmount))]
            .map { ["summary": .string($0.0), "value": .string($0.1)] }
    }

    static let dailyColumns = [
        OutputColumn("date", priority: 100, cuttable: false),
        OutputColumn("orderCount", "ORDERS", alignment: .right, priority: 90, cuttable: false) { Formatting.count($0.objectValue?.int("orderCount") ?? 0) },
        OutputColumn("orderAmount", "AMOUNT", alignment: .right, priority: 80, cuttable: false) { Formatting.yuan($0.objectValue?.double("orderAmount")) },
        OutputColumn("refundAmount", "REFUNDED", alignment: .right, priority: 70, cuttable: false) { Formatting.yuan($0.objectValue?.double("refundAmount")) },
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

    func profile(_ command: ParsedCommand) async throws -> CommandOutput {
        let report = try await host.features().profile.reload()
        var o: JSONObject = ["userInfo": report.userInfo.response.data, "writtenBack": .array(report.writtenBack.map { .string($0) })]
        if let r = report.realName { o["realName"] = (try? r.get().response.data) ?? .null }
        if let b = report.bankCard { o["bankCard"] = (try? b.get().response.data) ?? .null }
        o["calls"] = .array(report.calls.map(\.json))
        var output = CommandOutput(data: .object(o))
        output.raw = [report.userInfo.response.bodyText]
        if case .success(let r)? = report.realName { output.raw?.append(r.response.bodyText) }
        if case .success(let r)? = report.bankCard { output.raw?.append(r.response.bodyText) }
        let u = report.userInfo.value
        var rows: [[String]] = [
            ["userName", u.userName ?? "–"], ["realName", u.realName ?? "–"],
            ["phone", u.phone.map(Redaction.maskPhone) ?? "–"], ["roleName", u.roleName ?? "–"], ["avatar", u.avatar ?? "–"],
        ]
        switch report.realName {
        case .success(let r)?: rows.append(["real-name", "\(r.value.statusText)\(r.value.idCardNo.map { " · \($0)" } ?? "")"])
        case .failure(let e)?: rows.append(["real-name", "error: \(e)"])
        case nil: break
        }
        switch report.bankCard {
        case .success(let b)?:
            rows.append(["bank card", b.value.bound ? "\(b.value.bankName ?? "") \(b.value.cardNo ?? "")" : "not bound"])
        case .failure(let e)?: rows.append(["bank card", "error: \(e)"])
        case nil: break
        }
        output.table(Self.fieldColumns("PROFILE"), rows.map { ["field": .string($0[0]), "value": .string($0[1])] })
        if !report.writtenBack.isEmpty { output.notes.append("written back: \(report.writtenBack.joined(separator: ", "))") }
        if report.isPhotographer {
            output.notes.append("real-name and bank card loaded \(report.sideCallsOverlapped ? "concurrently" : "one after the other")")
        }
        return output
    }
}

extension AppCommands {
    /// A two-column FIELD / VALUE table (whoami, profile, keys).
    static func fieldColumns(_ header: String = "FIELD") -> [OutputColumn] {
        [OutputColumn("field", header, priority: 90, cuttable: false), OutputColumn("value", "VALUE", priority: 80)]
    }
}

/// Horizontal bars of daily orders and amounts, scaled to the terminal width (`#` when not UTF-8).
struct BarChart {
    let width: Int
    let unicode: Bool

    func render(_ rows: [Daily]) -> String {
        guard !rows.isEmpty else { return "(no daily rows)\n" }
        let maxCount = max(1, rows.map(\.orderCount).max() ?? 1)
        let maxAmount = max(0.01, rows.map(\.orderAmount).max() ?? 0.01)
        let amountLabels = rows.map { Formatting.yuan($0.orderAmount) }
        let countWidth = rows.map { String($0.orderCount).count }.max() ?? 1
        let amountWidth = amountLabels.map(\.count).max() ?? 1
        // date, two labels and separators take the rest; each bar gets half of what remains.
        let barWidth = max(4, (max(width, 40) - 10 - countWidth - amountWidth - 8) / 2)
        var out = "DATE        \(pad("ORDERS", barWidth + countWidth + 1))  AMOUNT\n"
        for (row, label) in zip(rows, amountLabels) {
            let countBar = bar(Double(row.orderCount) / Double(maxCount), barWidth)
            let amountBar = bar(row.orderAmount / maxAmount, barWidth)
            // Numbers right-aligned, as in the tables: the digits of each amount line up.
            out += "\(row.date)  \(pad(countBar, barWidth)) \(pad(String(row.orderCount), countWidth, right: true))  \(pad(amountBar, barWidth)) \(pad(label, amountWidth, right: true))\n"
        }
        return out
    }

    private func bar(_ fraction: Double, _ width: Int) -> String {
        let eighths = Int((max(0, min(1, fraction)) * Double(width * 8)).rounded())
        guard unicode else { return String(repeating: "#", count: (eighths + 4) / 8) }
        let blocks = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return String(repeating: "█", count: eighths / 8) + blocks[eighths % 8]
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let gap = max(0, width - text.count)
        return right ? String(repeating: " ", count: gap) + text : text + String(repeating: " ", count: gap)
    }
}
