import SXKCore
import XCTest
@testable import SXKShell

/// `watch -d`'s marking, on made-up frames: the changed characters of each line in reverse
/// video, the first frame and frames off a terminal unmarked.
final class WatchDifferencesTests: XCTestCase {
    func frames(terminal: Bool, highlight: Bool) async throws -> [String] {
        let out = BufferOutput(), err = BufferOutput()
        let io = CommandIO(stdout: out, stderr: err, terminal: Terminal(stdinIsTerminal: terminal, stdoutIsTerminal: terminal,
                                                                         stderrIsTerminal: terminal, width: 80, colorEnabled: terminal))
        let texts = [["total 12", "state 待支付"], ["total 13", "state 待支付", "new line"], ["total 13", "state 已完成"]]
        var output = CommandOutput()
        output.live = LiveOutput(highlightChanges: highlight) { show in
            for lines in texts { _ = await show(.init(title: "h", status: ""), CommandOutput(blocks: [.lines(lines)]), nil) }
            return 0
        }
        _ = try await Renderer(io: io, format: OutputFormat(), secrets: []).render(output)
        return terminal ? Array(out.text.components(separatedBy: "\u{1B}[H\u{1B}[2J").dropFirst()) : [out.text]
    }

    func testChangedCharactersAreMarked() async throws {
        let shown = try await frames(terminal: true, highlight: true)
        XCTAssertEqual(shown.count, 3)
        XCTAssertEqual(shown[0], "h\n\ntotal 12\nstate 待支付\n")
        XCTAssertEqual(shown[1], "h\n\ntotal 1\u{1B}[7m3\u{1B}[27m\nstate 待支付\n\u{1B}[7mnew line\u{1B}[27m\n")
        XCTAssertEqual(shown[2], "h\n\ntotal 13\nstate \u{1B}[7m已完成\u{1B}[27m\n")
        let plain = try await frames(terminal: true, highlight: false)
        XCTAssertFalse(plain.joined().contains("\u{1B}[7m"))
        let piped = try await frames(terminal: false, highlight: true)
        XCTAssertFalse(piped.joined().contains("\u{1B}[7m"), "a pipe gets the data alone")
    }

    /// A frame's warnings and notes, drawn on the screen, wrap at spaces within the window as they do
    /// outside `watch` (the terminal would break them mid-word).
    func testAFramesMessagesWrapAtSpacesOnTheScreen() async throws {
        let out = BufferOutput(), err = BufferOutput()
        let io = CommandIO(stdout: out, stderr: err, terminal: Terminal(stdinIsTerminal: true, stdoutIsTerminal: true,
                                                                         stderrIsTerminal: true, width: 80, colorEnabled: false))
        let words = (1...30).map { "word\($0)" }.joined(separator: " ")
        var frame = CommandOutput(blocks: [.lines(["row"])])
        frame.warnings = ["leaked " + words]
        frame.notes = ["noted " + words]
        let shown = frame
        var output = CommandOutput()
        output.live = LiveOutput(highlightChanges: false) { show in _ = await show(.init(title: "h", status: ""), shown, nil); return 0 }
        _ = try await Renderer(io: io, format: OutputFormat(), secrets: []).render(output)
        let screen = out.text.components(separatedBy: "\u{1B}[H\u{1B}[2J").last ?? ""
        let width = Terminal.currentWidth(environment: [:])
        for line in screen.split(separator: "\n") { XCTAssertLessThanOrEqual(TextWidth.width(String(line)), width, String(line)) }
        XCTAssertTrue(screen.contains("word30"), screen)
        XCTAssertFalse(screen.contains("wor\nd"), "a word was broken: \(screen)")
    }
}
