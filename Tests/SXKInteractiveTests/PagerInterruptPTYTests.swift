import Foundation
import XCTest

/// A Ctrl-C while a pager shows a command's output, in `-c` text: the pager owns the terminal until
/// it quits, and the command after it does not run (exit 130), as after `| CMD`.
final class PagerInterruptPTYTests: SandboxPTYTestCase {
    func testACtrlCWhileThePagerShowsStopsTheNextCommand() throws {
        try logIn("13800000001")
        let shown = home.appendingPathComponent("pager-open")
        let marker = home.appendingPathComponent("second-ran")
        // Reads the whole page, says so, then stays open a while as a person reading it would.
        let env = try environment(pager: "cat >/dev/null\ntouch '\(shown.path)'\nsleep 2")
        let s = try PTYSession(executable: InteractiveShellTests.binary,
                               arguments: globalArguments + ["-c", "orders --page-size 30; whoami --jq .userId > '\(marker.path)'"],
                               environment: env, rows: 10, columns: 100)
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: shown.path) && Date() < deadline { usleep(5_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: shown.path), "the pager never showed the page")
        // Aimed at sxk only: the pager keeps running until it quits by itself.
        kill(s.pid, SIGINT)
        XCTAssertEqual(try s.waitForExit(timeout: 15), 130, s.screen)
        let written = (try? String(contentsOf: marker, encoding: .utf8)) ?? ""
        XCTAssertFalse(written.contains("1001"), "the command after the Ctrl-C ran: \(written)")
    }
}
