import Foundation
import SXKSandbox
import XCTest

/// Variables, aliases and history as a person meets them: the startup file runs before the first prompt,
/// `$<Tab>` completes a variable, and `history --here` shows this scope's lines, across restarts.
final class VariablesPTYTests: SandboxPTYTestCase {
    var historyFile: URL { profileDir.appendingPathComponent("history") }

    func writeStartupFile(_ text: String, mode: Int = 0o600) throws -> String {
        let dir = home.appendingPathComponent("config/sxk")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("sxkrc").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func testStartupFileRunsFirstThenDollarTabCompletes() throws {
        try logIn("13800000003")
        let rc = try writeStartupFile("alias so='orders --role storeAdmin'\nbogus\nlet me = whoami .userName\n")
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: environment)
        let before = try s.expect("›")
        XCTAssertTrue(before.contains("error: \(rc):2: unknown command 'bogus'"), before)
        try s.waitForEditor()
        s.send("so --limit 1\r")
        try s.expect("ORDER NO")
        try s.expect("›")
        s.send("let no = $_ .list[0].orderNo\r")
        try s.expect("no = \"SX")
        try s.expect("›")
        s.send("orders --keyword $n\t")
        try s.expect("--keyword $no ")
        s.send("\r")
        try s.expect("1 order ")
        try s.expect("›")
        s.send("vars\r")
        let listing = try s.expect("›")
        XCTAssertTrue(listing.contains("$me") && listing.contains("断桥王店长"), listing)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        let history = try String(contentsOf: historyFile, encoding: .utf8)
        XCTAssertTrue(history.contains("so\\040--limit\\0401"), history)
        XCTAssertFalse(history.contains("alias") || history.contains("bogus") || history.contains("whoami"), "startup lines reached history: \(history)")

        // A startup file others can write is refused with one warning, and the shell still starts.
        _ = try writeStartupFile("alias so='orders'\n", mode: 0o666)
        let loose = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: environment)
        let warned = try loose.expect("›")
        XCTAssertTrue(PTYSession.unwrapped(warned).contains("warning: not running \(rc): others can write it"), warned)
        try loose.waitForEditor()
        loose.send("alias\r")
        try loose.expect("›")
        loose.send("exit\r")
        XCTAssertEqual(try loose.waitForExit(), 0)
        XCTAssertFalse(PTYSession.strip(loose.raw).contains("alias so="), "the refused file ran")
    }

    func testHistoryHereShowsOnlyThisScopeAcrossRestarts() throws {
        try logIn("13800000002")
        let s = try start()
        s.send("orders --limit 1\r")
        try s.expect("ORDER NO")
        try s.expect("›")
        s.send("role photographer\r")
        try s.expect("now role photographer")
        try s.expect("›")
        s.send("whoami\r")
        try s.expect("photographer")
        try s.expect("›")
        s.send("history --here\r")
        let here = try s.expect("›")
        XCTAssertTrue(here.contains("whoami"), here)
        XCTAssertFalse(here.contains("orders --limit 1"), "a line from the scenicAdmin scope: \(here)")
        XCTAssertFalse(here.contains("role photographer"), "the role switch ran as scenicAdmin: \(here)")
        s.send("history\r")
        let all = try s.expect("›")
        let lines = all.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("\(profile) scenicAdmin@") && $0.hasSuffix("orders --limit 1") }, all)
        XCTAssertTrue(lines.contains { $0.contains("\(profile) photographer@") && $0.hasSuffix("whoami") }, all)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)

        // A new shell in the same scope sees the earlier photographer lines; Up still recalls the plain command.
        let again = try start()
        again.send("history --here\r")
        let later = try again.expect("›")
        XCTAssertTrue(later.contains("whoami"), later)
        XCTAssertFalse(later.contains("orders --limit 1"), later)
        try again.waitForEditor()
        again.send("\u{1B}[A")
        try again.expect("history --here")
        again.send("\u{15}exit\r")
        XCTAssertEqual(try again.waitForExit(), 0)
        XCTAssertFalse(PTYSession.strip(again.raw).contains("#@sxk"), "recall showed the stored context")
    }
}
