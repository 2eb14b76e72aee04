import Foundation
import XCTest

/// `keys`: the state under the iOS app's UserDefaults key names, the token masked; `--all` adds sxk's own.
final class KeysTests: XCTestCase {
    func testKeysUseTheAppsKeyNamesAndMaskTheToken() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let token = try XCTUnwrap(ws.token())
        let r = SXK.run(["keys", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let keys = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        XCTAssertEqual(keys["key_in_user_id"] as? Int, 1001, "\(keys)")
        XCTAssertEqual(keys["key_in_role_code"] as? String, "photographer", "\(keys)")
        XCTAssertNotNil(keys["1001_scenic_key_in_permission"], "\(keys)")
        XCTAssertFalse(r.stdout.contains(token), "keys printed the whole token")
        XCTAssertFalse(keys.keys.contains { $0.hasPrefix("sxk_") }, "sxk's own keys without --all: \(keys.keys)")
        let all = try XCTUnwrap(try SXK.run(["keys", "--all", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        XCTAssertTrue(all.keys.contains { $0.hasPrefix("sxk_") }, "no sxk_ key with --all: \(all.keys)")
    }
}
