import Foundation
import XCTest
import SXKSandbox
import SXKTestSupport

/// The two-pass mechanism itself: set-up, body and tear-down once per spelling, in that order, and the
/// Harness of each pass on a sandbox of that pass's spelling.
final class BothSpellingsPassTests: XCTestCase {
    private final class Probe: BothSpellingsTestCase, @unchecked Sendable {
        var log: [String] = []
        override func setUp() {
            super.setUp()
            log.append("setUp \(SpellingUnderTest.current)")
        }
        override func tearDown() {
            log.append("tearDown \(SpellingUnderTest.current)")
            super.tearDown()
        }
        func body() throws {
            let h = try Harness()
            log.append("body \(h.sandbox.config.spelling)")
        }
    }

    func testEachTestRunsOncePerSpellingWithSetUpAndTearDownAroundEachPass() {
        let probe = Probe(name: "probe", testClosure: { try ($0 as! Probe).body() })
        probe.invokeTest()
        XCTAssertEqual(probe.log, ["setUp camel", "body camel", "tearDown camel", "setUp snake", "body snake", "tearDown snake"])
        XCTAssertEqual(SpellingUnderTest.current, .camel, "the next test starts camelCase")
    }
}
