import Foundation
import XCTest
@testable import SXKShell

#if canImport(Glibc)
import Glibc
#endif

/// The reader of a terminal without libedit: a Ctrl-C ends the prompt's read even when it came after
/// the prompt was drawn but before the read began, when no read is there for the signal to interrupt.
/// The signal handler's part is its byte on the wake-up pipe, which the test writes itself.
final class PlainLineReaderTests: XCTestCase {
    private var savedWake: (Int32, Int32) = (-1, -1)
    private var wake: [Int32] = [-1, -1]

    override func setUpWithError() throws {
        savedWake = (SignalRouter.editorWakeRead.load(ordering: .relaxed), SignalRouter.editorWakeWrite.load(ordering: .relaxed))
        XCTAssertEqual(pipe(&wake), 0)
        for fd in wake { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
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

    func testCtrlCJustBeforeTheReadBeginsEndsIt() throws {
        var input: [Int32] = [-1, -1], prompt: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&input), 0)
        XCTAssertEqual(pipe(&prompt), 0)
        defer { for fd in input + prompt { close(fd) } }
        let reader = PlainLineReader(fd: input[0], promptFD: prompt[1])

        // A Ctrl-C from before the prompt (one that stopped the last command) is not this prompt's.
        writeByte(wake[1], "i")
        let first = DispatchSemaphore(value: 0)
        let box = ResultBox()
        Thread.detachNewThread {
            box.value = reader.readLine(prompt: PromptText("› "))
            first.signal()
        }
        var shown = [UInt8](repeating: 0, count: 16)
        XCTAssertGreaterThan(read(prompt[0], &shown, shown.count), 0, "no prompt")
        XCTAssertEqual(first.wait(timeout: .now() + 0.3), .timedOut, "an old Ctrl-C ended the new prompt: \(String(describing: box.value))")
        _ = "whoami\n".withCString { write(input[1], $0, 6 + 1) }
        XCTAssertEqual(first.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(box.value, .line("whoami"))

        // One typed once the prompt is drawn, with no read yet for the signal to interrupt: only its
        // byte on the wake-up pipe is there. Without the wake-up pipe in the read this hangs.
        let drawn = DispatchSemaphore(value: 0), promptRead = prompt[0]
        Thread.detachNewThread {
            var b = [UInt8](repeating: 0, count: 16)
            if read(promptRead, &b, b.count) > 0 { drawn.signal() }
        }
        let interrupted = DispatchSemaphore(value: 0)
        let second = ResultBox()
        Thread.detachNewThread {
            second.value = reader.readLine(prompt: PromptText("› "))
            interrupted.signal()
        }
        XCTAssertEqual(drawn.wait(timeout: .now() + 5), .success, "no second prompt")
        writeByte(wake[1], "i")
        let ended = interrupted.wait(timeout: .now() + 5) == .success
        if !ended { _ = "\n".withCString { write(input[1], $0, 1) } }  // let the reader go
        XCTAssertTrue(ended, "the Ctrl-C did not end the read")
        XCTAssertEqual(second.value, .interrupted)
    }
}

private final class ResultBox: @unchecked Sendable {
    var value: LineReadResult?
}
