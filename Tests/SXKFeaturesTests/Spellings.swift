import Foundation
import XCTest
import SXKSandbox

/// The spelling the sandbox of the running test answers in (tests run one at a time).
enum SpellingUnderTest {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var value = SandboxSpelling.camel
    static var current: SandboxSpelling {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// Base of the feature tests that run against both spellings the wire contract allows: every test
/// runs twice, first against camelCase answers, then against a sandbox answering snake_case with
/// numbers and booleans as strings and `message` for `msg` (`SandboxSpelling`). A failure names the
/// pass it happened in. (A subclass per spelling would not do: test discovery on Linux lists only the
/// methods a class declares itself.)
class BothSpellingsTestCase: XCTestCase {
    class var spellings: [SandboxSpelling] { SandboxSpelling.allCases }

    /// Index into `spellings` of the pass under way.
    private var pass = 0

    /// Each test method's body runs once per spelling in one test case: XCTest finalizes a case's
    /// teardown state once, so `invokeTest` cannot simply run twice. Between passes the case is torn
    /// down and set up again, as XCTest does around the whole test.
    required init(name: String, testClosure: @escaping XCTestCaseClosure) {
        super.init(name: name, testClosure: { testCase in
            guard let both = testCase as? BothSpellingsTestCase else { return try testClosure(testCase) }
            try both.runEveryPass { try testClosure(testCase) }
        })
    }

    override func invokeTest() {
        pass = 0
        SpellingUnderTest.current = Self.spellings[0]
        super.invokeTest()
        SpellingUnderTest.current = .camel
    }

    private func runEveryPass(_ body: () throws -> Void) throws {
        for index in Self.spellings.indices {
            if index > 0 {
                tearDown()
                try tearDownWithError()
                pass = index
                SpellingUnderTest.current = Self.spellings[index]
                try setUpWithError()
                setUp()
            }
            try body()
        }
    }

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        let label = Self.spellings.count > 1 ? "[\(Self.spellings[pass]) answers] " : ""
        super.recordFailure(withDescription: label + description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
}

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
