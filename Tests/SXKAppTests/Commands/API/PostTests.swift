import Foundation
import XCTest

/// `post PATH ITEM…`: items become the JSON body; a server error is one line and exit 1.
final class PostTests: XCTestCase {
    func testPostSendsItemsAsTheBodyAndAServerErrorIsOneLine() {
        let ws = Workspace()
        let missing = SXK.run(["post", "/api/app/v9/login", "username=13800000001"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(missing.status, 1, missing.summary)
        XCTAssertEqual(missing.errorLines.count, 1, missing.summary)
        XCTAssertTrue(missing.errorLines.first?.contains("password") == true, "the server's answer names what the body lacked: \(missing.summary)")
        XCTAssertFalse(missing.errorLines.first?.contains("username") == true, "username was not in the body: \(missing.summary)")
        XCTAssertEqual(missing.stdout, "", missing.summary)
    }
}
