import Foundation
import XCTest
import SXKCore
@testable import SXKSession
#if canImport(Glibc)
import Glibc
#endif

final class LockAndMergeTests: XCTestCase {
    func testLockExcludesASecondDescriptor() throws {
        let dir = makeTempDir(self)
        let lock = ProfileLock(path: dir + "/.lock", timeout: 0.2)
        let held = try lock.acquire()
        let started = Date()
        XCTAssertThrowsError(try lock.acquire()) { error in
            XCTAssertEqual(error as? SessionError, .locked(path: dir + "/.lock"))
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.15)
        lock.release(held)
        let again = try lock.acquire()
        lock.release(again)
    }

    func testLockWaitsForHolderToFinish() throws {
        let dir = makeTempDir(self)
        let lock = ProfileLock(path: dir + "/.lock", timeout: 5)
        let held = try lock.acquire()
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) {
            lock.release(held)
            released.signal()
        }
        let value = try lock.withLock { () throws(SessionError) in 42 }
        XCTAssertEqual(value, 42)
        XCTAssertEqual(released.wait(timeout: .now() + 5), .success)
    }

    /// A profile folder removed with its lock file while another waited for the lock (a process that
    /// made it and wrote nothing, at its end): the waiter locks the file at the path, made again with
    /// its folders, and a third locker excludes it there.
    func testALockWhoseFileWasRemovedWhileWaitingIsTakenOnTheFileAtItsPath() throws {
        let root = makeTempDir(self) + "/state"
        let folder = root + "/profile"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let lock = ProfileLock(path: folder + "/.lock", timeout: 5)
        let held = try lock.acquire()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) {
            unlink(folder + "/.lock")
            rmdir(folder)
            rmdir(root)
            lock.release(held)
        }
        let fd = try lock.acquire()
        var mine = stat(), there = stat()
        XCTAssertEqual(fstat(fd, &mine), 0)
        XCTAssertEqual(stat(folder + "/.lock", &there), 0, "the lock file is not at its path")
        XCTAssertEqual(mine.st_ino, there.st_ino, "the lock taken is not the file at the path")
        XCTAssertEqual(there.st_mode & 0o777, 0o600)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int, 0o700)
        XCTAssertThrowsError(try ProfileLock(path: folder + "/.lock", timeout: 0.1).acquire(), "a second locker got in beside it")
        lock.release(fd)
    }

    func testLockIsHeldByAnotherProcess() throws {
        let dir = makeTempDir(self)
        let lockPath = dir + "/.lock"
        // The two-descriptor merge tests above cover the lock without flock(1); this one skips only on a
        // machine without util-linux's flock(1) (Debian has it and `make` installs it, so CI runs this).
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/flock") else { throw XCTSkip("flock(1) not installed") }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        // The child holds the lock until its stdin closes.
        holder.arguments = [lockPath, "cat"]
        let stdin = Pipe()
        holder.standardInput = stdin
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        // Wait until the child holds it.
        let probe = ProfileLock(path: lockPath, timeout: 0)
        let deadline = Date().addingTimeInterval(5)
        var sawBusy = false
        while Date() < deadline {
            do {
                let fd = try probe.acquire()
                probe.release(fd)
                usleep(10_000)
            } catch {
                XCTAssertEqual(error, .locked(path: lockPath))
                sawBusy = true
                break
            }
        }
        XCTAssertTrue(sawBusy, "another process's flock excludes us")
        try stdin.fileHandleForWriting.close()
        holder.waitUntilExit()
        let fd = try ProfileLock(path: lockPath, timeout: 5).acquire()
        probe.release(fd)
    }

    func testTwoWritersMergeTheirKeys() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let a = try ProfileStorage(paths: paths, warn: { _ in })
        let b = try ProfileStorage(paths: paths, warn: { _ in })
        try a.appStore.setLastLoginUsername("13800000001")
        try b.appStore.setPrivacyAgreementAccepted(true)
        try a.appStore.setCurrentScenic(id: 2, name: "灵隐寺")
        try b.appStore.setCurrentStoreId(101)
        let fresh = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        XCTAssertEqual(fresh.lastLoginUsername, "13800000001")
        XCTAssertTrue(fresh.privacyAgreementAccepted)
        XCTAssertEqual(fresh.currentScenicId, 2)
        XCTAssertEqual(fresh.currentScenicName, "灵隐寺")
        XCTAssertEqual(fresh.currentStoreId, 101)
        // b saw a's keys when it merged; a removing a key does not resurrect through b.
        XCTAssertEqual(b.appStore.lastLoginUsername, "13800000001")
        try a.appStore.setLastLoginUsername(nil)
        try b.appStore.setPrivacyAgreementAccepted(false)
        let after = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        XCTAssertNil(after.lastLoginUsername)
        XCTAssertFalse(after.privacyAgreementAccepted)
    }

    /// A process that read one account's state does not write its scope changes into another
    /// account's (or a logged-out) state another process saved since; its own login or logout does.
    func testScopeChangesAreNotMergedIntoAnotherAccountsState() throws {
        let dir = makeTempDir(self)
        let path = dir + "/defaults.json"
        func store() -> DefaultsStore { DefaultsStore(path: path, file: SecureFile(warn: WarningRecorder().sink), lock: ProfileLock(path: dir + "/.lock")) }
        let first = store()
        first.set("key_in_user_id", 4003)
        first.set("key_in_account_type", "store")
        try first.save()
        let stale = store(), other = store()
        try stale.load()
        try other.load()
        other.set("key_in_user_id", 3001)
        try other.save()
        stale.set("key_in_current_store_id", 302)
        XCTAssertThrowsError(try stale.save()) { XCTAssertTrue("\($0)".contains("another sxk process"), "\($0)") }
        let disk = store()
        try disk.load()
        XCTAssertNil(disk["key_in_current_store_id"])
        XCTAssertEqual(disk["key_in_user_id"], 3001)
        // Its own change of account (a login) is written, and after it its scope changes too.
        stale.set("key_in_user_id", 4001)
        try stale.save()
        stale.set("key_in_current_store_id", 1)
        try stale.save()
        try disk.load()
        XCTAssertEqual(disk["key_in_user_id"], 4001)
        XCTAssertEqual(disk["key_in_current_store_id"], 1)
    }

    /// Two logins on one profile at once: a login writes its account even where this process read
    /// the same values before the other login replaced them, and a login's state is not written once
    /// another token is the profile's (each write of a login follows its own token's).
    func testALoginWritesItsAccountAndOnlyBesideItsOwnToken() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let account = { (id: Int) in [(key: "key_in_user_id", value: Optional(JSONValue.int(id))), (key: "key_in_account_type", value: Optional(JSONValue.string("scenic")))] }
        let setup = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        try setup.write(account(1001), token: .set("token-1001"))
        let first = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        let second = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        // The second login writes 2001 after the first process read 1001; the first then logs in as 1001.
        try second.write(account(2001), token: .set("token-2001"))
        try first.write(account(1001), token: .set("token-1001b"))
        var disk = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        XCTAssertEqual(try disk.token(), "token-1001b")
        XCTAssertEqual(disk.userId, 1001, "the login's account is not beside its token")
        // A login's account written after another login's token replaced its own (between the
        // token and the account, or after its context loaded) is refused: 2001's token stays
        // beside 2001's state.
        try first.tokens.write("token-1001c")
        try second.write(account(2001), token: .set("token-2001b"))
        XCTAssertThrowsError(try first.batch(expecting: .holds("token-1001c")) { () throws(SessionError) in
            for (key, value) in account(1001) { first.defaults.set(key, value, evenIfUnchanged: true) }
        }) { XCTAssertTrue("\($0)".contains("another sxk process"), "\($0)") }
        XCTAssertThrowsError(try first.batch(expecting: .holds("token-1001c")) { () throws(SessionError) in
            try first.setCurrentStoreId(101)
        }) { XCTAssertTrue("\($0)".contains("another sxk process"), "\($0)") }
        try second.batch(expecting: .holds("token-2001b")) { () throws(SessionError) in try second.setCurrentStoreId(302) }
        disk = try ProfileStorage(paths: paths, warn: { _ in }).appStore
        XCTAssertEqual(try disk.token(), "token-2001b")
        XCTAssertEqual(disk.userId, 2001)
        XCTAssertEqual(disk.currentStoreId, 302)
    }

    /// A switch's token replaces only its own session: not a logout or another login made since the
    /// session took the file (nothing written), and a session that took no file writes as a login does.
    func testASwitchesTokenReplacesOnlyItsOwnSession() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let account = [(key: "key_in_user_id", value: JSONValue?.some(.int(4002)))]
        func open() throws -> AppStore { try ProfileStorage(paths: paths, warn: { _ in }).appStore }
        try open().write([], token: .set("token-4001"))
        let switching = try open()
        XCTAssertEqual(try switching.tokens.read(adopting: true), "token-4001")
        try open().tokens.clear()
        XCTAssertThrowsError(try switching.write(account, token: .set("token-4002"), replacingOwnSession: true)) {
            XCTAssertTrue("\($0)".contains("another sxk process logged in or out"), "\($0)")
        }
        XCTAssertNil(try open().token(), "the logout was undone")
        XCTAssertNil(try open().userId)
        try open().tokens.write("token-2001")
        XCTAssertThrowsError(try switching.write(account, token: .set("token-4002"), replacingOwnSession: true))
        XCTAssertEqual(try open().token(), "token-2001")
        // The same token stored again (another process's switch back): still this session's.
        let again = try open()
        XCTAssertEqual(try again.tokens.read(adopting: true), "token-2001")
        try open().tokens.write("token-2001")
        try again.write(account, token: .set("token-4002"), replacingOwnSession: true)
        XCTAssertEqual(try open().token(), "token-4002")
        XCTAssertEqual(try open().userId, 4002)
        // A store whose session took no file (no read yet) writes as a login does.
        try open().write(account, token: .set("token-x"), replacingOwnSession: true)
        XCTAssertEqual(try open().token(), "token-x")
    }

    /// A logout or an expiry racing another process's login removes only its own session's token and
    /// writes nothing more once a token is stored again; a login's account list is not written beside
    /// another's token; the same account stored again by another login is not another session.
    func testALogoutOrExpiryLeavesANewerLoginAndAListFollowsItsToken() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        func account(_ id: Int?) -> [(key: String, value: JSONValue?)] {
            [(key: "key_in_user_id", value: id.map { .int($0) }), (key: "key_in_account_type", value: id.map { _ in .string("scenic") })]
        }
        func open() throws -> AppStore { try ProfileStorage(paths: paths, warn: { _ in }).appStore }
        let list = { (phone: String) in AccountListStore.List(phone: phone, accounts: []) }
        try open().write(account(1001), token: .set("token-1001"))
        let leaving = try open(), arriving = try open()
        // The session of `leaving` is made from the file as it is now (as a start restores it).
        XCTAssertEqual(try leaving.tokens.read(adopting: true), "token-1001")
        // Another process logs in before the logout (or an expiry of 1001's token) removes anything.
        try arriving.write(account(2001), token: .set("token-2001"))
        try arriving.writeAccountList(list("13800000002"), expectingToken: "token-2001")
        XCTAssertThrowsError(try leaving.write(account(nil), token: .remove, clearAccountList: true)) {
            XCTAssertTrue("\($0)".contains("another sxk process logged in"), "\($0)")
        }
        var disk = try open()
        XCTAssertEqual(try disk.token(), "token-2001")
        XCTAssertEqual(disk.userId, 2001)
        XCTAssertEqual(try disk.accountList.read()?.phone, "13800000002")
        // Between the logout's removal and its other writes: they are not made once a token is back.
        try disk.tokens.clear(ownSessionOnly: true)
        try arriving.write(account(2001), token: .set("token-2001b"))
        XCTAssertThrowsError(try disk.batch(expecting: .absent) { () throws(SessionError) in
            for (key, value) in account(nil) { disk.defaults.set(key, value, evenIfUnchanged: true) }
        })
        XCTAssertThrowsError(try disk.accountList.clear(unlessReplaced: { disk.replaced(.absent) }))
        disk = try open()
        XCTAssertEqual(disk.userId, 2001)
        XCTAssertNotNil(try disk.accountList.read())
        // A login's account list once another token is the profile's: not written, no error.
        XCTAssertFalse(try leaving.writeAccountList(list("13800000001"), expectingToken: "token-1001"))
        XCTAssertEqual(try open().accountList.read()?.phone, "13800000002")
        // The session's own token, its file rewritten (a mode fixed, the same token stored again):
        // still this session's to remove.
        let own = try open()
        try own.write(account(2001), token: .set("token-own"))
        chmod(paths.tokenFile, 0o644)
        try arriving.tokens.write("token-own")
        try own.write(account(nil), token: .remove, clearAccountList: true)
        XCTAssertNil(try open().token())
        // A session made from a token file of a loose mode, fixed during the command: its own still.
        try open().tokens.write("token-loose")
        chmod(paths.tokenFile, 0o644)
        let loose = try open()
        XCTAssertNil(try loose.tokens.read(adopting: true), "a loose token file is refused")
        chmod(paths.tokenFile, 0o600)
        try loose.write(account(nil), token: .remove, clearAccountList: true)
        XCTAssertNil(try open().token())
        // The same account stored by another login since: the first login's context is written.
        try leaving.write(account(2001), token: .set("token-2001c"))
        try arriving.write(account(2001), token: .set("token-2001d"))
        try leaving.batch(expecting: .holds("token-2001c")) { () throws(SessionError) in try leaving.setCurrentStoreId(7) }
        XCTAssertEqual(try open().currentStoreId, 7)
    }

    func testConcurrentWritersLoseNothing() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let stores = try (0..<2).map { _ in try ProfileStorage(paths: paths, warn: { _ in }) }
        let errors = WarningRecorder()
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for i in 0..<25 {
                stores[writer].defaults.set("w\(writer)_\(i)", .int(i))
                do { try stores[writer].defaults.save() } catch { errors.sink("\(error)") }
            }
        }
        XCTAssertEqual(errors.messages, [])
        let keys = Set(try ProfileStorage(paths: paths, warn: { _ in }).defaults.entries.map(\.key))
        XCTAssertEqual(keys.count, 50)
    }

    func testAReloadOfAnUnchangedFileDoesNotReadItAgainButSeesEveryWrite() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        try ProfileStorage(paths: paths, warn: { _ in }).appStore.setLastLoginUsername("13800000001")
        let reader = try ProfileStorage(paths: paths, warn: { _ in })
        // Opening the profile read it once; restoring right after (reload) does not read it again.
        XCTAssertEqual(reader.defaults.diskReads, 1)
        try reader.appStore.reload()
        XCTAssertEqual(reader.defaults.diskReads, 1)
        XCTAssertEqual(reader.appStore.lastLoginUsername, "13800000001")
        // Another process's write, same size and within the same second: seen by the next reload.
        let writer = try ProfileStorage(paths: paths, warn: { _ in })
        try writer.appStore.setLastLoginUsername("13800000002")
        try reader.appStore.reload()
        XCTAssertEqual(reader.defaults.diskReads, 2)
        XCTAssertEqual(reader.appStore.lastLoginUsername, "13800000002")
        // A local change not yet saved stays on top, whether the file is read again or not.
        reader.defaults.set(StoreKey.privacyAgreementAccepted, .bool(true))
        try reader.appStore.reload()
        XCTAssertTrue(reader.appStore.privacyAgreementAccepted)
        try writer.appStore.setLastLoginUsername(nil)
        try reader.appStore.reload()
        XCTAssertNil(reader.appStore.lastLoginUsername)
        XCTAssertTrue(reader.appStore.privacyAgreementAccepted)
        // Its own save is followed by a real read (the file it wrote is the merge, not what it held).
        try reader.appStore.setPrivacyAgreementAccepted(false)
        let reads = reader.defaults.diskReads
        try reader.appStore.reload()
        XCTAssertEqual(reader.defaults.diskReads, reads + 1)
        // The file removed (a reset by another process): read again, and empty.
        try FileManager.default.removeItem(atPath: paths.defaultsFile)
        try reader.appStore.reload()
        XCTAssertNil(reader.appStore.lastLoginUsername)
        XCTAssertFalse(reader.appStore.privacyAgreementAccepted)
    }
}

