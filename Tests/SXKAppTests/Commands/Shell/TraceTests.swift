import Foundation
import XCTest

/// `trace on|off`: every request and response on stderr, the token masked; stdout keeps the data alone.
final class TraceTests: XCTestCase {
    func testTraceShowsRequestsOnStderrWithTheTokenMaskedUntilOff() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let token = try XCTUnwrap(ws.token())
        let r = SXK.run(["-c", "trace on; config --jq .minVersion; get /api/yf-handset-app/role-permission --jq length; trace off; get /api/yf-handset-app/userinfo --jq .userId"],
                        in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 3, "data alone on stdout: \(r.summary)")
        XCTAssertTrue(r.stderrLines.contains { $0.hasPrefix("> GET ") && $0.hasSuffix("/api/app/config") }, r.summary)
        XCTAssertTrue(r.stderr.contains("token: ***"), r.summary)
        XCTAssertFalse(r.stderr.contains(token), "the trace showed the token")
        XCTAssertFalse(r.stderr.contains("/api/yf-handset-app/userinfo"), "traced after trace off: \(r.summary)")
    }
}
