import CPTY
import Foundation
@testable import SXKShell
import XCTest

/// A question as wide as the window is wrapped too: the answer needs a column after it.
final class QuestionFitPTYTests: XCTestCase {
    func testAQuestionAsWideAsTheWindowLeavesRoomForTheAnswer() throws {
        var path = [CChar](repeating: 0, count: 256)
        let master = cpty_open_master(&path, Int32(path.count))
        XCTAssertGreaterThanOrEqual(master, 0)
        defer { close(master) }
        XCTAssertEqual(cpty_set_window_size(master, 24, 20), 0)
        let question = "aaaa bbbb ccc [y/N] "
        XCTAssertEqual(TextWidth.width(question), 20)
        let shown = TerminalPrompt.fitted(question, fd: master)
        let shownRows = shown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertGreaterThan(shownRows.count, 1, shown)
        XCTAssertLessThan(TextWidth.width(shownRows.last ?? ""), 20, "no column left for the answer: \(shownRows)")
        XCTAssertTrue(shown.hasSuffix("[y/N] "), shown)
        // Only the last row gives up the answer's column: a word as wide as the window stays whole above it.
        let rows = TerminalPrompt.fitted("reset 'abcdefghijklmnop' (token)? [y/N] ", fd: master).split(separator: "\n").map(String.init)
        XCTAssertEqual(rows, ["reset", "  'abcdefghijklmnop'", "  (token)? [y/N] "])
        // A shorter one is left as it is.
        XCTAssertEqual(TerminalPrompt.fitted("ok? [y/N] ", fd: master), "ok? [y/N] ")
    }
}
