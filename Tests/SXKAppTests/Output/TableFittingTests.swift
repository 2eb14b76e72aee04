import Foundation
import SXKCore
import XCTest
@testable import SXKApp
@testable import SXKShell

/// The orders table fitted as a person would, at 60, 80, 100 and 160 columns: columns go or are
/// cut by importance, an order number, a time or a masked phone is whole or hidden, free room is
/// used, the hidden-columns note is whole with its `--wide` hint, one row stays a table while it
/// can, and `-x` keeps the paging footer.
final class TableFittingTests: XCTestCase {
    let rows: [JSONValue] = [
        ["orderNo": "SX20261201010002000", "statusText": "已完成", "amount": .double(157.27), "createTime": "2026-12-01 14:35:35",
         "customerPhone": "199****3812", "scenicName": "西湖景区灵隐寺飞来峰景区", "photographerName": "欧阳娜娜摄影工作室"],
        ["orderNo": "SX20261201010001999", "statusText": "待支付", "amount": .int(599), "createTime": "2026-12-01 13:10:48",
         "customerPhone": "177****5698", "scenicName": "西湖景区", "photographerName": "林晓峰"],
    ]

    struct Rendered {
        var stdout: String
        var stderr: String
    }

    func render(_ rows: [JSONValue], width: Int, kind: OutputFormat.Kind = .table) throws -> Rendered {
        let out = BufferOutput(), err = BufferOutput()
        let terminal = Terminal(stdinIsTerminal: true, stdoutIsTerminal: true, stderrIsTerminal: true, width: width, colorEnabled: false)
        let io = CommandIO(stdout: out, stderr: err, terminal: terminal)
        var output = CommandOutput(data: ["list": .array(rows)])
        output.table(OrderColumns.columns(deposit: false), rows)
        output.line("page 1/2 · 2 orders · photographer")
        let held = BufferOutput()
        try Renderer(io: io, format: OutputFormat(kind: kind), secrets: [], pager: nil, heldNotes: held).renderStatic(output, into: out)
        return Rendered(stdout: out.text, stderr: held.text + err.text)
    }

    func testFittingRulesAt60_80_100And160Columns() throws {
        let columns = OrderColumns.columns(deposit: false)
        for width in [60, 80, 100, 160] {
            let r = try render(rows, width: width)
            let lines = r.stdout.split(separator: "\n").map(String.init)
            for line in lines { XCTAssertLessThanOrEqual(TextWidth.width(line), width, "\(width): \(line)") }
            let header = lines[0]
            XCTAssertFalse(header.contains("…"), "\(width): a header was cut: \(header)")
            let shown = columns.filter { header.contains($0.header) }
            // Whole or hidden: order numbers, times, masked phones, amounts.
            for column in shown where !column.cuttable {
                for row in rows {
                    XCTAssertTrue(r.stdout.contains(column.text(row)), "\(width): \(column.header) cut: \(r.stdout)")
                }
            }
            XCTAssertTrue(shown.contains { $0.key == "orderNo" } && shown.contains { $0.key == "amount" }, "\(width): \(header)")
            let hidden = columns.filter { !header.contains($0.header) }
            if hidden.isEmpty {
                XCTAssertFalse(r.stderr.contains("hidden"), "\(width): \(r.stderr)")
            } else {
                // The note names every hidden column and keeps its hint, each line within the width.
                let note = r.stderr.split(separator: "\n").map(String.init)
                for line in note { XCTAssertLessThanOrEqual(TextWidth.width(line), width, "\(width): \(line)") }
                let joined = note.joined(separator: " ")
                XCTAssertTrue(joined.contains("— --wide shows"), "\(width): \(r.stderr)")
                for column in hidden { XCTAssertTrue(joined.contains(column.header), "\(width): \(column.header) not named: \(r.stderr)") }
                // No hidden column would have fitted beside the shown ones, all at their narrowest
                // (a cuttable text at 10 columns or its header, the others whole).
                func narrowest(_ column: OutputColumn) -> Int {
                    let natural = rows.map { TextWidth.width(column.text($0)) }.max()!
                    return column.cuttable ? min(max(natural, TextWidth.width(column.header)), max(TableLayout.floor, TextWidth.width(column.header))) : natural
                }
                let used = shown.map(narrowest).reduce(0, +) + TableLayout.separator * (shown.count - 1)
                for column in hidden {
                    XCTAssertGreaterThan(used + TableLayout.separator + narrowest(column), width, "\(width): \(column.header) would fit in \(width - used) free columns")
                }
            }
            // The footer follows the table.
            XCTAssertEqual(lines.last, "page 1/2 · 2 orders · photographer")
        }
        // At 100 the order table keeps every important column; at 160 nothing is hidden or cut.
        let wide = try render(rows, width: 160)
        XCTAssertTrue(wide.stdout.contains("西湖景区灵隐寺飞来峰景区") && wide.stdout.contains("欧阳娜娜摄影工作室"), wide.stdout)
        let hundred = try render(rows, width: 100).stdout.split(separator: "\n")[0]
        for name in ["ORDER NO", "STATUS", "AMOUNT", "CREATED", "CUSTOMER"] { XCTAssertTrue(hundred.contains(name), String(hundred)) }
    }

    /// One row is a table like any other while it fits with columns hidden; a record only when even
    /// the order number cannot fit.
    func testOneRowStaysATableWhileItCanFit() throws {
        for width in [60, 100] {
            let r = try render([rows[0]], width: width)
            XCTAssertTrue(r.stdout.hasPrefix("ORDER NO"), "\(width): \(r.stdout)")
            XCTAssertFalse(r.stdout.contains("RECORD"), "\(width): \(r.stdout)")
        }
        let narrow = try render([rows[0]], width: 15)
        XCTAssertTrue(narrow.stdout.hasPrefix("-[ RECORD 1 ]"), narrow.stdout)
    }

    /// `-x` prints the rows as records and keeps the rest of the view (the paging footer).
    func testExpandedKeepsTheFooter() throws {
        let r = try render(rows, width: 80, kind: .expanded)
        XCTAssertTrue(r.stdout.hasPrefix("-[ RECORD 1 ]"), r.stdout)
        XCTAssertTrue(r.stdout.contains("-[ RECORD 2 ]"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("page 1/2 · 2 orders · photographer\n"), r.stdout)
    }
}
