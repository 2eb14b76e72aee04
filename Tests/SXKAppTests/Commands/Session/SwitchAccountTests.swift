import Foundation
import XCTest

/// `switch-account ID|INDEX|-`: another account of this login through set-user; `-` goes back.
final class SwitchAccountTests: XCTestCase {
    func testSwitchAccountTakesAnotherAccountAndDashGoesBack() throws {
        let ws = Workspace()
        let script = "login 13800000004 --password-stdin --accept-privacy --account 1; switch-account 4003; whoami --jq .userId; switch-account -; whoami --jq .userId"
        let r = SXK.run(["-c", script], in: ws, baseURL: SharedSandbox.url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout, "4003\n4001\n", r.summary)
        XCTAssertTrue(r.stderr.contains("switched to 千岛湖湖畔影棚 · 门店管理员 (user 4003, store, role storeAdmin)"), r.summary)
    }

    /// A login with one account has nothing to choose: a bare `switch-account` says it is already on it
    /// (no "1 accounts" list, no "several accounts" error).
    func testBareSwitchAccountOnAOneAccountLoginHasNothingToChoose() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "login 13800000001 --password-stdin --accept-privacy; switch-account"], in: ws, baseURL: SharedSandbox.url, stdin: SXK.password + "\n")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("already on"), r.summary)
        XCTAssertFalse(r.stderr.contains("1 accounts"), r.summary)
        XCTAssertFalse(r.stderr.contains("several accounts"), r.summary)
    }

    /// Several accounts and no terminal: the error names switch-account's own way to choose.
    func testBareSwitchAccountWithoutATerminalSaysHowToName() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "login 13800000004 --password-stdin --accept-privacy --account 1; switch-account"], in: ws, baseURL: SharedSandbox.url, stdin: SXK.password + "\n")
        XCTAssertNotEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("switch-account ID|INDEX"), r.summary)
        XCTAssertFalse(r.stderr.contains("--account ID|INDEX"), r.summary)
    }
}
