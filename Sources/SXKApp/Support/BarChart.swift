import SXKModels

/// Horizontal bars of daily orders and amounts, scaled to the terminal width (`#` when not UTF-8).
struct BarChart {
    let width: Int
    let unicode: Bool

    func render(_ rows: [Daily]) -> String {
        guard !rows.isEmpty else { return "(no daily rows)\n" }
        // A day without a readable number has no bar; its label is the table's cell (the text as sent, or `–`).
        let maxCount = max(1, rows.compactMap(\.orderCount).max() ?? 1)
        let maxAmount = max(0.01, rows.compactMap(\.orderAmount).max() ?? 0.01)
        let amountLabels = rows.map { Formatting.statsCell($0.raw.objectValue?.field("orderAmount"), amount: true) }
        let countLabels = rows.map { $0.orderCount.map(String.init) ?? Formatting.statsCell($0.raw.objectValue?.field("orderCount"), amount: false) }
        let countWidth = countLabels.map(\.count).max() ?? 1
        let amountWidth = amountLabels.map(\.count).max() ?? 1
        // date, two labels and separators take the rest; each bar gets half of what remains.
        let barWidth = max(4, (max(width, 40) - 10 - countWidth - amountWidth - 8) / 2)
        var out = "DATE        \(pad("ORDERS", barWidth + countWidth + 1))  AMOUNT\n"
        for (i, row) in rows.enumerated() {
            let countBar = bar(Double(row.orderCount ?? 0) / Double(maxCount), barWidth)
            let amountBar = bar((row.orderAmount ?? 0) / maxAmount, barWidth)
            // Numbers right-aligned, as in the tables: the digits of each amount line up.
            out += "\(row.date)  \(pad(countBar, barWidth)) \(pad(countLabels[i], countWidth, right: true))  \(pad(amountBar, barWidth)) \(pad(amountLabels[i], amountWidth, right: true))\n"
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
