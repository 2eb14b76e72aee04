import Foundation
import XCTest
import SXKCore

/// `DetachedThread` runs its closure on a thread of its own, with the name given (the kernel keeps 15 bytes).
final class DetachedThreadTests: XCTestCase {
    func testDetachedThreadRunsTheClosureOnANamedThreadOfItsOwn() throws {
        let done = expectation(description: "ran")
        let caller = pthread_self()
        final class Seen: @unchecked Sendable { var name = ""; var other = false }
        let seen = Seen()
        XCTAssertEqual(DetachedThread.start(name: "sxk-test-thread-long-name", stackSize: 256 << 10) {
            seen.other = pthread_equal(pthread_self(), caller) == 0
            #if os(Linux)
            seen.name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            #endif
            done.fulfill()
        }, 0)
        wait(for: [done], timeout: 10)
        XCTAssertTrue(seen.other)
        #if os(Linux)
        XCTAssertEqual(seen.name, "sxk-test-thread\n", "the first 15 bytes of the name")
        #endif
    }
}
