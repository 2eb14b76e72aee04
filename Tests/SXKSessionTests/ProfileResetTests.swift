import Foundation
import XCTest
@testable import SXKSession
import SXKFeatures
#if canImport(Glibc)
import Glibc
#endif

/// `--reset-state` at the storage level: what goes, what stays, and the lock.
final class ProfileResetTests: XCTestCase {
    func testRemovesTokenAndDefaultsOnlyOfThatProfile() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir, profile: "p")
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        try storage.appStore.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        try storage.appStore.setLocationReminderMinutes(30)
        writeRaw(paths.historyFile, Array("_HiStOrY_V2_\nwhoami\n".utf8))
        writeRaw(paths.defaultsFile + ".corrupt-20260101000000", Array("{".utf8))
        let other = try ProfileStorage(paths: try makePaths(dir, profile: "q"), warn: { _ in })
        try other.appStore.saveLogin(token: Demo.token, account: Demo.storeAdmin, phone: "13800000003", privacyAccepted: true)

        let reset = ProfileReset(paths: paths)
        XCTAssertEqual(reset.storedFiles, [paths.tokenFile, paths.defaultsFile])
        XCTAssertEqual(try reset.run(), [paths.tokenFile, paths.defaultsFile])
        XCTAssertFalse(exists(paths.tokenFile))
        XCTAssertFalse(exists(paths.defaultsFile))
        XCTAssertTrue(exists(paths.historyFile), "history is kept")
        XCTAssertTrue(exists(paths.defaultsFile + ".corrupt-20260101000000"), "set-aside evidence is kept")
        XCTAssertTrue(exists(other.paths.tokenFile), "another profile was touched")
        XCTAssertEqual(reset.storedFiles, [])
        XCTAssertEqual(try reset.run(), [], "a second reset has nothing to remove")

        // Reopened, the profile is a fresh device: no token, no snapshot, no preferences, no scoped keys.
        let reopened = try ProfileStorage(paths: paths, warn: { _ in })
        XCTAssertNil(try reopened.appStore.token())
        XCTAssertFalse(reopened.appStore.hasAccountSnapshot)
        XCTAssertFalse(reopened.appStore.privacyAgreementAccepted)
        XCTAssertNil(reopened.appStore.lastLoginUsername)
        XCTAssertTrue(reopened.appStore.defaults.entries.isEmpty)
    }

    /// A token file set aside as corrupt may still hold a token: a reset and a logout remove it with
    /// the token; the other set-aside files stay as evidence.
    func testTheTokensSetAsideCopiesGoWithTheToken() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir, profile: "p")
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        try storage.appStore.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        let copy = paths.tokenFile + ".corrupt-20260101000000"
        writeRaw(copy, Array((Demo.token + " \n").utf8))
        writeRaw(paths.defaultsFile + ".corrupt-20260101000000", Array("{".utf8))
        XCTAssertEqual(try ProfileReset(paths: paths).run(), [paths.tokenFile, copy, paths.defaultsFile])
        XCTAssertFalse(exists(copy))
        XCTAssertTrue(exists(paths.defaultsFile + ".corrupt-20260101000000"))

        writeRaw(copy, Array((Demo.token + " \n").utf8))
        try storage.appStore.tokens.write(Demo.token)
        try storage.appStore.tokens.clear()
        XCTAssertFalse(exists(copy), "a logout left a copy of the token behind")
    }

    /// A logout whose token cannot be removed (a folder planted at its name) still clears the
    /// snapshot, and says why the token stayed.
    func testALogoutThatCannotRemoveTheTokenClearsTheRest() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir, profile: "p")
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        try storage.appStore.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        try FileManager.default.removeItem(atPath: paths.tokenFile)
        try FileManager.default.createDirectory(atPath: paths.tokenFile + "/x", withIntermediateDirectories: true)
        let plan = AppModel.logout(state: storage.appStore)
        XCTAssertThrowsError(try AppModel.apply(plan, to: storage.appStore))
        let reopened = try ProfileStorage(paths: paths, warn: { _ in })
        XCTAssertFalse(reopened.appStore.hasAccountSnapshot, "the snapshot stayed because the token could not go")
    }

    func testMissingProfileIsLeftUncreated() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir, profile: "never")
        XCTAssertEqual(try ProfileReset(paths: paths).run(), [])
        XCTAssertFalse(exists(paths.profileDir))
    }

    func testWaitsForTheProfileLockAndGivesUp() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir, profile: "p")
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        try storage.appStore.saveLogin(token: Demo.token, account: Demo.photographer, phone: "13800000001", privacyAccepted: true)
        let fd = try storage.lock.acquire()
        XCTAssertThrowsError(try ProfileReset(paths: paths, lockTimeout: 0.2).run()) { error in
            XCTAssertEqual(error as? SessionError, .locked(path: paths.lockFile))
        }
        XCTAssertTrue(exists(paths.tokenFile), "removed while another holder had the lock")
        storage.lock.release(fd)
        XCTAssertEqual(try ProfileReset(paths: paths, lockTimeout: 0.2).run().count, 2)
    }

    func testSymlinkedTokenIsRemovedNotItsTarget() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir, profile: "p")
        _ = try ProfileStorage(paths: paths, warn: { _ in })
        let target = dir + "/elsewhere"
        writeRaw(target, Array("keep me".utf8))
        XCTAssertEqual(symlink(target, paths.tokenFile), 0)
        XCTAssertEqual(try ProfileReset(paths: paths).run(), [paths.tokenFile])
        XCTAssertFalse(exists(paths.tokenFile))
        XCTAssertEqual(readText(target), "keep me")
    }
}
