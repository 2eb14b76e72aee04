import Foundation
import SXKSandbox
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Modes, unsafe token files, kill -9, disk full, two shells at once, corrupt state.
final class FileSafetyTests: XCTestCase {
    var url: URL { SharedSandbox.url }

    func testUmask000StateFilesAre0600AndFolders0700() throws {
        let ws = Workspace(createStateDir: false)
        let r = SXK.run(["-c", "login 13800000002 --password-stdin --accept-privacy; scenic 2; orders --limit 1; scenic 1"], in: ws, baseURL: url,
                        stdin: SXK.password + "\n", umask000: true)
        XCTAssertEqual(r.status, 0, r.summary)
        let files = ws.allFiles(under: ws.stateDir)
        XCTAssertTrue(files.contains(ws.tokenFile) && files.contains(ws.defaultsFile), "\(files)")
        for file in files {
            XCTAssertEqual(modeOf(file), 0o600, "\(file) mode \(String(modeOf(file) ?? 0, radix: 8))")
        }
        for dir in ws.allDirectories(under: ws.stateDir) {
            XCTAssertEqual(modeOf(dir), 0o700, "\(dir) mode \(String(modeOf(dir) ?? 0, radix: 8))")
        }
        if FileManager.default.fileExists(atPath: ws.configHome + "/sxk") {
            for file in ws.allFiles(under: ws.configHome + "/sxk") { XCTAssertEqual(modeOf(file), 0o600, file) }
            for dir in ws.allDirectories(under: ws.configHome + "/sxk") { XCTAssertEqual(modeOf(dir), 0o700, dir) }
        }
    }

