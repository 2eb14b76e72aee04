import Foundation
import SXKSandbox
import SXKTestSupport
import XCTest

/// What every pty test against the app needs: a private home and state folder, an in-process
/// sandbox on a loopback port, the environment the binary runs with, and a non-interactive login
/// so a session can start from the snapshot.
class SandboxPTYTestCase: XCTestCase {
    var home: URL!
    var server: SandboxServer!
    var baseURL: URL!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("sxk-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        server = SandboxServer(config: SandboxConfig())
        baseURL = try server.start()
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: home)
    }

    var environment: [String: String] {
        [
            "HOME": home.path, "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
            "TERM": "xterm", "LANG": "C.UTF-8",
            // Output taller than the pty goes through the pager; these tests read the screen, so it passes through.
            "SXK_PAGER": "cat",
        ]
    }

    var stateDir: URL { home.appendingPathComponent("sxk-state") }
    /// The profile of a `--base-url` session, named from the URL's host and port.
    var profile: String { "\(baseURL.host ?? "")-\(baseURL.port ?? 80)" }
    var profileDir: URL { stateDir.appendingPathComponent(profile) }
    var globalArguments: [String] { ["--base-url", baseURL.absoluteString, "--state-dir", stateDir.path] }

    /// The shell in a 10-row pty whose pager (`SXK_PAGER`) writes what it is given to `record` and
    /// prints PAGER-RAN: whether, and what, a command paged. Up to its first prompt; the environment
    /// is returned for later processes that should use the same pager.
    func startWithRecordingPager(columns: UInt16 = 100) throws -> (session: PTYSession, record: URL, environment: [String: String]) {
        let record = home.appendingPathComponent("paged.txt")
        let env = try environment(pager: "cat > '\(record.path)'\necho PAGER-RAN")
        let session = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: env, rows: 10, columns: columns)
        try session.expect("›")
        try session.waitForEditor()
        return (session, record, env)
    }

    /// `bash -i` in a pty (a job-control shell: it sends Ctrl-Z's SIGTSTP and runs `fg`, `bg` and `&`)
    /// running `script`, given the command line that starts sxk with this test's options.
    func jobControlShell(_ script: (String) -> String) throws -> PTYSession {
        let bash = "/bin/bash"
        // Job control needs a shell that has it: this skips only without /bin/bash (every Debian
        // system has it and `make` installs it, so CI runs these tests).
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: bash), "needs bash for job control")
        let sxk = ([InteractiveShellTests.binary] + globalArguments).map { "'\($0)'" }.joined(separator: " ")
        return try PTYSession(executable: bash, arguments: ["--norc", "--noprofile", "-i", "-c", script(sxk)], environment: environment)
    }

    /// A shell line printing the terminal's echo setting alone: `echo` or `-echo`.
    static let echoMode = "stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e -echo"

    /// The environment with `SXK_PAGER` a shell script of these lines (it reads the page from stdin).
    func environment(pager lines: String) throws -> [String: String] {
        let script = home.appendingPathComponent("pager-\(UUID().uuidString.prefix(8)).sh")
        try "#!/bin/sh\n\(lines)\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        var env = environment
        env["SXK_PAGER"] = script.path
        return env
    }

    /// The shell in a pty of `rows` × `columns`, up to its first prompt with the line editor ready.
    func start(rows: UInt16 = 30, columns: UInt16 = 100) throws -> PTYSession {
        let session = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: environment, rows: rows, columns: columns)
        try session.expect("›")
        try session.waitForEditor()
        return session
    }

    /// Logs in once without a terminal (`--password-stdin`), so the pty session starts from the snapshot.
    func logIn(_ phone: String = "13800000001", extra: [String] = [], profile: String? = nil) throws {
        let process = try PasswordProcess.start(InteractiveShellTests.binary,
                                                globalArguments + (profile.map { ["--profile", $0] } ?? []) + ["login", phone, "--password-stdin", "--accept-privacy"] + extra,
                                                environment: environment)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "login failed")
    }
}
