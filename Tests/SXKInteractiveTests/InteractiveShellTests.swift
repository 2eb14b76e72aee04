import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Drives the real `sxk` binary in a pseudo-terminal the way a person would (builtins only).
final class InteractiveShellTests: XCTestCase {
    var home: URL!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("sxk-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: home)
    }

    static var binary: String {
        var dirs: [URL] = []
        if let exe = Bundle.main.executableURL { dirs.append(exe.deletingLastPathComponent()) }
        dirs.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for bundle in Bundle.allBundles { dirs.append(bundle.bundleURL.deletingLastPathComponent()) }
        for dir in dirs {
            let candidate = dir.appendingPathComponent("sxk").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return dirs.first!.appendingPathComponent("sxk").path
    }

    func start(rows: UInt16 = 24, columns: UInt16 = 80) throws -> PTYSession {
        let env = [
            "HOME": home.path,
            "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "PATH": "/usr/bin:/bin",
            "TERM": "xterm",
            "LANG": "C.UTF-8",
            "SXK_PAGER": "cat",
        ]
        let session = try PTYSession(executable: Self.binary, arguments: ["--state-dir", home.appendingPathComponent("sxk-state").path],
                                     environment: env, rows: rows, columns: columns)
        try session.expect("›")
        try session.waitForEditor()
        return session
    }

    func testTabCompletesCommandAndFlag() throws {
        let s = try start()
        s.send("compl\t")  // "comp" is shared with `compare`
        try s.expect("completion ")
        s.send("--he\t")
        try s.expect("--help ")
        s.send("\r")
        try s.expect("Usage: completion")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testSecondTabListsCandidates() throws {
        let s = try start()
        s.send("completion \t\t")
        let listed = try s.expect("fish")
        XCTAssertTrue(listed.contains("bash") && listed.contains("zsh"), listed)
        s.send("\u{15}exit\r")  // Ctrl-U clears the line
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// Tab–Tab on a line that wraps over several rows: the list stays whole below it (the line
    /// editor's redraw moves up from the cursor's row; the rows it moves over are left after the list).
    func testTheCandidateListOfAWrappedLineStaysWhole() throws {
        let s = try start(rows: 40, columns: 40)
        let typed = "completion " + String(repeating: " ", count: 70)
        s.send(typed + "\t")
        usleep(200_000)
        s.send("\t")
        try s.expect("zsh")
        usleep(300_000)
        _ = try? s.expect("never-shown", timeout: 0.3)
        let screen = ScreenModel(s.raw, columns: 40).lines
        for shell in ["bash", "fish", "zsh"] {
            XCTAssertTrue(screen.contains { $0.contains(shell) }, "\(shell) was drawn over:\n\(screen.joined(separator: "\n"))")
        }
        s.send("\u{15}exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    func testHistoryPersistsAndSkipsSpacePrefixedLines() throws {
        let first = try start()
        first.send("version\r")
        try first.expect("›")
        first.send(" help history\r")
        try first.expect("Usage: history")
        try first.expect("›")
        // Usage errors the command itself finds stay out of the file too.
        first.send("exit 300\r")
        try first.expect("exit takes a status")
        try first.expect("›")
        first.send("set pager json\r")
        try first.expect("pager is on or off")
        try first.expect("›")
        first.send("exit\r")
        XCTAssertEqual(try first.waitForExit(), 0)

        let second = try start()
        second.send("\u{1B}[A")  // Up: recalls the last saved line
        try second.expect("exit")
        second.send("\u{15}history\r")
        let listing = try second.expect("›")
        XCTAssertTrue(listing.contains("version"), listing)
        XCTAssertFalse(listing.contains("help history"), listing)
        second.send("exit\r")
        XCTAssertEqual(try second.waitForExit(), 0)

        // The file is in libedit's format, private, and never holds the space-prefixed line.
        let files = historyFiles()
        XCTAssertFalse(files.isEmpty, "no history file under \(home.path)")
        for path in files {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertFalse(text.contains("help\\040history"), text)
            // Matched as libedit stores the lines (space as \040): a bare "300" can be part of a timestamp.
            XCTAssertFalse(text.contains("exit\\040300") || text.contains("pager\\040json"), text)
            XCTAssertTrue(text.contains("version"), text)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600)
        }
    }

    /// Lines are saved as the shell goes: one killed (kill -9) keeps what it ran.
    func testAKilledShellKeepsTheLinesItRan() throws {
        let s = try start()
        s.send("version\r")
        try s.expect("sxk 0.1.0")
        try s.expect("›")
        s.send("help exit\r")
        try s.expect("Usage: exit")
        try s.expect("›")
        kill(s.pid, SIGKILL)
        _ = try? s.waitForExit()
        let files = historyFiles()
        XCTAssertFalse(files.isEmpty, "no history file under \(home.path)")
        let text = try files.map { try String(contentsOfFile: $0, encoding: .utf8) }.joined()
        XCTAssertTrue(text.contains("version") && text.contains("help\\040exit"), text)
    }

    func testCtrlCClearsTheLine() throws {
        let s = try start()
        s.send("exit 7")
        try s.expect("exit 7")
        s.send("\u{3}")
        try s.expect("›")
        try s.waitForEditor()
        s.send("\r")  // had the line survived, Enter would run 'exit 7'
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0, "the interrupted 'exit 7' must not run")
    }

    func testCtrlDExitsZero() throws {
        let s = try start()
        s.send("\u{4}")
        try s.expect("^D")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    private func historyFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: home.path) else { return [] }
        var found: [String] = []
        for case let rel as String in walker {
            let path = home.appendingPathComponent(rel).path
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue,
                  let data = FileManager.default.contents(atPath: path) else { continue }
            if data.starts(with: Data("_HiStOrY_V2_".utf8)) { found.append(path) }
        }
        return found
    }
}