    /// Anything the process creates anywhere (HOME included: Foundation's caches) must not be
    /// group- or world-writable under `umask 000`.
    func testUmask000NothingCreatedIsWorldWritable() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "login 13800000001 --password-stdin --accept-privacy; orders --limit 1"], in: ws, baseURL: url,
                        stdin: SXK.password + "\n", umask000: true)
        XCTAssertEqual(r.status, 0, r.summary)
        let created = ws.allFiles() + ws.allDirectories(under: ws.root).filter { $0 != ws.root }
        let loose = created.filter { path in
            guard let mode = modeOf(path) else { return false }
            var st = stat()
            lstat(path, &st)
            if (st.st_mode & S_IFMT) == S_IFLNK { return false }
            return mode & 0o022 != 0
        }
        let preexisting: Set<String> = [ws.home, ws.configHome, ws.stateHome, ws.stateDir]
        XCTAssertEqual(loose.filter { !preexisting.contains($0) }.map { "\($0) \(String(modeOf($0) ?? 0, radix: 8))" }, [],
                       "group/world-writable paths created by sxk under umask 000")
    }

    func testLoosenedStateFileIsTightenedAtNextSave() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        XCTAssertEqual(chmod(ws.defaultsFile, 0o644), 0)
        let r = SXK.run(["scenic", "2"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(modeOf(ws.defaultsFile), 0o600, "defaults.json still \(String(modeOf(ws.defaultsFile) ?? 0, radix: 8))")
        let defaults = try ws.defaultsObject()
        XCTAssertEqual(defaults["key_in_current_scenic_id"] as? Int, 2)
    }

    private func assertTokenRefused(_ ws: Workspace, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let r = SXK.run(["whoami", "--json"], in: ws, baseURL: url, timeout: 10)
        XCTAssertFalse(r.timedOut, "\(what): sxk hung on the token file", file: file, line: line)
        XCTAssertEqual(r.status, 0, "\(what): \(r.summary)", file: file, line: line)
        let who = (try? r.json()) as? [String: Any]
        XCTAssertEqual(who?["phase"] as? String, "loggedOut", "\(what): \(r.summary)", file: file, line: line)
        XCTAssertTrue(r.stderrLines.contains { $0.contains("token") && ($0.lowercased().contains("warning") || $0.contains("refus")) },
                      "\(what): no warning about the token file: \(r.summary)", file: file, line: line)
        let orders = SXK.run(["orders", "--limit", "1"], in: ws, baseURL: url, timeout: 10)
        XCTAssertFalse(orders.timedOut, "\(what): hung", file: file, line: line)
        XCTAssertEqual(orders.status, 3, "\(what): \(orders.summary)", file: file, line: line)
    }

    func testLooseModeTokenFileIsRefused() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        XCTAssertEqual(chmod(ws.tokenFile, 0o644), 0)
        assertTokenRefused(ws, "0644 token")
    }

    func testSymlinkTokenFileIsRefused() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let token = try XCTUnwrap(ws.token())
        let elsewhere = ws.root + "/elsewhere-token"
        try (token + "\n").write(toFile: elsewhere, atomically: true, encoding: .utf8)
        chmod(elsewhere, 0o600)
        try FileManager.default.removeItem(atPath: ws.tokenFile)
        XCTAssertEqual(symlink(elsewhere, ws.tokenFile), 0)
        assertTokenRefused(ws, "symlink token")
    }

    /// Any finite stored time is read as a time (a hand-edited or foreign file may hold 1e300): every
    /// view that shows an age caps it instead of trapping on it.
    func testStoredTimesFarOutOfRangeAreShownNotTrappedOn() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        try ws.setStored("sxk_snapshot_saved_at", 1e300)
        try ws.setStored("sxk_session_validated_at", -1e300)
        for argv in [["whoami"], ["whoami", "--json"], ["env", "--json"], ["context", "diff"], ["home", "--offline"], ["boot"], ["keys"]] {
            let r = SXK.run(argv, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, "\(argv): \(r.summary)")
        }
    }

    /// A token file group can write but not read is named for what it allows; an account list that is a
    /// symbolic link is refused once a process, however many times the command reads it.
    func testARefusedFileIsSaidOnceAndAsItIs() throws {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: url, account: "1")
        XCTAssertEqual(chmod(ws.tokenFile, 0o620), 0)
        let writable = SXK.run(["whoami"], in: ws, baseURL: url)
        XCTAssertTrue(writable.stderr.contains("it is writable by group (mode 620)"), writable.summary)
        XCTAssertEqual(chmod(ws.tokenFile, 0o600), 0)
        let list = ws.profileDir + "/accounts.json", elsewhere = ws.root + "/elsewhere-accounts.json"
        XCTAssertEqual(rename(list, elsewhere), 0)
        XCTAssertEqual(symlink(elsewhere, list), 0)
        for argv in [["accounts"], ["-c", "accounts; accounts"]] {
            let r = SXK.run(argv, in: ws, baseURL: url)
            XCTAssertEqual(r.stderr.components(separatedBy: "refusing \(list): it is a symbolic link").count - 1, 1, r.summary)
        }
    }

    /// A profile folder that is a symbolic link is refused, not followed: its target keeps its mode and
    /// gets none of the profile's files, whatever command runs (one that only shows too).
    func testASymlinkedProfileFolderIsRefusedNotFollowed() throws {
        let ws = Workspace()
        let victim = ws.root + "/victim"
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        chmod(victim, 0o755)
        _ = SXK.run(["version"], in: ws, baseURL: url)
        XCTAssertEqual(symlink(victim, ws.profileDir), 0)
        for words in [["whoami"], ["login", "13800000001", "--password-stdin", "--accept-privacy"]] {
            let r = SXK.run(words, in: ws, baseURL: url, stdin: SXK.password + "\n")
            XCTAssertEqual(r.status, 1, "\(words): \(r.summary)")
            XCTAssertEqual(r.errorLines.count, 1, r.summary)
            XCTAssertTrue(r.stderr.contains("it is a symbolic link"), r.summary)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: victim), [], "the link's target was written")
        var st = stat()
        XCTAssertEqual(stat(victim, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o755, "the link's target was chmod-ed")
    }

    func testFIFOTokenFileIsRefusedWithoutHanging() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        try FileManager.default.removeItem(atPath: ws.tokenFile)
        XCTAssertEqual(mkfifo(ws.tokenFile, 0o600), 0)
        assertTokenRefused(ws, "FIFO token")
    }

    /// A known key of the wrong type (a hand-edited or foreign file: a reminder of 0.5) is read as
    /// absent with one warning naming it; the file is kept as it is by views that only show, and the
    /// rest of the account is read as stored. A later write saves the file without that key.
    func testAKeyOfTheWrongTypeIsReadAsAbsentAndTheFileKept() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        try ws.setStored("1001_scenic_key_location_reminder_minutes", 0.5)
        let before = try XCTUnwrap(ws.read(ws.defaultsFile))
        for words in [["location"], ["whoami", "--json"], ["home", "--offline", "--json"]] {
            let r = SXK.run(words, in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, "\(words): \(r.summary)")
            let warnings = r.stderrLines.filter { $0.contains("1001_scenic_key_location_reminder_minutes' holds a number of the wrong shape; read as absent") }
            XCTAssertEqual(warnings.count, 1, "\(words): \(r.summary)")
            XCTAssertEqual(ws.read(ws.defaultsFile), before, "\(words) changed the file")
        }
        XCTAssertEqual(ws.allFiles(under: ws.profileDir).filter { $0.contains(".corrupt-") }, [])
        let who = try XCTUnwrap(try SXK.run(["whoami", "--json"], in: ws, baseURL: url).json() as? [String: Any])
        XCTAssertEqual(who["userId"] as? Int, 1001, "the rest of the account is read as stored")
        XCTAssertEqual(SXK.run(["location", "remind", "10"], in: ws, baseURL: url).status, 0)
        let stored = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(ws.read(ws.defaultsFile))) as? [String: Any])
        XCTAssertEqual(stored["1001_scenic_key_location_reminder_minutes"] as? Int, 10)
    }

    func testCorruptDefaultsAreSetAsideWithOneWarning() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let good = try XCTUnwrap(ws.read(ws.defaultsFile))
        var deep = Data(repeating: UInt8(ascii: "["), count: 100_000)
        deep.append(Data(repeating: UInt8(ascii: "]"), count: 100_000))
        var big = Data("{\"key_in_user_name\":\"".utf8)
        big.append(Data(repeating: UInt8(ascii: "a"), count: 50 * 1024 * 1024))
        big.append(Data("\"}".utf8))
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("truncated", good.prefix(good.count / 2)),
            ("garbage", Data("}{ not json at all \u{0}\u{1}".utf8)),
            ("trailing garbage", good + Data("garbage".utf8)),
            ("non-UTF-8", Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D])),
            ("wrong type", Data("[1,2,3]".utf8)),
            ("deep nesting", deep),
            ("50 MB", big),
        ]
        for (name, bytes) in cases {
            for leftover in ws.allFiles(under: ws.profileDir) where leftover.contains(".corrupt-") {
                try? FileManager.default.removeItem(atPath: leftover)
            }
            XCTAssertTrue(FileManager.default.createFile(atPath: ws.defaultsFile, contents: bytes, attributes: [.posixPermissions: 0o600]))
            let r = SXK.run(["whoami", "--json"], in: ws, baseURL: url, timeout: 30)
            XCTAssertFalse(r.timedOut, "\(name): hung")
            XCTAssertEqual(r.status, 0, "\(name): \(r.summary)")
            XCTAssertNotNil(try? r.json(), "\(name): whoami output does not parse: \(r.summary)")
            let warnings = r.stderrLines.filter { $0.contains("defaults.json") }
            XCTAssertEqual(warnings.count, 1, "\(name): want one warning naming defaults.json: \(r.summary)")
            XCTAssertEqual(r.stderrLines.count, 1, "\(name): more stderr than one warning: \(r.summary)")
            let aside = ws.allFiles(under: ws.profileDir).filter { $0.contains("defaults.json.corrupt-") }
            XCTAssertEqual(aside.count, 1, "\(name): not set aside: \(ws.allFiles(under: ws.profileDir))")
            if let kept = aside.first { XCTAssertEqual(ws.read(kept), bytes, "\(name): the set-aside copy is not the original bytes") }
            // And the shell keeps working: a save makes a fresh, parseable file.
            XCTAssertEqual(SXK.run(["login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url, stdin: SXK.password + "\n").status, 0)
            XCTAssertNoThrow(try ws.defaultsObject(), name)
        }
    }

    /// Disk full, simulated with a file-size limit (`prlimit --fsize`, so writes fail with EFBIG; sxk
    /// ignores SIGXFSZ): the old file stays byte for byte, one clear line names the file, and a switch
    /// that could not be saved changes nothing, in memory either.
    func testWriteFailureKeepsOldStateAndPrintsOneClearLine() throws {
        let prlimit = "/usr/bin/prlimit"
        // Skips only without util-linux's prlimit (Debian ships it, so CI runs this).
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: prlimit), "needs prlimit (util-linux)")
        let full = [prlimit, "--fsize=2048", "--"]
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        let before = try XCTUnwrap(ws.read(ws.defaultsFile))
        let token = try XCTUnwrap(ws.read(ws.tokenFile))
        XCTAssertGreaterThan(before.count, 2048, "the test needs a snapshot larger than the limit")
        func assertUntouched(_ label: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(ws.read(ws.defaultsFile), before, "\(label): defaults.json changed", file: file, line: line)
            XCTAssertEqual(ws.read(ws.tokenFile), token, "\(label): token file changed", file: file, line: line)
            let known: Set<String> = [ws.tokenFile, ws.defaultsFile, ws.profileDir + "/.lock", ws.profileDir + "/accounts.json",
                                      ws.profileDir + "/backend.json"]
            XCTAssertEqual(ws.allFiles(under: ws.profileDir).filter { !known.contains($0) }, [], "\(label): temp files left", file: file, line: line)
        }

        let scenic = SXK.run(["-c", "scenic 2; whoami"], in: ws, baseURL: url, wrapper: full)
        XCTAssertFalse(scenic.uncaughtSignal, "SIGXFSZ killed sxk: \(scenic.summary)")
        XCTAssertEqual(scenic.status, 1, scenic.summary)
        XCTAssertEqual(scenic.stderrLines, ["error: cannot write \(ws.defaultsFile): File too large"], scenic.summary)
        XCTAssertEqual(scenic.stdout, "", "the run must stop at the failed save: \(scenic.summary)")
        assertUntouched("scenic 2")

        // With --keep-going: the failed switch left the old scope, and a command that only needs the
        // server still works, with one warning that the refreshed session could not be saved.
        let more = SXK.run(["--keep-going", "-c", "scenic 2; whoami --json; orders --limit 1 --json"], in: ws, baseURL: url, wrapper: full)
        XCTAssertFalse(more.uncaughtSignal, more.summary)
        XCTAssertEqual(more.status, 1, more.summary)
        XCTAssertEqual(more.errorLines, ["error: cannot write \(ws.defaultsFile): File too large"], more.summary)
        for line in more.stderrLines {
            XCTAssertTrue(line.contains("defaults.json") && line.contains("File too large"), "unclear line: \(line)")
            XCTAssertFalse(line.contains("unreachable") || line.contains("offline"), "a disk problem reported as a network one: \(line)")
        }
        let outputs = more.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
        XCTAssertEqual(outputs.count, 2, more.summary)
        let who = outputs.first.flatMap { $0 as? [String: Any] }
        XCTAssertEqual(who?["scenicId"] as? Int, 1, "a switch that was not saved still changed the scope: \(more.summary)")
        XCTAssertEqual((outputs.last.flatMap { ($0 as? [String: Any])?["list"] as? [Any] })?.count, 1, more.summary)
        assertUntouched("keep-going run")

        // A login over another account whose keys cannot be written: the new token goes back to the old
        // one, so the token never stands beside another account's keys; one error line, exit 1.
        let other = SXK.run(["login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url,
                            stdin: SXK.password + "\n", wrapper: full)
        XCTAssertFalse(other.uncaughtSignal, other.summary)
        XCTAssertEqual(other.status, 1, other.summary)
        XCTAssertEqual(other.errorLines, ["error: cannot write \(ws.defaultsFile): File too large"], other.summary)
        assertUntouched("login over another account")

        // A login on a full disk: the small token file is written, the snapshot is not; the login
        // stands with one warning (not an error that leaves a half-saved login behind).
        let fresh = Workspace()
        let login = SXK.run(["-c", "login 13800000002 --password-stdin --accept-privacy; whoami --json"], in: fresh, baseURL: url,
                            stdin: SXK.password + "\n", wrapper: full)
        XCTAssertFalse(login.uncaughtSignal, login.summary)
        XCTAssertEqual(login.status, 0, login.summary)
        // One warning beside the login's own confirmation line.
        let problems = login.stderrLines.filter { !$0.hasPrefix("logged in as ") }
        XCTAssertEqual(problems.count, 1, login.summary)
        XCTAssertTrue(problems.first?.hasPrefix("warning: logged in, but the account snapshot was not saved: cannot write \(fresh.defaultsFile): File too large") ?? false, login.summary)
        let freshWho = login.stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(freshWho?["phase"] as? String, "loggedIn", login.summary)
        XCTAssertEqual(freshWho?["permissionCount"] as? Int, 9, login.summary)
        XCTAssertNotNil(fresh.token())
        XCTAssertEqual(SXK.run(["orders", "--limit", "1"], in: fresh, baseURL: url).status, 0, "the next shell restores the login")

        // Space again: the same switch goes through and lands on disk.
        let later = SXK.run(["-c", "scenic 2"], in: ws, baseURL: url)
        XCTAssertEqual(later.status, 0, later.summary)
        XCTAssertEqual(try ws.defaultsObject()["key_in_current_scenic_id"] as? Int, 2)
    }

    func testTwoShellsChangingScopeAtOnceLeaveParseableState() throws {
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        let a = try LiveSXK([], in: ws, baseURL: url)
        let b = try LiveSXK([], in: ws, baseURL: url)
        for i in 0..<10 {
            a.send("scenic \(i % 2 == 0 ? 1 : 2)\n")
            b.send("scenic \(i % 2 == 0 ? 2 : 1)\n")
        }
        a.send("whoami --json\n")
        b.send("whoami --json\n")
        XCTAssertTrue(a.waitForStdout { $0.contains("\"phase\"") }, String(decoding: a.err.snapshot, as: UTF8.self))
        XCTAssertTrue(b.waitForStdout { $0.contains("\"phase\"") }, String(decoding: b.err.snapshot, as: UTF8.self))
        XCTAssertEqual(a.finish(), 0, String(decoding: a.err.snapshot, as: UTF8.self))
        XCTAssertEqual(b.finish(), 0, String(decoding: b.err.snapshot, as: UTF8.self))
        let defaults = try ws.defaultsObject()
        XCTAssertTrue([1, 2].contains(defaults["key_in_current_scenic_id"] as? Int ?? -1), "\(defaults["key_in_current_scenic_id"] ?? "nil")")
        XCTAssertEqual(defaults["key_in_user_id"] as? Int, 2001)
        XCTAssertNotNil(ws.token())
        XCTAssertEqual(ws.allFiles(under: ws.profileDir).filter { $0.contains("corrupt") || $0.contains(".tmp") }, [])
        let who = SXK.run(["whoami", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(who.status, 0, who.summary)
        XCTAssertEqual(who.stderr, "", "warnings after two shells: \(who.summary)")
    }

    /// Long: kill -9 at random moments while `sxk` saves, 200 times.
    // Skipped in `make test` only to keep the fast suite fast (about 14 s on 2 cores); `make test-long`
    // and therefore `.ci/run` run it.
    func testKill9DuringSavesNeverCorruptsState() throws {
        try XCTSkipUnless(longTestsEnabled, "set SXK_LONG_TESTS=1")
        let ws = Workspace()
        SXK.login("13800000002", in: ws, baseURL: url)
        let commands = (0..<40).map { "scenic \($0 % 2 + 1)" }.joined(separator: "; ")
        var rng = SystemRandomNumberGenerator()
        for iteration in 0..<200 {
            let live = try LiveSXK(["-c", commands], in: ws, baseURL: url)
            usleep(UInt32.random(in: 2_000...120_000, using: &rng))
            live.kill9()
            for file in ws.allFiles(under: ws.profileDir) where file.hasSuffix("defaults.json") {
                let data = try XCTUnwrap(ws.read(file))
                XCTAssertNotNil(try? JSONSerialization.jsonObject(with: data), "iteration \(iteration): \(file) does not parse")
            }
            if let token = ws.read(ws.tokenFile) { XCTAssertFalse(token.isEmpty, "iteration \(iteration): empty token file") }
            XCTAssertEqual(ws.allFiles(under: ws.profileDir).filter { $0.contains(".corrupt-") }, [], "iteration \(iteration)")
        }
        let r = SXK.run(["whoami", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual((try? r.json() as? [String: Any])?["userId"] as? Int, 2001, r.summary)
        // The login's account list (ids, names, types; never a token) is a file of its own.
        let known: Set<String> = [ws.tokenFile, ws.defaultsFile, ws.profileDir + "/.lock", ws.profileDir + "/accounts.json",
                                      ws.profileDir + "/backend.json"]
        XCTAssertEqual(ws.allFiles(under: ws.profileDir).filter { !known.contains($0) }, [], "leftover temp files after a clean start")
    }
}
