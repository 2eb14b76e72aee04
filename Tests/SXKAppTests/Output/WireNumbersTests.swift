import SXKCore
import SXKModels
import XCTest
@testable import SXKApp
@testable import SXKShell

/// Numbers as a backend may send them: past an Int, not decimal (hex, NaN, Infinity), past a
/// double's range, or missing. Nothing crashes; no view shows a number the answer did not hold.
final class WireNumbersTests: XCTestCase {
    func testOnlyDecimalNumbersReadAsNumbers() {
        for (text, value) in [("12.50", 12.5), ("-0.05", -0.05), ("1e3", 1000), ("+5", 5), (".5", 0.5), ("5.", 5), ("1E+2", 100), (" 7 ", 7)] {
            XCTAssertEqual(JSONValue.string(text).doubleValue, value, text)
        }
        for text in ["0x10", "NaN", "nan", "inf", "Infinity", "-inf", "1e400", "1e", "e5", "--5", "1-2", "", ".", "1.2.3", "1e5e5", "٣"] {
            XCTAssertNil(JSONValue.string(text).doubleValue, text)
            XCTAssertNil(JSONValue.string(text).intValue, text)
        }
        XCTAssertNil(JSONValue.number("1e400").doubleValue)
        XCTAssertEqual(JSONValue.string("0301").intValue, 301)
        XCTAssertNil(JSONValue.string("0x12D").intValue, "a hex store id is not store 301")
        XCTAssertNil(JSONValue.bool(true).intValue, "true is not order 1")
        XCTAssertEqual(JSONValue.number("2").boolValue, true)
    }

    func testAmountsPastAnIntAndUnreadableOnesShowAsSent() throws {
        let rows: [JSONValue] = [
            ["orderNo": "A1", "amount": .number("1e17")], ["orderNo": "A2", "amount": "NaN"],
            ["orderNo": "A3", "amount": .number("1e400")], ["orderNo": "A4", "amount": "0x10"],
            ["orderNo": "A5", "amount": "12.50"], ["orderNo": "A6", "amount": .number("-9.3e18")],
        ]
        var output = CommandOutput(data: ["list": .array(rows)])
        output.table(OrderColumns.columns(deposit: false), rows)
        let out = BufferOutput()
        try Renderer(io: CommandIO(stdout: out, stderr: BufferOutput(), terminal: .plain), format: OutputFormat(kind: .table), secrets: []).renderStatic(output, into: out)
        let amounts = out.text.split(separator: "\n").dropFirst().map { line in line.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
        XCTAssertEqual(amounts, ["100,000,000,000,000,000.00", "NaN", "1e400", "0x10", "12.50", "-9,300,000,000,000,000,000.00"], out.text)
        XCTAssertEqual(Formatting.yuan(Double(1e20)), "1e+20")
        XCTAssertEqual(Formatting.yuan(Double.nan), "")
        XCTAssertEqual(JSONWriter.format(1e17, digits: 2), "100000000000000000.00")
        // An amount is formatted from its text, exact at any size; a double past 2^53 from its shortest text.
        for (sent, shown) in [("123456789012345.67", "123,456,789,012,345.67"), ("100000000000000.01", "100,000,000,000,000.01"),
                              ("12345678901234567.89", "12,345,678,901,234,567.89"), ("0.005", "0.01"), ("-0.004", "0.00"),
                              ("9.995", "10.00"), ("+3", "3.00"), (".5", "0.50"), ("-999.999", "-1,000.00")] {
            XCTAssertEqual(Formatting.yuan(JSONValue.number(sent)), shown, sent)
            XCTAssertEqual(Formatting.yuan(JSONValue.string(sent)), shown, sent)
        }
        XCTAssertEqual(JSONWriter.format(123456789012345.67, digits: 2), "123456789012345.67")
        XCTAssertEqual(Formatting.count(Int.min), "-9,223,372,036,854,775,808", "Int.min's negation traps")
        // Cents are kept while a double has them: 90 trillion yuan and 55 fen.
        XCTAssertEqual(Formatting.yuan(90_000_000_000_000.55), "90,000,000,000,000.55")
        XCTAssertEqual(Formatting.yuan(JSONValue.string("-90000000000000.55")), "-90,000,000,000,000.55")
    }

    /// No status is not "unverified", no `bound` is not "not bound".
    func testProfileAnswersWithoutAStatusOrBoundSayUnknown() throws {
        XCTAssertEqual(try RealNameInfo(json: ["status": .null, "realName": "张三"]).statusText, "unknown: the answer has no readable status")
        XCTAssertEqual(try RealNameInfo(json: ["status": "verified"]).statusText, "unknown: the answer has no readable status (status verified)")
        XCTAssertEqual(try RealNameInfo(json: ["status": "2"]).statusText, "verified")
        XCTAssertNil(try BankCardInfo(json: ["bankName": "招商银行", "cardNo": "6225****1234"]).bound)
        XCTAssertNil(try BankCardInfo(json: ["bound": "Y"]).bound)
        XCTAssertEqual(try BankCardInfo(json: ["bound": "1"]).bound, true)
    }

    func testStatsWithoutReadableNumbersShowThemAsSent() throws {
        let summary = try Summary(json: ["orderAmount": "37.50", "orderCount": "99999999999999999999"])
        XCTAssertNil(summary.orderCount)
        XCTAssertNil(summary.refundCount, "no refunds in the answer is not 0 refunds")
        XCTAssertEqual(Formatting.count(summary.raw.objectValue?.field("orderCount")), "99999999999999999999")
        XCTAssertEqual(Formatting.count(summary.raw.objectValue?.field("refundCount")), "")
        // The table, the chart and the summary show a missing member alike, and one not a number as sent.
        XCTAssertEqual(Formatting.statsCell(summary.raw.objectValue?.field("refundCount"), amount: false), "–")
        XCTAssertEqual(Formatting.statsCell(JSONValue.string("Infinity"), amount: true), "Infinity")
        let chart = BarChart(width: 80, unicode: true).render([
            try Daily(json: ["date": "2026-11-01", "orderCount": "1", "orderAmount": "12.50"]),
            try Daily(json: ["date": "2026-11-02"]),
        ])
        let last = chart.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.hasPrefix("2026-11-02") && last.hasSuffix("–") && !last.contains("0.00"), chart)
    }
}
