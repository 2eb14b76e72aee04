import Foundation
import XCTest

/// The prompt names a profile that is not its environment's own, so a session in `dev` never
/// looks like the plain `test` or base-URL one.
final class ProfilePromptPTYTests: SandboxPTYTestCase {
    func testPromptNamesANonDefaultProfile() throws {
        let session = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--profile", "dev"],
                                     environment: environment)
        try session.expect("sxk custom:dev (logged out) › ")
        try session.waitForEditor()
        session.send("exit\r")
        XCTAssertEqual(try session.waitForExit(), 0)
        // The environment's own profile keeps the short prompt.
        let plain = try start()
        XCTAssertFalse(plain.screen.contains("custom:"), plain.screen)
        plain.send("exit\r")
        XCTAssertEqual(try plain.waitForExit(), 0)
    }
}
