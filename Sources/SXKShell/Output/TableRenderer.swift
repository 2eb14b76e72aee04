import SXKCore

/// A text table: headers, rows of cells, per-column alignment, fitted to the terminal width.
public struct TableRenderer: Sendable {
    public enum Alignment: Sendable { case left, right }

    public struct Column: Sendable {
        public var header: String
        public var alignment: Alignment
        /// Columns that may be cut with `…` when the table is too wide (the widest shrinks first).
        public var truncatable: Bool
        public init(_ header: String, alignment: Alignment = .left, truncatable: Bool = true) {
            self.header = header
            self.alignment = alignment
            self.truncatable = truncatable
        }
    }

    public var columns: [Column]
    public var maxWidth: Int?
    public var color: Bool
    public var separator = "  "

    public init(columns: [Column], maxWidth: Int? = nil, color: Bool = false) {
        self.columns = columns
        self.maxWidth = maxWidth
        self.color = color
    }

    public init(headers: [String], maxWidth: Int? = nil, color: Bool = false) {
        self.init(columns: headers.map { Column($0) }, maxWidth: maxWidth, color: color)
    }

    /// Column widths after fitting into `maxWidth` (each column keeps at least 3 cells or its header… cut).
    public func widths(for rows: [[String]]) -> [Int] {
        var widths = columns.map { TextWidth.width($0.header) }
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], TextWidth.width(Self.clean(cell)))
            }
        }
        guard let maxWidth, !widths.isEmpty else { return widths }
        let sepTotal = separator.count * (widths.count - 1)
        var excess = widths.reduce(0, +) + sepTotal - maxWidth
        while excess > 0 {
            guard let i = widths.indices.filter({ columns[$0].truncatable && widths[$0] > 3 }).max(by: { widths[$0] < widths[$1] }) else { break }
            let others = widths.enumerated().filter { $0.offset != i && columns[$0.offset].truncatable }.map(\.element).max() ?? 3
            let cut = min(excess, max(1, widths[i] - max(others, 3)), widths[i] - 3)
            widths[i] -= cut
            excess -= cut
        }
        return widths
    }

    /// The whole table as text, one line per row, each ending in a newline.
    public func render(_ rows: [[String]]) -> String {
        let widths = widths(for: rows)
        var out = renderLine(columns.map(\.header), widths: widths, header: true)
        for row in rows { out += renderLine(row, widths: widths, header: false) }
        return out
    }

    /// One row (for streaming output once widths are known).
    public func renderLine(_ cells: [String], widths: [Int], header: Bool = false) -> String {
        var parts: [String] = []
        for (i, width) in widths.enumerated() {
            let raw = i < cells.count ? Self.clean(cells[i]) : ""
            let cut = TextWidth.truncate(raw, to: width)
            let isLast = i == widths.count - 1
            let aligned = columns[i].alignment == .right
            var cell = (isLast && !aligned) ? cut : TextWidth.pad(cut, to: width, alignRight: aligned)
            if header { cell = TextStyle.bold.apply(cell, enabled: color) }
            parts.append(cell)
        }
        var line = parts.joined(separator: separator)
        while line.hasSuffix(" ") { line.removeLast() }
        return line + "\n"
    }

    /// Controls (newlines, tabs, ESC, C1, bidi) shown as visible escapes so a cell stays on its line and inert.
    static func clean(_ s: String) -> String { TerminalText.sanitize(s) }
}
