import Foundation
import XCTest

/// `curl [N]`: a request this shell sent, as a curl command that sends it again, the token left to `$SXK_TOKEN`.
final class CurlTests: XCTestCase {
    func testCurlPrintsTheLastRequestWithTheTokenAsAVariable() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let token = try XCTUnwrap(ws.token())
        let r = SXK.run(["-c", "config --json; get /api/yf-handset-app/userinfo --json; curl; curl -2"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let commands = r.stdout.components(separatedBy: "curl '").dropFirst()
        XCTAssertEqual(commands.count, 2, r.summary)
        XCTAssertTrue(commands.first?.contains("/api/yf-handset-app/userinfo'") == true, "curl: the last request: \(r.summary)")
        XCTAssertTrue(commands.last?.contains("/api/app/config'") == true, "curl -2: the one before: \(r.summary)")
        XCTAssertTrue(r.stdout.contains("-H \"token: $SXK_TOKEN\""), r.summary)
        XCTAssertFalse(r.stdout.contains(token), "curl printed the token")
    }
}
