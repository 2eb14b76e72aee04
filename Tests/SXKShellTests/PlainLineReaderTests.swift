import Foundation
import XCTest
@testable import SXKShell

#if canImport(Glibc)
import Glibc
#endif

/// The plain reader: on a terminal without libedit a Ctrl-C ends the prompt's read even when it came
/// after the prompt was drawn but before the read began, when no read is there for the signal to
/// interrupt, and a resize does not; piped input reads as before. The signal handler's part is its
/// byte on the wake-up pipe, which the tests write themselves.
final class PlainLineReaderTests: XCTestCase {
    private var savedWake: (Int32, Int32) = (-1, -1)
    private var wake: [Int32] = [-1, -1]

    override func setUpWithError() throws {
        savedWake = (SignalRouter.editorWakeRead.load(ordering: .relaxed), SignalRouter.editorWakeWrite.load(ordering: .relaxed))
        XCTAssertEqual(pipe(&wake), 0)
        for fd in wake {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        SignalRouter.editorWakeRead.store(wake[0], ordering: .sequentiallyConsistent)
        SignalRouter.editorWakeWrite.store(wake[1], ordering: .sequentiallyConsistent)
    }

    override func tearDown() {
        SignalRouter.editorWakeRead.store(savedWake.0, ordering: .sequentiallyConsistent)
        SignalRouter.editorWakeWrite.store(savedWake.1, ordering: .sequentiallyConsistent)
        for fd in wake { close(fd) }
    }

    private func writeByte(_ fd: Int32, _ byte: Character) {
        var b = byte.asciiValue!
        XCTAssertEqual(write(fd, &b, 1), 1)
    }

    /// Whether `fd` has bytes within `seconds` (then reads them), so a missing prompt fails the test
    /// instead of blocking it.
    private func readsWithin(_ fd: Int32, _ seconds: Double) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(seconds * 1000)) == 1 else { return false }
        var b = [UInt8](repeating: 0, count: 64)
        return read(fd, &b, b.count) > 0
    }

    private func pipes(_ n: Int) -> [[Int32]] {
        (0..<n).map { _ in
            var fds: [Int32] = [-1, -1]
            XCTAssertEqual(pipe(&fds), 0)
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return fds
        }
    }

    /// Runs one `readLine` on a thread of its own; `done` is signalled with the result in `box`.
    private func startRead(_ reader: PlainLineReader, _ box: ResultBox, _ done: DispatchSemaphore) {
        Thread.detachNewThread {
            box.value = reader.readLine(prompt: PromptText("› "))
            done.signal()
        }
    }

    func testCtrlCJustBeforeTheReadBeginsEndsIt() throws {
        let p = pipes(2), input = p[0], prompt = p[1]
        defer { for fd in input + prompt { close(fd) } }
        let reader = PlainLineReader(fd: input[0], promptFD: prompt[1])

        // A Ctrl-C from before the prompt (one that stopped the last command) is not this prompt's.
        writeByte(wake[1], "i")
        let first = DispatchSemaphore(value: 0), box = ResultBox()
        startRead(reader, box, first)
        XCTAssertTrue(readsWithin(prompt[0], 5), "no prompt")
        XCTAssertEqual(first.wait(timeout: .now() + 0.3), .timedOut, "an old Ctrl-C ended the new prompt: \(String(describing: box.value))")
        _ = "whoami\n".withCString { write(input[1], $0, 7) }
        XCTAssertEqual(first.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(box.value, .line("whoami"))

        // One typed once the prompt is drawn, with no read yet for the signal to interrupt: only its
        // byte on the wake-up pipe is there. Without the wake-up pipe in the read this hangs.
        let second = DispatchSemaphore(value: 0), secondBox = ResultBox()
        startRead(reader, secondBox, second)
        XCTAssertTrue(readsWithin(prompt[0], 5), "no second prompt")
        writeByte(wake[1], "i")
        let ended = second.wait(timeout: .now() + 5) == .success
        if !ended { _ = "\n".withCString { write(input[1], $0, 1) } }  // let the reader go
        XCTAssertTrue(ended, "the Ctrl-C did not end the read")
        XCTAssertEqual(secondBox.value, .interrupted)
    }

    /// A resize (its `W` on the wake-up pipe) does not end the prompt's read: the line typed after it does.
    func testAResizeLeavesTheReadGoing() throws {
        let p = pipes(2), input = p[0], prompt = p[1]
        defer { for fd in input + prompt { close(fd) } }
        let reader = PlainLineReader(fd: input[0], promptFD: prompt[1])
        let done = DispatchSemaphore(value: 0), box = ResultBox()
        startRead(reader, box, done)
        XCTAssertTrue(readsWithin(prompt[0], 5), "no prompt")
        writeByte(wake[1], "W")
        let endedEarly = done.wait(timeout: .now() + 0.3) == .success
        XCTAssertFalse(endedEarly, "a resize ended the read: \(String(describing: box.value))")
        _ = "stats\n".withCString { write(input[1], $0, 6) }
        if !endedEarly { XCTAssertEqual(done.wait(timeout: .now() + 5), .success) }
        XCTAssertEqual(box.value, .line("stats"))
    }

    /// Piped input (no prompt) reads as it always did: a Ctrl-C's byte on the wake-up pipe is not its.
    func testPipedInputIgnoresTheWakeUpPipe() throws {
        let input = pipes(1)[0]
        defer { for fd in input { close(fd) } }
        let reader = PlainLineReader(fd: input[0])
        writeByte(wake[1], "i")
        _ = "whoami\n".withCString { write(input[1], $0, 7) }
        let done = DispatchSemaphore(value: 0), box = ResultBox()
        startRead(reader, box, done)
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(box.value, .line("whoami"))
        var left: UInt8 = 0
        XCTAssertEqual(read(wake[0], &left, 1), 1, "the piped read took the wake-up byte")
    }
}

private final class ResultBox: @unchecked Sendable {
    var value: LineReadResult?
}
