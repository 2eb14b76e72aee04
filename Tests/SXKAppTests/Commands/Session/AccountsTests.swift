import Foundation
import XCTest

/// `accounts`: the accounts of this login, kept in the profile, the current one marked.
final class AccountsTests: XCTestCase {
    func testAccountsListsTheLoginsAccountsWithTheCurrentMarked() throws {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: SharedSandbox.url, account: "2")
        let r = SXK.run(["accounts", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let accounts = try XCTUnwrap(try r.json() as? [[String: Any]], r.summary)
        XCTAssertEqual(accounts.map { $0.wireInt("userId") }, [4001, 4002, 4003], r.summary)
        XCTAssertEqual(accounts.filter { $0["current"] as? Bool == true }.map { $0.wireInt("userId") }, [4002], r.summary)
        XCTAssertFalse(r.stdout.contains("sxk_"), "a token in the account list: \(r.summary)")
    }
}
