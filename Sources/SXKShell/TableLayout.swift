/// Fits a table into a width: cuttable columns shrink to a readable floor, then whole columns go,
/// lowest priority first, and what is left is cut at character boundaries so no line is wider
/// than the terminal.
public struct TableLayout: Sendable, Equatable {
    /// Indexes of the columns shown, in table order.
    public var shown: [Int]
    /// Width of each shown column.
    public var widths: [Int]
    /// Columns left out to fit.
    public var dropped: [Int]
    /// Whether any cell or header will be cut with `…`.
    public var cuts: Bool

    public static let separator = 2
    /// A cuttable column is not shrunk below this (or its natural width) before a column is dropped.
    public static let floor = 10

    /// `natural[i]` is the widest cell or header of column i; `priority` and `cuttable` per column.
    public static func fit(natural: [Int], priority: [Int], cuttable: [Bool], maxWidth: Int?) -> TableLayout {
        var shown = Array(natural.indices)
        guard let maxWidth, !natural.isEmpty else {
            return TableLayout(shown: shown, widths: natural, dropped: [], cuts: false)
        }
        var dropped: [Int] = []
        while true {
            var widths = shown.map { natural[$0] }
            if shrink(&widths, shown.map { cuttable[$0] }, to: maxWidth) {
                let cut = zip(widths, shown).contains { $0 < natural[$1] }
                return TableLayout(shown: shown, widths: widths, dropped: dropped.sorted(), cuts: cut)
            }
            if shown.count == 1 {
                // One column left: it is cut to the width, cuttable or not.
                return TableLayout(shown: shown, widths: [max(1, maxWidth)], dropped: dropped.sorted(), cuts: true)
            }
            // Lowest priority goes first; among equals the rightmost.
            let victim = shown.enumerated().min { a, b in
                priority[a.element] != priority[b.element] ? priority[a.element] < priority[b.element] : a.offset > b.offset
            }!.offset
            dropped.append(shown.remove(at: victim))
        }
    }

    /// Shrinks cuttable columns, widest first, to fit; false when they cannot reach it above the floor.
    private static func shrink(_ widths: inout [Int], _ cuttable: [Bool], to maxWidth: Int) -> Bool {
        var excess = widths.reduce(0, +) + separator * (widths.count - 1) - maxWidth
        while excess > 0 {
            let candidates = widths.indices.filter { cuttable[$0] && widths[$0] > floor }
            guard let i = candidates.max(by: { widths[$0] < widths[$1] }) else { return false }
            let next = candidates.filter { $0 != i }.map { widths[$0] }.max() ?? floor
            let cut = min(excess, max(1, widths[i] - max(next, floor)), widths[i] - floor)
            widths[i] -= cut
            excess -= cut
        }
        return true
    }

    /// Total line width of this layout.
    public var lineWidth: Int { widths.reduce(0, +) + Self.separator * max(0, widths.count - 1) }
}
