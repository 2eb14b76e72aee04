import Foundation
import XCTest
import SXKCore
@testable import SXKSession
import SXKFeatures
#if canImport(Glibc)
import Glibc
#endif

final class SecureFileTests: XCTestCase {
    func testModesUnderUmaskZero() throws {
        let dir = makeTempDir(self)
        let warnings = WarningRecorder()
        try withUmask(0) {
            let paths = try makePaths(dir)
            let storage = try ProfileStorage(paths: paths, warn: warnings.sink)
            try storage.appStore.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
            XCTAssertEqual(mode(paths.root), 0o700)
            XCTAssertEqual(mode(paths.profileDir), 0o700)
            XCTAssertEqual(mode(paths.tokenFile), 0o600)
            XCTAssertEqual(mode(paths.defaultsFile), 0o600)
            XCTAssertEqual(mode(paths.lockFile), 0o600)
            // Nested parents created by us are private too.
            let deep = try StatePaths(root: dir + "/a/b/c", profile: "p", configDir: dir + "/cfg")
            let other = try ProfileStorage(paths: deep, warn: warnings.sink)
            try other.ensureConfigDirectory()
            for folder in [dir + "/a", dir + "/a/b", dir + "/a/b/c", deep.profileDir, dir + "/cfg"] {
                XCTAssertEqual(mode(folder), 0o700, folder)
            }
        }
        XCTAssertEqual(warnings.messages, [])
    }

