import Foundation
import SXKSandbox
import XCTest

/// The spelling the sandboxes of the running test answer in (tests run one at a time).
public enum SpellingUnderTest {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var value = SandboxSpelling.camel
    public static var current: SandboxSpelling {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// Base of the test classes that run against both spellings the wire contract allows: each test
/// runs once per entry of `spellings`, camelCase answers first, then a sandbox answering snake_case
/// with numbers and booleans as strings and `message` for `msg` (`SandboxSpelling`); a failure names
/// its pass. (A subclass per spelling would not do: test discovery on Linux lists only a class's own
/// methods.)
open class BothSpellingsTestCase: XCTestCase {
    open class var spellings: [SandboxSpelling] { SandboxSpelling.allCases }

    /// Index into `spellings` of the pass under way.
    private var pass = 0

    /// Each test method's body runs once per spelling in one test case: XCTest finalizes a case's
    /// teardown state once, so `invokeTest` cannot simply run twice. Between passes the case is torn
    /// down and set up again, as XCTest does around the whole test.
    public required init(name: String, testClosure: @escaping XCTestCaseClosure) {
        super.init(name: name, testClosure: { testCase in
            guard let both = testCase as? BothSpellingsTestCase else { return try testClosure(testCase) }
            try both.runEveryPass { try testClosure(testCase) }
        })
    }

    override open func invokeTest() {
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

    override open func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        let label = Self.spellings.count > 1 ? "[\(Self.spellings[pass]) answers] " : ""
        super.recordFailure(withDescription: label + description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
}
