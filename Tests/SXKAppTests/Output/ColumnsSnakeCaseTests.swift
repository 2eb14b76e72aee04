import Foundation
import SXKCore
import XCTest
@testable import SXKApp
@testable import SXKShell

/// `--columns` selects and never renames: against a backend that sends snake_case keys, the
/// machine formats keep the server's keys and values with it exactly as without it. The orders
/// table's own columns (camelCase keys, a converted CREATED) face a snake_case page here.
final class ColumnsSnakeCaseTests: XCTestCase {
    let rows: [JSONValue] = [
        ["order_no": "SX20261201010002000", "status_text": "已完成", "amount": .double(157.27),
         "create_time": "2026-12-01 14:35:35", "customer_phone": "151****0083", "scenic_name": "西湖景区"],
        ["order_no": "SX20261201010001999", "status_text": "待支付", "amount": .int(599),
         "create_time": "2026-12-01 13:10:48", "customer_phone": "177****5698", "scenic_name": "西湖景区"],
    ]

    func output() -> CommandOutput {
        var output = CommandOutput(data: ["list": .array(rows), "total": .int(2)])
        output.table(OrderColumns.columns(deposit: false), rows)
        return output
    }

    func render(_ kind: OutputFormat.Kind, columns: [String]?, streamed: Bool = false) async throws -> String {
        let out = BufferOutput(), err = BufferOutput()
        let io = CommandIO(stdout: out, stderr: err, terminal: .plain)
        var format = OutputFormat(kind: kind)
        format.columns = columns
        let renderer = Renderer(io: io, format: format, secrets: [])
        if streamed {
            var stream = CommandOutput()
            let rows = self.rows
            stream.stream = RowStream(columns: OrderColumns.columns(deposit: false)) { emit in
                _ = emit(rows, nil)
                return RowStream.End(status: 0)
            }
            _ = try await renderer.render(stream)
        } else {
            try renderer.renderStatic(output(), into: out)
        }
        return out.text
    }

    func testColumnsKeepTheServersKeysAndValues() async throws {
        let chosen = ["created", "customer"]
        let json = try await render(.json, columns: chosen)
        XCTAssertEqual(json, #"{"list":[{"create_time":"2026-12-01 14:35:35","customer_phone":"151****0083"},{"create_time":"2026-12-01 13:10:48","customer_phone":"177****5698"}],"total":2}"# + "\n")
        for streamed in [false, true] {
            let nd = try await render(.ndjson, columns: chosen, streamed: streamed)
            XCTAssertEqual(nd.split(separator: "\n").first, #"{"create_time":"2026-12-01 14:35:35","customer_phone":"151****0083"}"#, "streamed \(streamed)")
            let csv = try await render(.csv, columns: chosen, streamed: streamed)
            XCTAssertEqual(csv, "create_time,customer_phone\n2026-12-01 14:35:35,151****0083\n2026-12-01 13:10:48,177****5698\n", "streamed \(streamed)")
            let tsv = try await render(.tsv, columns: ["ORDER NO", "amount"], streamed: streamed)
            XCTAssertEqual(tsv, "order_no\tamount\nSX20261201010002000\t157.27\nSX20261201010001999\t599\n", "streamed \(streamed)")
        }
        // Without --columns the same keys and text: --columns only chose.
        let whole = try await render(.csv, columns: nil)
        XCTAssertTrue(whole.hasPrefix("order_no,status_text,amount,create_time,customer_phone,scenic_name"), whole)
        XCTAssertTrue(whole.contains(",2026-12-01 14:35:35,"), whole)
        // A server key typed as it was sent picks that member too.
        let bySnake = try await render(.json, columns: ["create_time"])
        XCTAssertEqual(bySnake, #"{"list":[{"create_time":"2026-12-01 14:35:35"},{"create_time":"2026-12-01 13:10:48"}],"total":2}"# + "\n")
        // A snake_case name picks the member in rows of either spelling, whichever the first row uses,
        // and names the declared column (the table converts it as its CREATED).
        let mixed: [JSONValue] = [["orderNo": "A1", "createTime": "2026-12-01 14:35:35"], ["order_no": "A2", "create_time": "2026-12-01 13:10:48"]]
        for rows in [mixed, mixed.reversed()] {
            var output = CommandOutput(data: ["list": .array(rows)])
            output.table(OrderColumns.columns(deposit: false), rows)
            for kind in [OutputFormat.Kind.csv, .json, .table] {
                let out = BufferOutput()
                var format = OutputFormat(kind: kind)
                format.columns = ["order_no", "create_time"]
                try Renderer(io: CommandIO(stdout: out, stderr: BufferOutput(), terminal: .plain), format: format, secrets: []).renderStatic(output, into: out)
                XCTAssertTrue(out.text.contains("A1") && out.text.contains("A2"), "\(kind): \(out.text)")
                XCTAssertEqual(out.text.components(separatedBy: "2026-12-01 ").count - 1, 2, "\(kind): \(out.text)")
                // The table's CREATED, converted: the time with its offset.
                if kind == .table { XCTAssertEqual(out.text.components(separatedBy: " +").count + out.text.components(separatedBy: " -").count - 2, 2, out.text) }
            }
        }
        // The table still reads and converts them (its CREATED is local time with an offset).
        let table = try await render(.table, columns: chosen)
        XCTAssertTrue(table.contains("CREATED") && table.contains("151****0083"), table)
    }
}
