import Foundation
import XCTest

/// `location`: the location state the app keeps on the device; `online` / `offline` change it locally.
final class LocationTests: XCTestCase {
    func testOnlineAndOfflineChangeTheStoredState() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        func online() throws -> Bool? {
            let r = SXK.run(["location", "--json"], in: ws, baseURL: SharedSandbox.url)
            XCTAssertEqual(r.status, 0, r.summary)
            return try XCTUnwrap(try r.json() as? [String: Any], r.summary)["online"] as? Bool
        }
        XCTAssertEqual(try online(), false)
        let on = SXK.run(["location", "online"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(on.status, 0, on.summary)
        XCTAssertTrue(on.stderr.contains("stored locally only"), on.summary)
        XCTAssertEqual(try online(), true)
        XCTAssertEqual(SXK.run(["location", "offline"], in: ws, baseURL: SharedSandbox.url).status, 0)
        XCTAssertEqual(try online(), false)
    }
}
