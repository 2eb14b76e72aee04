#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import SXKShell

/// The "waiting for …" line: when it shows, what it says, and that it is gone before output.
final class StatusLineTests: XCTestCase {
    let ms: UInt64 = 1_000_000
    let erase = StatusLineState.erase

    func testNothingBeforeTheThresholdThenMethodPathAndElapsed() {
        var s = StatusLineState()
        s.commandStarted()
        s.begin(id: 1, label: "GET /api/yf-handset-app/userinfo", at: 1_000 * ms)
        XCTAssertNil(s.refresh(now: 1_299 * ms, width: 100))
        XCTAssertEqual(s.refresh(now: 1_300 * ms, width: 100), erase + "waiting for GET /api/yf-handset-app/userinfo … 0.3s")
        XCTAssertNil(s.refresh(now: 1_350 * ms, width: 100), "same text: nothing rewritten")
        XCTAssertEqual(s.refresh(now: 2_250 * ms, width: 100), erase + "waiting for GET /api/yf-handset-app/userinfo … 1.2s")
        XCTAssertEqual(s.end(id: 1), erase, "the last request ending erases the line")
        XCTAssertNil(s.shown)
        XCTAssertNil(s.refresh(now: 3_000 * ms, width: 100))
    }

    func testConcurrentRequestsShowTheOldestPlusHowManyMore() {
        var s = StatusLineState()
        s.commandStarted()
        s.begin(id: 7, label: "GET /a", at: 0)
        s.begin(id: 8, label: "GET /b", at: 10 * ms)
        XCTAssertEqual(s.refresh(now: 500 * ms, width: 80), erase + "waiting for GET /a +1 … 0.5s")
        XCTAssertNil(s.end(id: 7), "one still runs: nothing erased yet")
        XCTAssertEqual(s.refresh(now: 600 * ms, width: 80), erase + "waiting for GET /b … 0.5s")
        XCTAssertEqual(s.end(id: 8), erase)
    }

    func testOutputErasesFirstAndNoDrawingMidLineOrOutsideACommandOrDuringAPrompt() {
        var s = StatusLineState()
        s.begin(id: 1, label: "GET /a", at: 0)
        XCTAssertNil(s.refresh(now: 900 * ms, width: 80), "no command runs: the prompt is being edited")
        s.commandStarted()
        XCTAssertNotNil(s.refresh(now: 900 * ms, width: 80))
        XCTAssertEqual(s.beforeOutput(), erase)
        XCTAssertNil(s.beforeOutput(), "erased once")
        s.afterOutput(endsLine: false)
        XCTAssertNil(s.refresh(now: 1_000 * ms, width: 80), "output left a line open: drawing would erase it")
        s.afterOutput(endsLine: true)
        XCTAssertNotNil(s.refresh(now: 1_100 * ms, width: 80))
        XCTAssertEqual(s.hold(), erase, "a prompt asks: the line goes")
        XCTAssertNil(s.refresh(now: 1_200 * ms, width: 80))
        s.release()
        XCTAssertNotNil(s.refresh(now: 1_300 * ms, width: 80))
        XCTAssertEqual(s.commandEnded(), erase, "the command ended (or was interrupted): nothing left behind")
        XCTAssertNil(s.refresh(now: 1_400 * ms, width: 80))
    }

    func testTextIsSanitizedAndFitsTheWidth() {
        var s = StatusLineState()
        s.commandStarted()
        s.begin(id: 1, label: "GET /x\u{1B}]0;pwned\u{07}/" + String(repeating: "长", count: 60), at: 0)
        let drawn = s.refresh(now: 2_000 * ms, width: 40)!
        XCTAssertTrue(drawn.hasPrefix(erase))
        let text = String(drawn.dropFirst(erase.count))
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, text)
        XCTAssertTrue(text.contains("\\x1b"), text)
        XCTAssertLessThanOrEqual(TextWidth.width(text), 39, text)
        XCTAssertTrue(text.hasSuffix("… 2.0s"), text)
    }

    /// The object around the state: what reaches the descriptor, in order, with an injected clock.
    func testStatusLineWritesEraseBeforeOutputAndOnFinish() throws {
        let written = try ticks(at: [400, 800], label: "GET /api/app/config") { tick, line, fd in
            if tick == 1 { line.output(endsLine: true) { TerminalPrompt.writeAll(fd, "data\n") } }
        }
        XCTAssertEqual(written, erase + "waiting for GET /api/app/config … 0.4s" + erase + "data\n"
            + erase + "waiting for GET /api/app/config … 0.8s" + erase)
    }

    /// While a pager shows the output (less on the same terminal) nothing is drawn or erased; the
    /// line comes back when it quits.
    func testNothingIsDrawnWhileAPagerRuns() throws {
        let written = try ticks(at: [400, 500, 600], label: "GET /page/2") { tick, _, _ in
            if tick == 0 { PagerProcess.running.add(1, ordering: .sequentiallyConsistent) }
            if tick == 2 { PagerProcess.running.subtract(1, ordering: .sequentiallyConsistent) }
        }
        XCTAssertEqual(written, erase + "waiting for GET /page/2 … 0.6s" + erase)
    }

    /// A status line for one request, ticked at `times` (ms) with `before(n, line, fd)` run before the
    /// n-th tick; what reached its descriptor once the command ended.
    private func ticks(at times: [UInt64], label: String, before: (Int, StatusLine, Int32) -> Void) throws -> String {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let now = Clockwork()
        let line = StatusLine(enabled: true, fd: fds[1], width: { 80 }, clock: { now.value }, interval: .seconds(3600))
        line.commandStarted()
        line.requestStarted(id: 1, label: label)
        line.settle()
        for (n, time) in times.enumerated() {
            before(n, line, fds[1])
            now.value = time * ms
            line.tick()
        }
        line.requestFinished(id: 1)
        line.settle()
        line.commandEnded()
        return read(fds[0])
    }

    func testDisabledWritesNothing() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let now = Clockwork()
        let line = StatusLine(enabled: false, fd: fds[1], width: { 80 }, clock: { now.value }, interval: .seconds(3600))
        line.commandStarted()
        line.requestStarted(id: 1, label: "GET /a")
        now.value = 5_000 * ms
        line.tick()
        line.output(endsLine: true) { TerminalPrompt.writeAll(fds[1], "x\n") }
        XCTAssertEqual(read(fds[0]), "x\n")
    }

    func testShownOnlyOnATerminalAndNotForScriptsOrPipedInput() {
        var tty = Terminal.plain
        tty.stderrIsTerminal = true
        XCTAssertTrue(StatusLine.wanted(terminal: tty, mode: .repl))
        XCTAssertTrue(StatusLine.wanted(terminal: tty, mode: .oneShot(["profile"])))
        XCTAssertFalse(StatusLine.wanted(terminal: tty, mode: .script("x.sxk")))
        XCTAssertFalse(StatusLine.wanted(terminal: tty, mode: .stdin))
        XCTAssertFalse(StatusLine.wanted(terminal: .plain, mode: .repl))
    }

    private func read(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&pfd, 1, 0) > 0 {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A settable time for the status line's clock.
private final class Clockwork: @unchecked Sendable {
    private let lock = NSLock()
    private var nanos: UInt64 = 0
    var value: UInt64 {
        get { lock.withLock { nanos } }
        set { lock.withLock { nanos = newValue } }
    }
}
