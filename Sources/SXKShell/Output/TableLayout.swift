/// Fits a table into a width as a person would: the most important columns are placed first, each
/// at the narrowest it may be (a cuttable column down to a readable floor, never below its
/// header; identifiers, amounts and masked phones whole), every column that still fits is shown,
/// and the room left goes back to the shown columns, most important first, up to their natural
/// widths; columns of equal importance share it evenly. What is still narrower than its text is cut
/// with `…`.
public struct TableLayout: Sendable, Equatable {
    /// Indexes of the columns shown, in table order.
    public var shown: [Int]
    /// Width of each shown column.
    public var widths: [Int]
    /// Columns left out to fit.
    public var dropped: [Int]
    /// Whether any cell or header will be cut with `…`.
    public var cuts: Bool
    /// Not even the most important column fits whole at its narrowest: it is cut to the width.
    /// (A single row is then better read as a record.)
    public var overflows = false

    public static let separator = 2
    /// A cuttable column is not shrunk below this (or its natural width) before a column is dropped.
    public static let floor = 10

    /// `natural[i]` is the widest cell or header of column i; `priority` and `cuttable` per column;
    /// `headers[i]` the width of its header (a cuttable column is never cut narrower than it).
    public static func fit(natural: [Int], priority: [Int], cuttable: [Bool], headers: [Int] = [], maxWidth: Int?) -> TableLayout {
        let all = Array(natural.indices)
        guard let maxWidth, !natural.isEmpty else {
            return TableLayout(shown: all, widths: natural, dropped: [], cuts: false)
        }
        if natural.reduce(0, +) + separator * (natural.count - 1) <= maxWidth {
            return TableLayout(shown: all, widths: natural, dropped: [], cuts: false)
        }
        func narrowest(_ i: Int) -> Int {
            guard cuttable[i] else { return natural[i] }
            let header = i < headers.count ? headers[i] : 0
            return min(natural[i], max(floor, header))
        }
        // Most important first; among equals the leftmost.
        let ranked = all.sorted { priority[$0] != priority[$1] ? priority[$0] > priority[$1] : $0 < $1 }
        var chosen: Set<Int> = []
        var used = 0
        for i in ranked {
            let need = narrowest(i) + (chosen.isEmpty ? 0 : separator)
            if used + need <= maxWidth {
                chosen.insert(i)
                used += need
            }
        }
        // The most important column (the order number, the identity) is never given up for lesser ones.
        guard chosen.contains(ranked[0]) else {
            let top = ranked[0]
            return TableLayout(shown: [top], widths: [max(1, maxWidth)], dropped: all.filter { $0 != top }, cuts: true, overflows: true)
        }
        var width: [Int: Int] = [:]
        for i in chosen { width[i] = narrowest(i) }
        var room = maxWidth - used
        // Equals share: the two sides of a comparison are cut alike, not one whole and one to its floor.
        var tiers: [[Int]] = []
        for i in ranked where chosen.contains(i) {
            if let last = tiers.last?.last, priority[last] == priority[i] { tiers[tiers.count - 1].append(i) } else { tiers.append([i]) }
        }
        for tier in tiers {
            var growing = tier.filter { width[$0]! < natural[$0] }
            while room > 0 && !growing.isEmpty {
                let share = max(1, room / growing.count)
                for i in growing where room > 0 {
                    let grow = min(share, room, natural[i] - width[i]!)
                    width[i]! += grow
                    room -= grow
                }
                growing = growing.filter { width[$0]! < natural[$0] }
            }
        }
        let shown = all.filter { chosen.contains($0) }
        return TableLayout(shown: shown, widths: shown.map { width[$0]! }, dropped: all.filter { !chosen.contains($0) },
                           cuts: shown.contains { width[$0]! < natural[$0] })
    }

    /// Total line width of this layout.
    public var lineWidth: Int { widths.reduce(0, +) + Self.separator * max(0, widths.count - 1) }
}
