import Foundation
import XCTest

/// `profile`: userinfo written back into the account context; a photographer also gets real-name and bank card.
final class ProfileTests: XCTestCase {
    func testProfileWritesUserInfoBackAndLoadsAPhotographersCards() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["profile", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let profile = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        let user = try XCTUnwrap(profile["userInfo"] as? [String: Any], r.summary)
        XCTAssertEqual(user.wireInt("userId"), 1001)
        XCTAssertTrue((profile["writtenBack"] as? [String] ?? []).contains("userName"), r.summary)
        XCTAssertNotNil(profile["realName"] as? [String: Any], r.summary)
        XCTAssertNotNil(profile["bankCard"] as? [String: Any], r.summary)
        XCTAssertTrue(r.stderr.contains("real-name and bank card loaded beside userinfo, read as if asked after it"), r.summary)
        XCTAssertTrue(r.stderr.contains("[inferred: docs/app-behaviour.md#profile]"), r.summary)
        let table = SXK.run(["profile"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertTrue(table.stdout.contains("138****0001"), "the phone is masked in the table: \(table.summary)")
    }
}
