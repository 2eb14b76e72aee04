import Foundation
import XCTest

/// The shell on a machine without libedit (CLibedit loads it when first used): hidden in a mount
/// namespace of the shell's own, the REPL still starts, says once what is off, shows its prompt and
/// runs commands on plain lines, and leaves the history file it could not read as it was.
final class MissingLibeditPTYTests: SandboxPTYTestCase {
    func testTheShellRunsOnPlainLinesAndKeepsTheHistoryFile() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            throw XCTSkip("hiding libedit needs root and util-linux's unshare (a private mount namespace)")
        }
        guard let library = ["/lib/x86_64-linux-gnu/libedit.so.2", "/usr/lib/x86_64-linux-gnu/libedit.so.2", "/usr/lib64/libedit.so.2"]
            .first(where: { FileManager.default.fileExists(atPath: $0) }) else { throw XCTSkip("libedit.so.2 is not where Debian puts it") }
        let history = profileDir.appendingPathComponent("history")
        try FileManager.default.createDirectory(at: profileDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let saved = Data("_HiStOrY_V2_\nwhoami\n".utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: history.path, contents: saved, attributes: [.posixPermissions: 0o600]))

        let hide = ["-m", "/bin/sh", "-c", "mount --bind /dev/null \"$0\" && exec \"$@\"", library]
        let s = try PTYSession(executable: "/usr/bin/unshare", arguments: hide + [InteractiveShellTests.binary] + globalArguments,
                               environment: environment)
        try s.expect("line editing, Tab completion and saved history are off: libedit could not be loaded")
        try s.expect("›")
        s.send("version\r")
        try s.expect("sxk 0.1.0")
        try s.expect("›")
        // Ctrl-C at the prompt: the terminal's line discipline sends SIGINT, the read ends, and the next
        // prompt starts on a line of its own.
        s.send("\u{3}")
        try s.expect("›")
        let afterInterrupt = PTYSession.strip(s.raw)
        let tail = afterInterrupt[(afterInterrupt.range(of: "^C", options: .backwards)?.upperBound ?? afterInterrupt.endIndex)...]
        XCTAssertTrue(tail.hasPrefix("\n") || tail.hasPrefix("\r\n"), "the prompt after ^C: \(tail.debugDescription)")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        let screen = PTYSession.strip(s.raw)
        XCTAssertEqual(screen.components(separatedBy: "libedit could not be loaded").count - 1, 1, "said once: \(screen)")
        XCTAssertEqual(FileManager.default.contents(atPath: history.path), saved)
    }
}
