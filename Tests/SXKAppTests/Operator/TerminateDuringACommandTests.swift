import Foundation
import SXKSandbox
import XCTest

/// SIGTERM or SIGHUP during a one-shot's request: the signal ends the process, with 128 + it, after
/// the one shutdown that keeps what the run owes (here its `--har` file). The command it cancels
/// returns on the shell's thread meanwhile; that thread once ended the process first, with the
/// cancelled command's 130 and an "interrupted" line, and shut the host down a second time beside
/// the watcher.
final class TerminateDuringACommandTests: XCTestCase {
    private var server: SandboxServer!
    private var url: URL!
    private var ws: Workspace!

    override func setUpWithError() throws {
        (server, url) = try startSandbox()
        ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.setLatency(milliseconds: 3_000)
    }

    override func tearDown() {
        server.stop()
        try? FileManager.default.removeItem(atPath: ws.root)
        super.tearDown()
    }

    /// Starts `args`, sends `sig` once the sandbox holds its first request; its status, stdout and stderr.
    private func signalled(_ args: [String], _ sig: Int32, round: Int) throws -> (status: Int32, out: String, err: String) {
        server.resetRequestLog()
        let running = try LiveSXK(args, in: ws, baseURL: url)
        let deadline = Date().addingTimeInterval(10)
        while server.requestLog().isEmpty && Date() < deadline { usleep(2_000) }
        XCTAssertFalse(server.requestLog().isEmpty, "round \(round): the request was never sent")
        let sent = Date()
        kill(running.pid, sig)
        let status = running.finish(timeout: 10)
        XCTAssertLessThan(Date().timeIntervalSince(sent), 1.5, "round \(round): the signal waited for the answer")
        return (status, String(decoding: running.out.finish(), as: UTF8.self), String(decoding: running.err.finish(), as: UTF8.self))
    }

    func testATerminatingSignalEndsTheOneShotWithItsStatusAfterOneShutdown() throws {
        // The race is a few milliseconds wide: enough rounds that a regression shows in one run.
        for round in 0..<12 {
            let sig = round % 2 == 0 ? SIGTERM : SIGHUP
            let har = ws.root + "/run\(round).har"
            let r = try signalled(["--har", har, "get", "/api/yf-handset-app/userinfo"], sig, round: round)
            XCTAssertEqual(r.status, 128 + sig, "round \(round), signal \(sig): \(r.err)")
            XCTAssertEqual(r.out, "", "round \(round): the cancelled command printed")
            XCTAssertEqual(r.err, "", "round \(round): the cancelled command was reported")
            let data = try XCTUnwrap(FileManager.default.contents(atPath: har), "round \(round): no HAR file")
            let doc = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            XCTAssertNotNil((doc?["log"] as? [String: Any])?["entries"] as? [[String: Any]], "round \(round): not a HAR file")
        }
    }

    /// In `-c` text the command after the cancelled one does not start while the signal ends the run.
    func testATerminatingSignalStopsTheRestOfTheText() throws {
        for round in 0..<6 {
            let r = try signalled(["-c", "get /api/yf-handset-app/userinfo; get /api/app/config; version"], SIGTERM, round: round)
            XCTAssertEqual(r.status, 143, "round \(round): \(r.err)")
            XCTAssertEqual(r.out, "", "round \(round): a later command ran")
            XCTAssertEqual(r.err, "", "round \(round): the cancelled command was reported")
            usleep(50_000)
            XCTAssertEqual(server.requestLog().map(\.path), ["/api/yf-handset-app/userinfo"], "round \(round)")
        }
    }

    /// Under `nohup` (SIGHUP ignored when sxk starts) a one-shot keeps that: a hangup during its
    /// request does not end it, as it ends no other non-interactive program started so.
    func testASignalIgnoredAtTheStartStaysIgnored() throws {
        server.setLatency(milliseconds: 600)
        server.resetRequestLog()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
        process.arguments = [SXKBinary.path, "--base-url", url.absoluteString, "--state-dir", ws.stateDir, "get", "/api/app/config", "--jq", ".enableRegister"]
        process.environment = ws.environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while server.requestLog().isEmpty && Date() < deadline { usleep(2_000) }
        // nohup execs sxk: the same process.
        kill(process.processIdentifier, SIGHUP)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertFalse(out.fileHandleForReading.readDataToEndOfFile().isEmpty, "the answer was not printed")
        // A `| CMD` child keeps it ignored too, as any child of a program started so.
        server.setLatency(milliseconds: 0)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
        child.arguments = [SXKBinary.path, "--base-url", url.absoluteString, "--state-dir", ws.stateDir, "-c", "get /api/app/config | grep SigIgn /proc/self/status"]
        child.environment = ws.environment
        let seen = Pipe()
        child.standardOutput = seen
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        let line = String(decoding: seen.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let mask = UInt64(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16)
        XCTAssertEqual(try XCTUnwrap(mask, line) & 1, 1, "SIGHUP not ignored in the child: \(line)")
    }

    /// Ctrl-\\ (SIGQUIT) ends a one-shot as SIGTERM does (131, after saving), never by a core dump,
    /// which would hold the live token: none is written even where the limit allows one.
    func testSIGQUITEndsTheRunAsSIGTERMDoesAndWritesNoCore() throws {
        let here = ws.root + "/cwd"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        server.resetRequestLog()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -c unlimited 2>/dev/null; exec \"$0\" \"$@\"", SXKBinary.path,
                             "--base-url", url.absoluteString, "--state-dir", ws.stateDir, "get", "/api/yf-handset-app/userinfo"]
        process.environment = ws.environment
        process.currentDirectoryURL = URL(fileURLWithPath: here)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while server.requestLog().isEmpty && Date() < deadline { usleep(2_000) }
        kill(process.processIdentifier, SIGQUIT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 128 + SIGQUIT)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: here), [], "a core file was written")
    }
}
