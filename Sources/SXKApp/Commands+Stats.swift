import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `stats` and `profile`: the data and "mine" tabs (seed 000 §5.2, §5.3).
extension AppCommands {
    func stats(_ command: ParsedCommand) async throws -> Int32 {
        let feature = try host.features().statistics
        let range = try feature.range(
            from: command.option("from"), to: command.option("to"), period: command.option("period").flatMap(StatsPeriod.init(rawValue:)))
        let role = command.option("role")
        switch command.subcommand {
        case "summary":
            let summary = try await feature.summary(role: role, range: range)
            if try printData(summary.response, command) { return ExitStatus.ok }
            printSummary(summary.value, range: range)
        case "daily":
            let daily = try await feature.daily(role: role, range: range)
            let scope = statsScope(try feature.endpoint(role: role).endpoint)
            defer { warnOutOfScope(scope?.countOutside(daily.rows.map(\.raw)) ?? 0, scope) }
            if command.has("raw") { for r in daily.responses { _ = try printData(r, command) }; return ExitStatus.ok }
            if command.has("ndjson") {
                io.keep(.array(daily.rows.map(\.raw)))
                var buffer: [UInt8] = []
                for row in daily.rows { JSONWriter.write(row.raw, into: &buffer); buffer.append(0x0A) }
                io.stdout.write(bytes: buffer)
                return ExitStatus.ok
            }
            if emit(.array(daily.rows.map(\.raw)), command) { return ExitStatus.ok }
            printDaily(daily.rows)
        default:
            let report = try await feature.load(role: role, range: range)
            let scope = statsScope(report.endpoint)
            defer { warnOutOfScope(scope?.countOutside(report.daily.rows.map(\.raw)) ?? 0, scope) }
            if command.has("raw") {
                _ = try printData(report.summary.response, command)
                for r in report.daily.responses { _ = try printData(r, command) }
                return ExitStatus.ok
            }
            if emit([
                    "role": .string(report.role), "range": report.range.json,
                    "summary": report.summary.response.data, "daily": .array(report.daily.rows.map(\.raw)),
                ], command) {
                return ExitStatus.ok
            }
            io.stdout.line("\(report.role) · \(range.from) → \(range.to)")
            printSummary(report.summary.value, range: range)
            io.stdout.line("")
            if command.has("chart") {
                io.stdout.write(BarChart(width: io.terminal.width, unicode: io.terminal.utf8).render(report.daily.rows))
            } else {
                printDaily(report.daily.rows)
            }
        }
        return ExitStatus.ok
    }

    private func printSummary(_ s: Summary, range: DateRange) {
        let rows = [
            ["orders", Formatting.count(s.orderCount)], ["amount", Formatting.yuan(s.orderAmount)],
            ["refunds", Formatting.count(s.refundCount)], ["refunded", Formatting.yuan(s.refundAmount)],
        ]
        io.stdout.write(io.table([.init("SUMMARY"), .init("VALUE", alignment: .right)]).render(rows))
    }

    private func printDaily(_ rows: [Daily]) {
        io.stdout.write(io.table([.init("DATE"), .init("ORDERS", alignment: .right), .init("AMOUNT", alignment: .right), .init("REFUNDED", alignment: .right)])
            .render(rows.map { [$0.date, Formatting.count($0.orderCount), Formatting.yuan($0.orderAmount), Formatting.yuan($0.refundAmount)] }))
    }

    func profile(_ command: ParsedCommand) async throws -> Int32 {
        let report = try await host.features().profile.reload()
        if command.has("raw") {
            _ = try printData(report.userInfo.response, command)
            if case .success(let r)? = report.realName { _ = try printData(r.response, command) }
            if case .success(let r)? = report.bankCard { _ = try printData(r.response, command) }
            return ExitStatus.ok
        }
        do {
            var o: JSONObject = ["userInfo": report.userInfo.response.data, "writtenBack": .array(report.writtenBack.map { .string($0) })]
            if let r = report.realName { o["realName"] = (try? r.get().response.data) ?? .null }
            if let b = report.bankCard { o["bankCard"] = (try? b.get().response.data) ?? .null }
            o["calls"] = .array(report.calls.map(\.json))
            if emit(.object(o), command) { return ExitStatus.ok }
        }
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
        io.stdout.write(io.table([.init("PROFILE"), .init("VALUE")]).render(rows))
        if !report.writtenBack.isEmpty { io.stdout.line("written back: \(report.writtenBack.joined(separator: ", "))") }
        if report.isPhotographer {
            io.stdout.line("real-name and bank card loaded \(report.sideCallsOverlapped ? "concurrently" : "one after the other")")
        }
        return ExitStatus.ok
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
            out += "\(row.date)  \(pad(countBar, barWidth)) \(pad(String(row.orderCount), countWidth, right: true))  \(pad(amountBar, barWidth)) \(label)\n"
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
