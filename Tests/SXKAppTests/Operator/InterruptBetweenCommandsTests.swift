import Foundation
import SXKSandbox
import XCTest

/// A Ctrl-C outside the REPL stops the run even when it comes while no command is running.
final class InterruptBetweenCommandsTests: XCTestCase {
    /// `-c` text, interrupted after its first command has ended while sxk waits for that command's
    /// `| CMD` child: the next command, an app command or a builtin, does not run and the run ends
    /// with 130, as a shell script stops. The child signs once it has read the first command's whole
    /// output (the pipe closes when the command is done), so the signal cannot land inside that command.
    func testACtrlCBetweenTwoCommandsStopsTheNext() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        for next in ["get /api/app/config", "version"] {
            let ws = Workspace()
            defer { try? FileManager.default.removeItem(atPath: ws.root) }
            server.resetRequestLog()
            let marker = ws.root + "/first-done"
            // `;` ends an sxk command, so the child's steps are joined with `&&`.
            let script = "get /api/app/config | cat >/dev/null && touch '\(marker)' && sleep 2; \(next)"
            let running = try LiveSXK(["-c", script], in: ws, baseURL: url)
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { usleep(5_000) }
            XCTAssertTrue(FileManager.default.fileExists(atPath: marker), "the first command never ended")
            kill(running.pid, SIGINT)
            XCTAssertEqual(running.finish(timeout: 10), 130, next)
            let err = String(decoding: running.err.finish(), as: UTF8.self)
            XCTAssertTrue(err.contains("interrupted"), "\(next): \(err)")
            XCTAssertEqual(String(decoding: running.out.finish(), as: UTF8.self), "", "\(next) ran")
            XCTAssertEqual(server.requestLog().filter { $0.path == "/api/app/config" }.count, 1, "\(next): the second command was sent")
        }
    }

    /// A Ctrl-C while a login loads the account context: the login stands as written before it (the
    /// token), the run ends with 130 and says so, and the next command does not run.
    func testACtrlCDuringALoginsContextLoadStopsTheRun() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        defer { try? FileManager.default.removeItem(atPath: ws.root) }
        server.injectFault(path: "/api/yf-handset-app/userinfo", kind: .hang)
        let running = try LiveSXK(["-c", "login 13800000001 --password-stdin --accept-privacy; version"], in: ws, baseURL: url)
        running.send(SandboxDemo.password + "\n")
        let deadline = Date().addingTimeInterval(10)
        while !server.requestLog().contains(where: { $0.path == "/api/yf-handset-app/userinfo" }) && Date() < deadline { usleep(5_000) }
        XCTAssertTrue(server.requestLog().contains { $0.path == "/api/yf-handset-app/userinfo" }, "the context load never started")
        // The token and set-user's snapshot are written while the pair is out.
        while ws.token() == nil && Date() < deadline { usleep(5_000) }
        XCTAssertNotNil(ws.token(), "no token was written beside the pair")
        kill(running.pid, SIGINT)
        XCTAssertEqual(running.finish(timeout: 10), 130)
        let err = String(decoding: running.err.finish(), as: UTF8.self)
        XCTAssertTrue(err.contains("interrupted: logged in, but the account context was not loaded"), err)
        XCTAssertEqual(String(decoding: running.out.finish(), as: UTF8.self), "", "version ran after the Ctrl-C")
        XCTAssertNotNil(ws.token(), "the token written before the Ctrl-C is kept")
    }
}
