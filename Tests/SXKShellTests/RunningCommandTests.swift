import Foundation
import XCTest
import SXKCore
@testable import SXKShell

/// Ctrl-C and the running command: one that comes before the command can be cancelled stops it as it
/// starts when asked to (a one-shot, a script), once; otherwise it is dropped (the REPL's prompt).
final class RunningCommandTests: XCTestCase {
    private func slowCommand() -> @Sendable () async throws -> Int32 {
        { try await Task.sleep(nanoseconds: 5_000_000_000); return 0 }
    }

    /// Outlives the grace and notices cancellation: it returns `status` only when not cancelled.
    private func command(returning status: Int32) -> @Sendable () async throws -> Int32 {
        { try await Task.sleep(nanoseconds: 500_000_000); return status }
    }

    private func isCancelled(_ end: RunningCommand.CommandEnd) -> Bool {
        if case .failed(let error) = end { return error is CancellationError }
        return false
    }

    func testAnInterruptKeptForTheNextCommandCancelsItAsItStarts() async {
        let running = RunningCommand()
        running.cancel(orNext: true)
        let started = Date()
        let end = await running.run(slowCommand())
        XCTAssertTrue(isCancelled(end), "\(end)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "the command ran on")
    }

    func testAnInterruptNotKeptIsDropped() async {
        let running = RunningCommand()
        running.cancel()
        let end = await running.run(command(returning: 7))
        guard case .finished(7) = end else { return XCTFail("\(end)") }
    }

    func testAKeptInterruptIsUsedOnce() async {
        let running = RunningCommand()
        running.cancel(orNext: true)
        let first = await running.run(slowCommand())
        XCTAssertTrue(isCancelled(first), "\(first)")
        let second = await running.run(command(returning: 3))
        guard case .finished(3) = second else { return XCTFail("\(second)") }
    }

    func testAnInterruptWhileACommandRunsCancelsOnlyThatCommand() async {
        let running = RunningCommand()
        Task {
            try? await Task.sleep(nanoseconds: 100_000_000)
            running.cancel(orNext: true)
        }
        let first = await running.run(slowCommand())
        XCTAssertTrue(isCancelled(first), "\(first)")
        let second = await running.run(command(returning: 4))
        guard case .finished(4) = second else { return XCTFail("\(second)") }
    }

    /// The shell asks before a command starts (builtins too): the kept interrupt is taken once.
    func testAKeptInterruptIsTakenOnceBeforeTheNextCommandStarts() async {
        let running = RunningCommand()
        XCTAssertFalse(running.takeKeptInterrupt())
        running.cancel()
        XCTAssertFalse(running.takeKeptInterrupt(), "kept without orNext")
        running.cancel(orNext: true)
        XCTAssertTrue(running.takeKeptInterrupt())
        XCTAssertFalse(running.takeKeptInterrupt())
        let end = await running.run(command(returning: 5))
        guard case .finished(5) = end else { return XCTFail("\(end)") }
    }

    /// An interrupt that comes after a command has ended, while its cancel is still in place, is kept
    /// for the next command, not spent on the finished one.
    func testAnInterruptAfterTheCommandEndedIsKept() async {
        let running = RunningCommand()
        let first = await running.run { 0 }
        guard case .finished(0) = first else { return XCTFail("\(first)") }
        running.cancel(orNext: true)
        XCTAssertTrue(running.takeKeptInterrupt())
    }

    /// A command interrupted in the middle of a write of state files that belong together (an
    /// import's keys and token) is waited for until that write ends, past the grace: no half of it is
    /// left when the shell returns to the prompt or the process ends.
    func testAnInterruptWaitsForAStateWriteInProgress() async {
        let running = RunningCommand()
        let done = Flag()
        let write: @Sendable () async throws -> Int32 = {
            StateWrites.together { usleep(600_000); done.set() }
            return 0
        }
        let started = Date()
        Task { try? await Task.sleep(nanoseconds: 50_000_000); running.cancel() }
        _ = await running.run(write)
        XCTAssertTrue(done.value, "the run ended while the write was still going")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.5)
    }

    /// The end of a process waits for a state write in progress, at most as long as asked by the
    /// clock, and says so once when the wait lasts.
    func testTheEndWaitsForAStateWriteAtMostAsLongAsAsked() {
        let done = Flag(), said = Flag()
        Thread.detachNewThread { StateWrites.together { usleep(800_000); done.set() } }
        while !StateWrites.inProgress { usleep(1_000) }
        let started = Date()
        XCTAssertFalse(StateWrites.waitForNone(atMost: 0.2))
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.6)
        XCTAssertTrue(StateWrites.waitForNone(atMost: 5) { said.set() })
        XCTAssertTrue(done.value)
        XCTAssertTrue(said.value, "a wait past half a second was not said")
    }

    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var set_ = false
        func set() { lock.lock(); set_ = true; lock.unlock() }
        var value: Bool { lock.lock(); defer { lock.unlock() }; return set_ }
    }
}
