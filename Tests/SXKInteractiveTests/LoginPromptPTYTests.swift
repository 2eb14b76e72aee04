import Foundation
import SXKSandbox
import XCTest

/// What a person types around `login`'s prompts: a password typed before the prompt shows, and
/// wrong answers at the account choice.
final class LoginPromptPTYTests: SandboxPTYTestCase {
    /// The password is typed right behind the command, on a slow link: it is read with echo off as
    /// the answer (not shown, not thrown away, not asked for again), and the calls follow.
    func testPasswordTypedAheadOfThePromptIsNeitherEchoedNorAskedAgain() throws {
        server.setLatency(milliseconds: 800)
        let s = try start()
        // One write: the password is in the terminal's queue before sxk has even read the command.
        s.send("login 13800000001 --accept-privacy\rsandbox123\r")
        let shown = try s.expect("logged in as", timeout: 30)
        try s.expect("›")
        XCTAssertEqual(shown.components(separatedBy: "password:").count - 1, 1, "asked more than once:\n\(shown)")
        XCTAssertFalse(s.screen.contains("sandbox123"), "the password was shown:\n\(s.screen)")
        // The question's row ends there: what follows starts on a row of its own.
        XCTAssertFalse(s.screen.contains("password: logged in"), s.screen)
        // The password came before any request: config and v9/login, sent together.
        let paths = server.requestLog().map(\.path)
        XCTAssertEqual(Set(paths.prefix(2)), ["/api/app/config", "/api/app/v9/login"])
        server.setLatency(milliseconds: 0)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// `switch-account` asks for the password only once its set-user has failed (here a held token
    /// the server refuses once): keys typed ahead meanwhile are not shown, then read as the answer.
    func testAPasswordTypedAheadOfSwitchAccountsPromptIsNotShown() throws {
        try logIn("13800000004", extra: ["--account", "1"])
        let s = try start()
        s.send("whoami\r")
        try s.expect("›")
        server.injectFault(path: "/api/app/v9/set-user", kind: .status500)
        server.setLatency(milliseconds: 700)
        s.send("switch-account 2\r")
        usleep(50_000)
        s.send("sandbox123\r")
        let shown = try s.expect("password:", timeout: 30)
        try s.expect("›", timeout: 30)
        server.setLatency(milliseconds: 0)
        XCTAssertFalse(s.screen.contains("sandbox123"), "the password was shown:\n\(s.screen)")
        XCTAssertFalse(shown.contains("sandbox"), shown)
        // The user id alone: a port or a temporary folder's name in whoami's other lines may hold 4002.
        s.send("whoami --jq .userId\r")
        try s.expect("\n4002")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A login its local checks refuse asks for no password: one typed ahead for it is dropped, not
    /// shown at the next prompt and run as a command.
    func testAPasswordTypedAheadOfALoginRefusedLocallyIsDropped() throws {
        let s = try start()
        s.send("login 12345 --accept-privacy\rSecr3tPw\r")
        try s.expect("is not valid")
        try s.expect("›")
        usleep(300_000)
        s.send("version\r")
        try s.expect("sxk ")
        try s.expect("›")
        XCTAssertFalse(s.screen.contains("Secr3tPw"), "the password was shown:\n\(s.screen)")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// `--password-stdin` on a terminal: stdin's next line is what the user types, so it is asked for
    /// with echo off, never shown, and never taken from a line meant as the next command.
    func testPasswordStdinOnATerminalIsAskedWithEchoOff() throws {
        let s = try start()
        s.send("login --accept-privacy 13800000001 --password-stdin\r")
        try s.expect("password:")
        s.send("sandbox123\r")
        try s.expect("logged in as")
        try s.expect("›")
        XCTAssertFalse(s.screen.contains("sandbox123"), "the password was shown:\n\(s.screen)")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// SIGTERM at the password prompt ends the question's row before the process leaves, so the
    /// user's shell prompt does not land after `password:`.
    func testSigtermAtThePasswordPromptEndsItsRow() throws {
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["login", "13800000001", "--accept-privacy"],
                               environment: environment)
        try s.expect("password:")
        kill(s.pid, SIGTERM)
        XCTAssertEqual(try s.waitForExit(), 143)
        let raw = String(decoding: s.raw, as: UTF8.self)
        XCTAssertTrue(raw.hasSuffix("password: \r\n"), raw.debugDescription)
    }

    /// The same with stdin not the terminal (the question asked on /dev/tty): its echo comes back too.
    func testSigtermAtThePasswordPromptRestoresEchoOnTheTerminalItAskedOn() throws {
        let s = try PTYSession(executable: "/bin/sh", arguments: ["-c", "exec \"$0\" \"$@\" </dev/null", InteractiveShellTests.binary]
                                   + globalArguments + ["login", "13800000001", "--accept-privacy"], environment: environment)
        try s.expect("password:")
        kill(s.pid, SIGTERM)
        XCTAssertEqual(try s.waitForExit(), 143)
        var mode = termios()
        XCTAssertEqual(tcgetattr(s.master, &mode), 0)
        XCTAssertNotEqual(mode.c_lflag & tcflag_t(ECHO), 0, "the terminal was left with echo off")
    }

    func testWrongAccountChoiceAsksAgainWithOneLineWhy() throws {
        let s = try start()
        s.send("login 13800000004 --accept-privacy\r")
        try s.expect("password:")
        s.resize(rows: 30, columns: 90)  // a resize does not end a prompt
        s.send("sandbox123\r")
        try s.expect("choose 1-3:")
        s.send("9\r")
        let first = try s.expect("choose 1-3:")
        XCTAssertTrue(first.contains("that number is not in the list"), first)
        // A password typed here by mistake shows once, as typed, and is not repeated in the reply.
        s.send("Shadow!pass-7Q\r")
        let second = try s.expect("choose 1-3:")
        XCTAssertTrue(second.contains("that is not a number from the list"), second)
        XCTAssertEqual(second.components(separatedBy: "Shadow!pass-7Q").count - 1, 1, second)
        XCTAssertEqual(second.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.count, 3,
                       "one line for the answer, one saying why, the prompt:\n\(second)")
        s.send("2\r")
        let done = try s.expect("logged in as")
        try s.expect("›")
        XCTAssertFalse(done.contains("error:"), done)
        s.send("whoami --jq .userId\r")
        try s.expect("\n4002")
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// An empty line, Ctrl-D and Ctrl-C at the choice each cancel with one line and leave the
    /// session that was there before (account, account list, prompt) as it was.
    func testCancellingTheChoiceLeavesTheSessionUnchanged() throws {
        let s = try start()
        s.send("login 13800000001 --accept-privacy\r")
        try s.expect("password:")
        s.send("sandbox123\r")
        try s.expect("logged in as")
        s.send("accounts\r")
        try s.expect("1001")
        try s.expect("›")
        for key in ["\r", "\u{04}", "\u{03}"] {
            s.send("login 13800000004 --accept-privacy\r")
            try s.expect("password:")
            s.send("sandbox123\r")
            try s.expect("choose 1-3:")
            s.send(key)
            let after = try s.expect("›")
            XCTAssertEqual(after.components(separatedBy: "error:").count - 1, 1, "key \(key.debugDescription):\n\(after)")
            XCTAssertTrue(after.contains("error: cancelled") || after.contains("error: interrupted"), after)
            XCTAssertFalse(after.contains("logged in as"), after)
        }
        s.send("accounts\r")
        let rows = try s.expect("›")
        XCTAssertTrue(rows.contains("1001"), rows)
        XCTAssertFalse(rows.contains("4001"), "the cancelled login's accounts replaced this login's:\n\(rows)")
        s.send("whoami --jq .userId\r")
        let who = try s.expect("›")
        XCTAssertTrue(who.contains("\n1001\n"), who)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// One-shot `login` on a terminal: an empty answer at the choice exits 130 (interrupted).
    func testOneShotCancelledChoiceExits130() throws {
        let s = try PTYSession(executable: InteractiveShellTests.binary,
                               arguments: globalArguments + ["login", "13800000004", "--accept-privacy"], environment: environment)
        try s.expect("password:")
        s.send("sandbox123\r")
        try s.expect("choose 1-3:")
        s.send("\r")
        XCTAssertEqual(try s.waitForExit(), 130)
        XCTAssertTrue(s.screen.contains("error: cancelled"), s.screen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: profileDir.appendingPathComponent("token").path))
    }
}
