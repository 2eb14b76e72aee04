import Foundation
import SXKSandbox
import XCTest

/// A REPL whose profile another sxk process logs into or out of: its next command runs as the
/// stored session, says so in one line, and never writes the old account's scope into the new
/// account's state.
final class OtherProcessSessionPTYTests: SandboxPTYTestCase {
    private func stored() throws -> [String: Any] {
        let data = try Data(contentsOf: profileDir.appendingPathComponent("defaults.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// A line that holds the live token (pasted into a header or a keyword) never reaches the
    /// history file, whatever happens to the session afterwards.
    func testALineHoldingTheLiveTokenStaysOutOfTheHistoryFile() throws {
        try logIn("13800000001")
        let token = try String(contentsOf: profileDir.appendingPathComponent("token"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let s = try start()
        s.send("orders --keyword \(token) --page-size 1\r")
        try s.expect("›")
        // In the forms output masks it in too: another case, a 20-character part.
        s.send("orders --keyword \(token.uppercased()) --page-size 1\r")
        try s.expect("›")
        s.send("orders --keyword x\(token.prefix(20)) --page-size 1\r")
        try s.expect("›")
        s.send("version\r")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        let history = try String(contentsOf: profileDir.appendingPathComponent("history"), encoding: .utf8)
        XCTAssertTrue(history.contains("version"), history)
        XCTAssertFalse(history.contains(token), history)
        XCTAssertFalse(history.contains(token.uppercased()) || history.contains(String(token.prefix(20))), history)
        XCTAssertFalse(history.contains("keyword"), history)
    }

    func testAnotherLoginOrLogoutIsReadBeforeTheNextCommand() throws {
        try logIn("13800000004", extra: ["--account", "4003"])
        let s = try start()
        s.send("whoami --jq .userId\r")
        try s.expect("4003")
        try s.expect("›")
        // Another process logs in as another account (store 101 of 西湖景区).
        try logIn("13800000003")
        s.send("store 302\r")
        try s.expect("another sxk process changed this profile's session: now user 3001")
        try s.expect("›")
        XCTAssertEqual((try stored())["key_in_user_id"] as? Int, 3001)
        XCTAssertNotEqual((try stored())["key_in_current_store_id"] as? Int, 302, "user 4003's store 302 written into 3001's state")
        s.send("whoami --jq .userId\r")
        try s.expect("3001")
        try s.expect("›")
        // Another process logs out: the REPL is logged out too and sends no request with the old token.
        let logout = Process()
        logout.executableURL = URL(fileURLWithPath: InteractiveShellTests.binary)
        logout.arguments = globalArguments + ["logout"]
        logout.environment = environment
        logout.standardOutput = FileHandle.nullDevice
        logout.standardError = FileHandle.nullDevice
        try logout.run()
        logout.waitUntilExit()
        server.resetRequestLog()
        s.send("store 101\r")
        try s.expect("another sxk process ended this profile's session (a logout, or the server's expiry)")
        try s.expect("›")
        XCTAssertTrue(server.requestLog().isEmpty, "\(server.requestLog().map(\.path))")
        XCTAssertNil((try stored())["key_in_user_id"], "the logged-out state got an account back")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A token file this process can no longer trust (made readable by others) is refused once, and
    /// not blamed on another sxk process.
    func testARefusedTokenFileIsSaidOnceAndNotBlamedOnAnotherProcess() throws {
        try logIn("13800000001")
        let s = try start()
        s.send("version\r")
        try s.expect("›")
        XCTAssertEqual(chmod(profileDir.appendingPathComponent("token").path, 0o644), 0)
        s.send("whoami --jq .phase\r")
        let screen = try s.expect("loggedOut")
        try s.expect("›")
        XCTAssertEqual(screen.components(separatedBy: "refusing").count - 1, 1, screen)
        XCTAssertTrue(screen.contains("the stored token is not usable"), screen)
        XCTAssertFalse(screen.contains("another sxk process"), screen)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// In `watch` the line saying another process changed the session is part of the run it changes,
    /// not said before the screen is cleared.
    func testWatchSaysTheChangeInTheRunItChanges() throws {
        try logIn("13800000004", extra: ["--account", "4003"])
        let s = try start()
        s.send("watch -n 1 --count 3 whoami --jq .userId\r")
        try s.expect("run 1/3")
        try logIn("13800000003")
        try s.expect("run 2/3")
        _ = try s.expect("another sxk process changed this profile's session")
        // In the raw bytes (escapes kept): no clear screen between the header of the run the line
        // belongs to (run 2, or 3 when the login took longer than a second) and the line.
        let raw = String(decoding: s.raw, as: UTF8.self)
        let line = try XCTUnwrap(raw.range(of: "another sxk process changed"))
        let header = try XCTUnwrap(raw.range(of: "run ", options: .backwards, range: raw.startIndex..<line.lowerBound))
        XCTAssertFalse(raw[header.lowerBound..<line.lowerBound].contains("\u{1B}[2J"), "the line was cleared away: \(raw[header.lowerBound...].debugDescription)")
        try s.expect("›", timeout: 10)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// The prompt shows the session as it is: a change made by another process while this shell sat
    /// at its prompt is read, and said, before the next prompt is drawn (an empty line is enough).
    func testThePromptIsDrawnForTheSessionAsItIs() throws {
        try logIn("13800000004", extra: ["--account", "4003"])
        let s = try start()
        XCTAssertTrue(s.screen.contains("storeAdmin@千岛湖"), s.screen)
        try logIn("13800000001")
        s.send("\r")
        try s.expect("another sxk process changed this profile's session: now user 1001")
        try s.expect("photographer@")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }
}
