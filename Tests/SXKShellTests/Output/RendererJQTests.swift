import SXKCore
import XCTest
@testable import SXKShell

/// `--jq` and JSON colour in the renderer, on made-up data.
final class RendererJQTests: XCTestCase {
    let data: JSONValue = ["list": .array([["orderNo": "SO1", "t": "tok-LIVE-1"], ["orderNo": "SO2", "t": "x"]]), "total": .int(2)]

    func render(_ expression: String?, kind: OutputFormat.Kind = .table, terminal: Bool = false, color: Bool = false) throws -> (String, CommandIO) {
        let out = BufferOutput()
        var t = Terminal.plain
        t.stdoutIsTerminal = terminal
        t.colorEnabled = color
        let io = CommandIO(stdout: out, stderr: BufferOutput(), terminal: t)
        var format = OutputFormat(kind: kind)
        format.jq = try expression.map { try JQProgram.compile($0) }
        try Renderer(io: io, format: format, secrets: ["tok-LIVE-1"]).renderStatic(CommandOutput(data: data), into: out)
        return (out.text, io)
    }

    func testStringsRawValuesCompactAndDollarUnderscoreKeepsTheResult() throws {
        let (names, io) = try render(".list[].orderNo")
        XCTAssertEqual(names, "SO1\nSO2\n")
        XCTAssertEqual(io.data.value, .array(["SO1", "SO2"]))
        let (one, io1) = try render(".list[] | select(.orderNo == \"SO2\") | {orderNo}")
        XCTAssertEqual(one, "{\"orderNo\":\"SO2\"}\n")
        XCTAssertEqual(io1.data.value, ["orderNo": "SO2"])
        let (masked, _) = try render(".list[0].t")
        XCTAssertFalse(masked.contains("tok-LIVE-1"), masked)
    }

    func testRuntimeErrorIsNotUsage() throws {
        XCTAssertThrowsError(try render(".total | error(\"boom\")")) { error in
            XCTAssertEqual((error as? JQError)?.isUsage, false, "\(error)")
        }
    }

    func testJSONIsColouredOnlyOnAColourTerminal() throws {
        let (coloured, _) = try render(nil, kind: .json, terminal: true, color: true)
        XCTAssertTrue(coloured.contains(JSONColorizer.keyStyle + "\"total\""), coloured)
        XCTAssertTrue(coloured.contains(JSONColorizer.numberStyle + "2"), coloured)
        let (plain, _) = try render(nil, kind: .json, terminal: true, color: false)
        XCTAssertFalse(plain.contains("\u{1B}"), plain)
        let (piped, _) = try render(".list[0]", terminal: false, color: true)
        XCTAssertFalse(piped.contains("\u{1B}"), piped)
    }
}
