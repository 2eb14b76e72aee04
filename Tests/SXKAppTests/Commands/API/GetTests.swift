import Foundation
import XCTest

/// `get PATH`: a raw call with the session's token; the data on stdout, the status line on stderr.
final class GetTests: XCTestCase {
    func testGetSendsTheSessionsTokenAndPrintsTheDataAlone() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["get", "/api/yf-handset-app/userinfo", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let data = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(data.wireInt("userId"), 1001, r.summary)
        XCTAssertTrue(r.stderr.contains("200 · code 100000"), r.summary)
        XCTAssertFalse(r.stdout.contains("200 · code"), "the status line reached stdout: \(r.summary)")
    }

    /// An empty PATH is a usage error, not a request for the server's root (nor for `compare`).
    func testAnEmptyPathIsAUsageErrorAndSendsNothing() throws {
        let ws = Workspace()
        for line in [["get", ""], ["post", " "], ["compare", "--as", "current", "--", "get", ""]] {
            let r = SXK.run(line, in: ws, baseURL: SharedSandbox.url)
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertTrue(r.stderr.hasSuffix("needs a PATH\n"), r.summary)
        }
    }
}
