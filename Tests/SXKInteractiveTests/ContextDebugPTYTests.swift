import Foundation
import SXKSandbox
import XCTest

/// Account-context debugging in one REPL, as an operator types it.
final class ContextDebugPTYTests: SandboxPTYTestCase {
    /// After `role photographer` in the same shell, `role:scenicAdmin` is still probed as scenicAdmin:
    /// the matrix shows two identities, not the current one twice and `same`.
    func testCompareByRoleAfterRoleSwitchProbesTwoIdentities() throws {
        let s = try start()
        s.send("login 13800000002 --accept-privacy\r")
        try s.expect("password:")
        s.send("sandbox123\r")
        try s.expect("logged in as", timeout: 30)
        try s.expect("›")
        s.send("role photographer\r")
        try s.expect("now role photographer")
        try s.expect("›")
        s.send("compare --as role:photographer,role:scenicAdmin -- orders --page-size 3\r")
        // The matrix's title goes to stderr before the table; the table ends at the next prompt.
        let shown = try s.expect("diff against", timeout: 30) + (try s.expect("›", timeout: 30))
        let rows = shown.split(separator: "\n").map(String.init).filter { $0.contains("role:") && $0.contains("2001") }
        XCTAssertEqual(rows.count, 2, shown)
        // The pty is narrow: the AS column is cut (`2001 photogr…`), the identity still shows whole.
        XCTAssertTrue(rows.contains { $0.contains("role:photographer") && $0.contains("2001 photogr") }, "\(rows)")
        XCTAssertTrue(rows.contains { $0.contains("role:scenicAdmin") && $0.contains("2001 scenicA") }, "\(rows)")
        XCTAssertFalse(rows.last?.contains("same") ?? true, "the second identity reported as the same:\n\(shown)")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }
}