    func testExistingReadableFolderIsTightened() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        withUmask(0) {
            XCTAssertEqual(mkdir(paths.root, 0o755), 0)
            XCTAssertEqual(mkdir(paths.profileDir, 0o750), 0)
        }
        _ = try ProfileStorage(paths: paths, warn: { _ in })
        XCTAssertEqual(mode(paths.root), 0o700)
        XCTAssertEqual(mode(paths.profileDir), 0o700)
    }

    /// A state folder others can write is refused as ssh refuses one (they could have planted files
    /// in it), with one line saying why and how to fix it; nothing in it is touched.
    func testFolderWritableByOthersIsRefused() throws {
        for (label, writable) in [("root", true), ("profile", false)] {
            let dir = makeTempDir(self)
            let paths = try makePaths(dir)
            withUmask(0) {
                XCTAssertEqual(mkdir(paths.root, writable ? 0o777 : 0o700), 0)
                XCTAssertEqual(mkdir(paths.profileDir, writable ? 0o700 : 0o770), 0)
            }
            let folder = writable ? paths.root : paths.profileDir
            XCTAssertThrowsError(try ProfileStorage(paths: paths, warn: { _ in }), label) { error in
                let m = writable ? "777" : "770"
                XCTAssertEqual("\(error)", "refusing state folder \(folder): others can write it (mode \(m)); fix with: chmod go-w \(folder)")
            }
            XCTAssertEqual(mode(folder), writable ? 0o777 : 0o770, "\(label): the mode was changed")
            XCTAssertFalse(exists(paths.lockFile), "\(label): a file was created in a refused folder")
        }
    }

    /// A state folder owned by another user is refused; the owner is compared with the effective
    /// uid. Making one needs chown, so this runs as root (CI and the dev machines do).
    func testFolderOwnedByAnotherUserIsRefused() throws {
        // Skips only for an unprivileged developer: chown to another uid needs root (CI runs as root).
        guard geteuid() == 0 else { throw XCTSkip("needs root to chown a folder to another uid") }
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        _ = try ProfileStorage(paths: paths, warn: { _ in })
        XCTAssertEqual(chown(paths.profileDir, 65534, 65534), 0)
        XCTAssertThrowsError(try ProfileStorage(paths: paths, warn: { _ in })) { error in
            XCTAssertEqual("\(error)", "refusing state folder \(paths.profileDir): it is owned by uid 65534, not by you (uid 0)")
        }
    }

    /// A state file held to the token file's rule: readable by others → made 0600 at once with one
    /// warning; writable by others (they could have written what it says) → refused, not read.
    func testLooseStateFilesAreTightenedOrRefused() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let first = try ProfileStorage(paths: paths, warn: { _ in })
        try first.appStore.setLastLoginUsername("13800000001")
        chmod(paths.defaultsFile, 0o644)
        let warnings = WarningRecorder()
        let second = try ProfileStorage(paths: paths, warn: warnings.sink)
        XCTAssertEqual(second.appStore.lastLoginUsername, "13800000001", "a readable-only state file is still read")
        XCTAssertEqual(mode(paths.defaultsFile), 0o600, "tightened when read")
        XCTAssertEqual(warnings.messages.count, 1, "\(warnings.messages)")
        XCTAssertTrue(warnings.messages.first?.contains("made private (0600)") == true, "\(warnings.messages)")

        for loose: mode_t in [0o666, 0o620, 0o602] {
            chmod(paths.defaultsFile, loose)
            let refused = WarningRecorder()
            let third = try ProfileStorage(paths: paths, warn: refused.sink)
            XCTAssertNil(third.appStore.lastLoginUsername, "a file others could write is not read (\(String(loose, radix: 8)))")
            XCTAssertEqual(refused.messages.count, 1, "\(refused.messages)")
            XCTAssertTrue(refused.messages.first?.contains("could have written it") == true, "\(refused.messages)")
            // The next save replaces it with a private file.
            try third.appStore.setPrivacyAgreementAccepted(true)
            XCTAssertEqual(mode(paths.defaultsFile), 0o600)
        }
    }

    func testTokenWithLooseModeRefused() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        try storage.tokens.write(Demo.token)
        XCTAssertEqual(try storage.tokens.read(), Demo.token)
        chmod(paths.tokenFile, 0o644)
        let warnings = WarningRecorder()
        let again = try ProfileStorage(paths: paths, warn: warnings.sink)
        XCTAssertNil(try again.appStore.token())
        XCTAssertEqual(warnings.messages.count, 1)
        XCTAssertTrue(warnings.messages[0].contains(paths.tokenFile))
        XCTAssertTrue(warnings.messages[0].contains("logged out"))
        XCTAssertFalse(warnings.messages[0].contains(Demo.token))
        // A fresh login replaces it with a private file.
        try again.tokens.write("tok_new_value_123456")
        XCTAssertEqual(mode(paths.tokenFile), 0o600)
        XCTAssertEqual(try again.tokens.read(), "tok_new_value_123456")
    }

    func testTokenSymlinkRefusedAndTargetUntouched() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        let target = dir + "/elsewhere"
        writeRaw(target, Array("tok_from_elsewhere_1234\n".utf8))
        XCTAssertEqual(symlink(target, paths.tokenFile), 0)
        let warnings = WarningRecorder()
        let file = SecureFile(warn: warnings.sink)
        let tokens = TokenStore(path: paths.tokenFile, file: file, lock: storage.lock)
        XCTAssertNil(try tokens.read())
        XCTAssertEqual(warnings.messages.count, 1)
        XCTAssertTrue(warnings.messages[0].contains("symbolic link"))
        try tokens.write(Demo.token)
        XCTAssertEqual(readText(target), "tok_from_elsewhere_1234\n", "writing replaces the link, never follows it")
        XCTAssertEqual(try tokens.read(), Demo.token)
    }

    func testTokenFIFORefusedWithoutHanging() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        XCTAssertEqual(mkfifo(paths.tokenFile, 0o600), 0)
        let warnings = WarningRecorder()
        let tokens = TokenStore(path: paths.tokenFile, file: SecureFile(warn: warnings.sink), lock: storage.lock)
        let started = Date()
        XCTAssertNil(try tokens.read())
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertEqual(warnings.messages.count, 1)
        XCTAssertTrue(warnings.messages[0].contains("not a regular file"))
    }

    func testTokenOwnedByAnotherUserRefused() throws {
        // A file owned by someone else can only be made by root (chown): this skips only for an
        // unprivileged developer (CI and the dev machines run as root, so it runs there).
        guard geteuid() == 0 else { throw XCTSkip("needs root to chown") }
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        try storage.tokens.write(Demo.token)
        XCTAssertEqual(chown(paths.tokenFile, 65534, 65534), 0)
        let warnings = WarningRecorder()
        let tokens = TokenStore(path: paths.tokenFile, file: SecureFile(warn: warnings.sink), lock: storage.lock)
        XCTAssertNil(try tokens.read())
        XCTAssertEqual(warnings.messages.count, 1)
        XCTAssertTrue(warnings.messages[0].contains("another user"))
    }

    func testSymlinkedStateFileRefusedOnceThenReplaced() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        _ = try ProfileStorage(paths: paths, warn: { _ in })
        let target = dir + "/victim.json"
        writeRaw(target, Array("{\"key_last_login_username\": \"13900000000\"}".utf8))
        XCTAssertEqual(symlink(target, paths.defaultsFile), 0)
        let warnings = WarningRecorder()
        let storage = try ProfileStorage(paths: paths, warn: warnings.sink)
        XCTAssertNil(storage.appStore.lastLoginUsername, "a symlinked file is not read")
        try storage.appStore.setLastLoginUsername("13800000001")
        XCTAssertEqual(warnings.messages.count, 1)
        XCTAssertTrue(warnings.messages[0].contains("symbolic link"))
        XCTAssertEqual(readText(target), "{\"key_last_login_username\": \"13900000000\"}", "the target is never written")
        var st = stat()
        XCTAssertEqual(lstat(paths.defaultsFile, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG)
        XCTAssertEqual(mode(paths.defaultsFile), 0o600)
    }

    func testCorruptTokenFileSetAside() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        for bad in [[UInt8](), Array("two words\n".utf8), [0xFF, 0xFE, 0x41]] {
            writeRaw(paths.tokenFile, bad)
            let warnings = WarningRecorder()
            let tokens = TokenStore(path: paths.tokenFile, file: SecureFile(warn: warnings.sink), lock: storage.lock)
            XCTAssertNil(try tokens.read())
            XCTAssertEqual(warnings.messages.count, 1)
            XCTAssertFalse(exists(paths.tokenFile))
            for name in listDir(paths.profileDir) where name.hasPrefix("token.corrupt-") {
                unlink(paths.profileDir + "/" + name)
            }
        }
    }

    func testCorruptDefaultsSetAsideWithOneWarning() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let nested = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        let deepObject = "{\"x\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}"
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("truncated", Array("{\"key_in_user_id\": 1001, \"key_in_user_na".utf8)),
            ("trailing garbage", Array("{\"key_in_user_id\": 1001} xyz".utf8)),
            ("non-UTF-8", [0x7B, 0x22, 0x6B, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]),
            ("top-level array", Array("[1,2,3]".utf8)),
            ("deep nesting", Array(nested.utf8)),
            ("deep object", Array(deepObject.utf8)),
        ]
        _ = try ProfileStorage(paths: paths, warn: { _ in })
        for (name, bytes) in cases {
            writeRaw(paths.defaultsFile, bytes)
            let warnings = WarningRecorder()
            let storage = try ProfileStorage(paths: paths, warn: warnings.sink)
            XCTAssertEqual(storage.defaults.entries.count, 0, name)
            XCTAssertEqual(warnings.messages.count, 1, name)
            XCTAssertTrue(warnings.messages.first?.contains(paths.defaultsFile) ?? false, name)
            XCTAssertFalse(exists(paths.defaultsFile), name)
            let asideNames = listDir(paths.profileDir).filter { $0.hasPrefix("defaults.json.corrupt-") }
            XCTAssertEqual(asideNames.count, 1, name)
            if let aside = asideNames.first {
                XCTAssertEqual(FileManager.default.contents(atPath: paths.profileDir + "/" + aside).map { [UInt8]($0) }, bytes, "\(name): kept as it was")
                XCTAssertNotNil(aside.range(of: #"^defaults\.json\.corrupt-\d{14}$"#, options: .regularExpression), aside)
                unlink(paths.profileDir + "/" + aside)
            }
            // The next save writes a fresh file and does not warn again.
            try storage.appStore.setLastLoginUsername("13800000001")
            XCTAssertEqual(warnings.messages.count, 1, name)
            XCTAssertEqual(try ProfileStorage(paths: paths, warn: { _ in }).appStore.lastLoginUsername, "13800000001")
            unlink(paths.defaultsFile)
        }
    }

    /// A known key of the wrong type is read as absent with one warning naming it; the file is kept
    /// as it is (no view that only reads moves it), and the next save writes it without that key.
    func testAKeyOfTheWrongTypeIsReadAsAbsentAndTheFileKept() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        _ = try ProfileStorage(paths: paths, warn: { _ in })
        for (name, key, json) in [("wrong type", "key_in_user_id", "{\"a\": 1}"), ("wrong list type", "1001_scenic_key_in_permission", "\"nope\"")] {
            let bytes = Array("{\"key_in_user_name\": \"x\", \"\(key)\": \(json)}".utf8)
            writeRaw(paths.defaultsFile, bytes)
            let warnings = WarningRecorder()
            let storage = try ProfileStorage(paths: paths, warn: warnings.sink)
            XCTAssertEqual(storage.defaults.entries.map { $0.key }, ["key_in_user_name"], name)
            XCTAssertEqual(warnings.messages.count, 1, name)
            XCTAssertTrue(warnings.messages.first?.contains("'\(key)' holds") ?? false, "\(name): \(warnings.messages)")
            XCTAssertEqual(FileManager.default.contents(atPath: paths.defaultsFile).map { [UInt8]($0) }, bytes, "\(name): the file was changed")
            XCTAssertTrue(listDir(paths.profileDir).filter { $0.hasPrefix("defaults.json.corrupt-") }.isEmpty, name)
            try storage.appStore.setLastLoginUsername("13800000001")
            XCTAssertEqual(warnings.messages.count, 1, "\(name): said again")
            let saved = try ProfileStorage(paths: paths, warn: { _ in })
            XCTAssertNil(saved.defaults.entries.first { $0.key == key }, name)
            XCTAssertEqual(saved.appStore.lastLoginUsername, "13800000001")
            unlink(paths.defaultsFile)
        }
    }

    func testHugeFileSetAside() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        _ = try ProfileStorage(paths: paths, warn: { _ in })
        let fd = open(paths.defaultsFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let block = [UInt8](repeating: 0x20, count: 1 << 20)
        for _ in 0..<50 { _ = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        close(fd)
        let warnings = WarningRecorder()
        let storage = try ProfileStorage(paths: paths, warn: warnings.sink)
        XCTAssertEqual(storage.defaults.entries.count, 0)
        XCTAssertEqual(warnings.messages.count, 1)
        XCTAssertTrue(warnings.messages[0].contains("16 MB"))
        XCTAssertEqual(listDir(paths.profileDir).filter { $0.hasPrefix("defaults.json.corrupt-") }.count, 1)
    }

    func testTwoCorruptionsInOneSecondKeepBoth() throws {
        let dir = makeTempDir(self)
        let clock = FixedClock(Date(timeIntervalSince1970: 1_760_000_000))
        let file = SecureFile(warn: { _ in }, clock: clock)
        let path = dir + "/x.json"
        writeRaw(path, Array("a".utf8))
        let first = file.setAside(path, reason: "test")
        writeRaw(path, Array("b".utf8))
        let second = file.setAside(path, reason: "test")
        XCTAssertNotNil(first)
        XCTAssertNotNil(second)
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(readText(first!), "a")
        XCTAssertEqual(readText(second!), "b")
    }

    func testLeftoverTempFilesCleanedAtOpen() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        try storage.appStore.setLastLoginUsername("13800000001")
        // A process killed between creating its temp file and renaming it (pid 2^22+1 cannot be alive
        // on a default pid_max; a pid-less name is cleaned too).
        let dead = paths.profileDir + "/.defaults.json.tmp-4194305-12345"
        let orphan = paths.profileDir + "/.token.tmp-x"
        let live = paths.profileDir + "/.defaults.json.tmp-1-999" // pid 1 is alive
        writeRaw(dead, Array("{\"half".utf8))
        writeRaw(orphan, Array("tok".utf8))
        writeRaw(live, Array("{}".utf8))
        let again = try ProfileStorage(paths: paths, warn: { _ in })
        XCTAssertFalse(exists(dead))
        XCTAssertFalse(exists(orphan))
        XCTAssertTrue(exists(live), "a live writer's temp file is left alone")
        XCTAssertEqual(again.appStore.lastLoginUsername, "13800000001", "the real file is the old version")
    }

    func testAtomicWriteLeavesNoTempFiles() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        for i in 0..<20 { try storage.appStore.setLastLoginUsername("1380000\(1000 + i)") }
        XCTAssertEqual(listDir(paths.profileDir), [".lock", "defaults.json"])
    }

    /// A write without the fsyncs (a cache's) is still a whole-file replacement with a private mode.
    func testWriteWithoutSyncStillReplacesWholeAndPrivately() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        let target = paths.profileDir + "/cache.json"
        var first = stat(), second = stat()
        try withUmask(0) {
            try storage.file.writeAtomically(target, bytes: Array("{\"v\":1}\n".utf8), durable: false)
            XCTAssertEqual(lstat(target, &first), 0)
            try storage.file.writeAtomically(target, bytes: Array("{\"v\":2}\n".utf8), durable: false)
        }
        XCTAssertEqual(lstat(target, &second), 0)
        XCTAssertNotEqual(first.st_ino, second.st_ino, "the file was rewritten in place, not replaced")
        XCTAssertEqual(readText(target), "{\"v\":2}\n")
        XCTAssertEqual(mode(target) & 0o777, 0o600)
        XCTAssertEqual(listDir(paths.profileDir), [".lock", "cache.json"], "no temp file left")
    }

    func testWriteErrorKeepsOldFile() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        try storage.appStore.setLastLoginUsername("13800000001")
        let before = readText(paths.defaultsFile)
        XCTAssertNotNil(before)

        var old = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        var small = old
        small.rlim_cur = 64
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &small), 0)
        var thrown: SessionError?
        do {
            try storage.appStore.saveRolePermissionList(Demo.roles)
        } catch {
            thrown = error
        }
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old), 0)

        guard case .io(let path, let op, let code)? = thrown else { return XCTFail("expected an io error, got \(String(describing: thrown))") }
        XCTAssertEqual(path, paths.defaultsFile)
        XCTAssertEqual(op, "write")
        XCTAssertEqual(code, EFBIG)
        XCTAssertTrue(thrown!.description.hasPrefix("cannot write \(paths.defaultsFile): "), thrown!.description)
        XCTAssertEqual(readText(paths.defaultsFile), before, "old file intact")
        XCTAssertEqual(listDir(paths.profileDir), [".lock", "defaults.json"], "temp file removed")
        // The change is still pending and lands once writing works again.
        try storage.defaults.save()
        XCTAssertEqual(try ProfileStorage(paths: paths, warn: { _ in }).appStore.rolePermissionList(), Demo.roles)
    }

    /// A refusal or a tightening names what the mode lets group and others do, not more.
    func testALooseModeIsNamedForWhatItAllows() {
        XCTAssertEqual(SecureFile.openness(0o620), "writable by group")
        XCTAssertEqual(SecureFile.openness(0o640), "readable by group")
        XCTAssertEqual(SecureFile.openness(0o644), "readable by group and others")
        XCTAssertEqual(SecureFile.openness(0o602), "writable by others")
        XCTAssertEqual(SecureFile.openness(0o624), "readable by others and writable by group")
        XCTAssertEqual(SecureFile.openness(0o777), "readable, writable and executable by group and others")
        XCTAssertEqual(SecureFile.who(0o020), "group")
        XCTAssertEqual(SecureFile.who(0o022), "group and others")
    }
}
