import Foundation
import SXKCore
import SXKSandbox
import XCTest

/// A word reaches its command as the user gave it, or is refused: a byte that is not UTF-8 (which
/// would be read as U+FFFD, another character) in any mode, and `~` in a redirection's file.
final class WordsAsGivenTests: SandboxTestCase {
    /// sxk started by `sh`, which can pass bytes a Swift string cannot hold: `$1` is the byte 0xff.
    private func runWithByte(_ script: String, in ws: Workspace, stdin: Data = Data()) -> RunResult {
        SXK.runProcess(["-c", "b=$(printf '\\377'); exec \"$0\" --base-url \(url.absoluteString) --state-dir \(ws.stateDir) " + script, SXKBinary.path],
                       executable: "/bin/sh", env: ws.environment, stdin: stdin, timeout: 30)
    }

    func testAnArgumentThatIsNotUTF8IsRefusedBeforeAnythingRuns() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        server.resetRequestLog()
        // `__complete` as a profile's name is no completion: the check holds.
        for (script, index) in [("orders --keyword \"a${b}c\"", 7), ("--profile \"p${b}\" whoami", 6), ("-c \"version; orders --keyword ${b}\"", 6),
                                ("--profile __complete orders --keyword \"${b}\"", 9)] {
            let r = runWithByte(script, in: ws)
            XCTAssertEqual(r.status, 2, "\(script): \(r.summary)")
            XCTAssertEqual(r.stdout, "", "\(script): \(r.summary)")
            XCTAssertEqual(r.stderrLines, ["error: argument \(index) is not valid UTF-8 (byte 0xff); nothing was run"], "\(script): \(r.summary)")
        }
        XCTAssertEqual(server.requestLog().map(\.path), [], "a request went out")
        // No profile folder was made for the name read as U+FFFD.
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: ws.stateDir).contains { $0.hasPrefix("p") })
    }

    func testALineOnStandardInputThatIsNotUTF8IsNotRun() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        server.resetRequestLog()
        var input = Data("version\norders --keyword a".utf8)
        input.append(0xFF)
        input.append(contentsOf: Array("b\nversion\n".utf8))
        let base = ["--base-url", url.absoluteString, "--state-dir", ws.stateDir]
        let stops = SXK.runProcess(base, env: ws.environment, stdin: input, timeout: 30)
        XCTAssertEqual(stops.status, 2, stops.summary)
        XCTAssertEqual(stops.stdout, "sxk 0.1.0\n", stops.summary)
        XCTAssertEqual(stops.stderrLines, ["error: -:2: not valid UTF-8 (byte 0xff); the line was not run"], stops.summary)
        // --keep-going runs the lines after it and ends with its status.
        let goesOn = SXK.runProcess(base + ["--keep-going", "-"], env: ws.environment, stdin: input, timeout: 30)
        XCTAssertEqual(goesOn.status, 2, goesOn.summary)
        XCTAssertEqual(goesOn.stdout, "sxk 0.1.0\nsxk 0.1.0\n", goesOn.summary)
        XCTAssertFalse(server.requestLog().contains { $0.path.contains("order") }, "the line was sent: \(server.requestLog().map(\.path))")
    }

    func testARedirectionsFileMayStartWithTheHomeFolder() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "version > ~/out.txt; version --json >> ~/out.txt"], in: ws, baseURL: nil)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(try String(contentsOfFile: ws.home + "/out.txt", encoding: .utf8), "sxk 0.1.0\n{\"name\":\"sxk\",\"version\":\"0.1.0\"}\n")
        // A command refused for its words does not empty the file it was sent to, nor make one.
        let refused = SXK.run(["-c", "orders --nope > ~/out.txt; whoami 2> ~/new.txt; ordrs >> ~/out.txt"], in: ws, baseURL: nil)
        XCTAssertEqual(refused.status, 2, refused.summary)
        XCTAssertEqual(refused.errorLines.count, 1, refused.summary)
        let more = SXK.run(["--keep-going", "-c", "whoami 2> ~/new.txt; ordrs >> ~/out.txt"], in: ws, baseURL: nil)
        XCTAssertEqual(more.errorLines.count, 2, more.summary)
        XCTAssertEqual(try String(contentsOfFile: ws.home + "/out.txt", encoding: .utf8), "sxk 0.1.0\n{\"name\":\"sxk\",\"version\":\"0.1.0\"}\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.home + "/new.txt"))
    }
}
