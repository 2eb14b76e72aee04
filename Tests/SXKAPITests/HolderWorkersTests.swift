import Foundation
import XCTest
@testable import SXKAPI

/// The holder's worker threads: a client is served by a thread started for it, and one no thread can
/// take (thread creation failing) is given back to the caller, which closes it and counts it done, so the
/// client sends directly and the holder still goes idle.
final class HolderWorkersTests: XCTestCase {
    func testAClientNoThreadCanTakeIsGivenBack() {
        let failing = ConnectionHolder.Workers(serve: { _ in XCTFail("no thread, nothing served") },
                                               startThread: { _, _, _ in EAGAIN })
        XCTAssertFalse(failing.hand(41), "handed back to the caller")
        XCTAssertFalse(failing.hand(42), "and the next one too: none is left waiting")
    }

    func testAClientIsServedOnAThreadStartedForIt() {
        let served = expectation(description: "served")
        let seen = Locked<[Int32]>([])
        let workers = ConnectionHolder.Workers(serve: { client in
            seen.update { $0.append(client) }
            served.fulfill()
        })
        XCTAssertTrue(workers.hand(43))
        wait(for: [served], timeout: 10)
        XCTAssertEqual(seen.value, [43])
    }
}

private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
