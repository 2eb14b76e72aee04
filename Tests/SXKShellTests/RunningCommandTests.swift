import Foundation
import XCTest
@testable import SXKShell

/// Ctrl-C and the running command: one that comes before the command can be cancelled stops it as it
/// starts when asked to (a one-shot, a script), once; otherwise it is dropped (the REPL's prompt).
final class RunningCommandTests: XCTestCase {
    private func slowCommand() -> @Sendable () async throws -> Int32 {
        { try await Task.sleep(nanoseconds: 5_000_000_000); return 0 }
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
        let end = await running.run { 7 }
        guard case .finished(7) = end else { return XCTFail("\(end)") }
    }

    func testAKeptInterruptIsUsedOnce() async {
        let running = RunningCommand()
        running.cancel(orNext: true)
        let first = await running.run(slowCommand())
        XCTAssertTrue(isCancelled(first), "\(first)")
        let second = await running.run { 3 }
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
        let second = await running.run { 4 }
        guard case .finished(4) = second else { return XCTFail("\(second)") }
    }
}
