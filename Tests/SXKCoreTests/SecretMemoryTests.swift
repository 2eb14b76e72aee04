import XCTest
@testable import SXKCore

/// What a process remembers of the secrets it sent: long enough, not digits (which would mask ids
/// and amounts for the rest of the run), bounded, newest kept; one matcher for all of them.
final class SecretMemoryTests: XCTestCase {
    override func setUp() { SecretMemory.reset() }
    override func tearDown() { SecretMemory.reset() }

    func testOnlyValuesThatCanBeSecretsAreKept() {
        SecretMemory.remember(["0001", "000000", "138 0000 0001", "abc", "***", "Hunter2Secret99", "sxk_0123456789abcdef"])
        XCTAssertEqual(SecretMemory.all, ["Hunter2Secret99", "sxk_0123456789abcdef"])
        SecretMemory.remember(["Hunter2Secret99"])
        XCTAssertEqual(SecretMemory.all.count, 2, "a value is kept once")
        XCTAssertEqual(SecretMemory.mask("user p:Hunter2Secret99 · 100010"), "user p:*** · 100010")
    }

    func testTheNewestAreKeptAndTheMatcherFollows() throws {
        let values = (0..<(SecretMemory.limit + 5)).map { "secret-value-\($0)" }
        SecretMemory.remember(values)
        XCTAssertEqual(SecretMemory.all, Array(values.suffix(SecretMemory.limit)))
        XCTAssertEqual(SecretMemory.mask("a secret-value-0 b"), "a secret-value-0 b", "the oldest was let go")
        let matcher = try XCTUnwrap(SecretMemory.matcher)
        XCTAssertTrue(matcher.holds("x \(values.last!) y"))
        SecretMemory.reset()
        XCTAssertNil(SecretMemory.matcher)
    }
}