/// The save's order of new keys and a change given up after a failed save.
final class DefaultsSaveOrderTests: XCTestCase {
    private func store(_ dir: String) -> DefaultsStore {
        DefaultsStore(path: dir + "/defaults.json", file: SecureFile(warn: WarningRecorder().sink), lock: ProfileLock(path: dir + "/.lock"))
    }

    func testNewKeysAreWrittenInTheOrderTheyWereSetWhetherInOneSaveOrSeveral() throws {
        let names = (0..<40).map { "key_\($0 * 7919 % 40)" }
        let one = makeTempDir(self), several = makeTempDir(self)
        let a = store(one), b = store(several)
        a.set("first", .int(0))
        try a.save()
        b.set("first", .int(0))
        try b.save()
        for name in names { a.set(name, .string(name)) }
        try a.save()
        for (i, name) in names.enumerated() {
            b.set(name, .string(name))
            if i % 9 == 0 { try b.save() }
        }
        try b.save()
        XCTAssertEqual(readText(one + "/defaults.json"), readText(several + "/defaults.json"))
        let keys = try XCTUnwrap(JSONParser.parse(Array((readText(one + "/defaults.json") ?? "").utf8)).objectValue).keys
        XCTAssertEqual(keys, ["first"] + names)
    }

    func testARevertedChangeIsNotWrittenByTheNextSave() throws {
        let dir = makeTempDir(self)
        let s = store(dir)
        s.set("kept", .int(1))
        s.set("given_up", .int(2))
        // A folder where the file goes: the save fails and both changes stay pending.
        try FileManager.default.createDirectory(atPath: dir + "/defaults.json/blocked", withIntermediateDirectories: true)
        XCTAssertThrowsError(try s.save())
        XCTAssertTrue(s.isPending("given_up"))
        s.revert("given_up", to: nil, pending: false)
        XCTAssertFalse(s.isPending("given_up"))
        XCTAssertNil(s["given_up"])
        try FileManager.default.removeItem(atPath: dir + "/defaults.json")
        try s.save()
        let saved = try XCTUnwrap(JSONParser.parse(Array((readText(dir + "/defaults.json") ?? "").utf8)).objectValue)
        XCTAssertEqual(saved.keys, ["kept"])
    }
}
