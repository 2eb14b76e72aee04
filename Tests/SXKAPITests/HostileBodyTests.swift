import Foundation
import XCTest
import SXKCore
@testable import SXKAPI

/// Bodies built to be expensive (huge, many secret members, deep) cost about what a
/// small one does, and still give one short, redacted line.
final class HostileBodyTests: XCTestCase {
    /// 8 MiB of `{"token":"…"}` members that is not JSON: the error excerpt must not scrub the whole body
    /// member by member (that was quadratic: minutes for this body).
    func testExcerptOfABodyFullOfSecretMembersIsCheap() async {
        var body = Array("<html>".utf8)
        let member = Array("{\"token\":\"\(Fixture.sentinelToken)\"},".utf8)
        while body.count < 8 << 20 { body += member }
        let reply = HTTPResponse(status: 502, headers: HTTPHeaders([("Content-Type", "text/html")]), body: body)
        let client = Fixture.client { _ in reply }
        let started = Date()
        let error = await Fixture.expectError { try await client.get("/api/app/config") }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 2, "excerpt of an 8 MiB body took \(elapsed) s")
        let line = String(describing: error)
        XCTAssertEqual(error?.kind, .notJSON, line)
        XCTAssertFalse(line.contains(Fixture.sentinelToken), line)
        XCTAssertFalse(line.contains("\n"), line)
        XCTAssertLessThan(line.count, 400, line)
    }

    /// A known secret cut in half by the excerpt's 200-byte limit shows no part of itself.
    func testSecretStraddlingTheExcerptCutIsNotHalfShown() async {
        for offset in [180, 190, 199] {
            let text = String(repeating: "x", count: offset) + Fixture.sentinelToken + String(repeating: "y", count: 100)
            let client = Fixture.client { _ in HTTPResponse(status: 502, text: text) }
            let error = await Fixture.expectError { try await client.get("/api/app/config") }
            let line = String(describing: error)
            XCTAssertFalse(line.contains(String(Fixture.sentinelToken.prefix(8))), "offset \(offset): \(line)")
        }
    }
}
