import Foundation
import SXKSandbox
import XCTest

/// SIGTERM or SIGHUP during a one-shot's request: the signal ends the process, with 128 + it, after
/// the one shutdown that keeps what the run owes (here its `--har` file). The command it cancels
/// returns on the shell's thread meanwhile; that thread once ended the process first, with the
/// cancelled command's 130, and shut the host down a second time beside the watcher.
final class TerminateDuringACommandTests: XCTestCase {
    func testATerminatingSignalEndsTheOneShotWithItsStatusAfterOneShutdown() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        defer { try? FileManager.default.removeItem(atPath: ws.root) }
        SXK.login("13800000001", in: ws, baseURL: url)
        server.setLatency(milliseconds: 3_000)
        // The race is a few milliseconds wide: enough rounds that a regression shows in one run.
        for round in 0..<12 {
            let sig = round % 2 == 0 ? SIGTERM : SIGHUP
            let har = ws.root + "/run\(round).har"
            server.resetRequestLog()
            let running = try LiveSXK(["--har", har, "get", "/api/yf-handset-app/userinfo"], in: ws, baseURL: url)
            let deadline = Date().addingTimeInterval(10)
            while server.requestLog().isEmpty && Date() < deadline { usleep(2_000) }
            XCTAssertFalse(server.requestLog().isEmpty, "round \(round): the request was never sent")
            let signalled = Date()
            kill(running.pid, sig)
            XCTAssertEqual(running.finish(timeout: 10), 128 + sig, "round \(round), signal \(sig)")
            XCTAssertLessThan(Date().timeIntervalSince(signalled), 1.5, "round \(round): the signal waited for the answer")
            XCTAssertEqual(String(decoding: running.out.finish(), as: UTF8.self), "", "round \(round): the cancelled command printed")
            let err = String(decoding: running.err.finish(), as: UTF8.self)
            XCTAssertFalse(err.contains("--har"), "round \(round): \(err)")
            let data = try XCTUnwrap(FileManager.default.contents(atPath: har), "round \(round): no HAR file")
            let doc = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            XCTAssertNotNil((doc?["log"] as? [String: Any])?["entries"] as? [[String: Any]], "round \(round): not a HAR file")
        }
    }

    /// In `-c` text the command after the cancelled one does not start while the signal ends the run
    /// (the cancelled command's 130 stops the text before the watcher's `_exit`).
    func testATerminatingSignalStopsTheRestOfTheText() throws {
        let (server, url) = try startSandbox()
        defer { server.stop() }
        let ws = Workspace()
        defer { try? FileManager.default.removeItem(atPath: ws.root) }
        SXK.login("13800000001", in: ws, baseURL: url)
        server.setLatency(milliseconds: 3_000)
        for round in 0..<6 {
            server.resetRequestLog()
            let running = try LiveSXK(["-c", "get /api/yf-handset-app/userinfo; get /api/app/config; version"], in: ws, baseURL: url)
            let deadline = Date().addingTimeInterval(10)
            while server.requestLog().isEmpty && Date() < deadline { usleep(2_000) }
            kill(running.pid, SIGTERM)
            XCTAssertEqual(running.finish(timeout: 10), 143, "round \(round)")
            XCTAssertEqual(String(decoding: running.out.finish(), as: UTF8.self), "", "round \(round): a later command ran")
            usleep(50_000)
            XCTAssertEqual(server.requestLog().map(\.path), ["/api/yf-handset-app/userinfo"], "round \(round)")
        }
    }
}
