import Foundation
import XCTest
@testable import SXKSession

/// `backend.json` and the token change together: recorded first under the token write's lock, and put
/// back when the token cannot be written, so no reader ever finds the old token beside a new owner.
final class ProfileBackendTests: XCTestCase {
    func testAFailedTokenWritePutsTheRecordBack() throws {
        let dir = makeTempDir(self)
        let paths = try makePaths(dir)
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        let a = ProfileBackend(environment: "custom", baseURL: "http://127.0.0.1:1001")
        let b = ProfileBackend(environment: "custom", baseURL: "http://127.0.0.1:1002")
        func record() -> ProfileBackend.Record { ProfileBackend.record(root: paths.root, profile: paths.profile) }

        // The first token's backend is recorded with it.
        storage.appStore.tokens.beforeWrite = { [storage] () throws(SessionError) in try a.rememberHoldingLock(in: storage) }
        try storage.appStore.tokens.write("first-token-0123456789")
        XCTAssertEqual(record(), .known(a))

        // Another backend's token that cannot be written (a folder is where the file goes): A's record stays.
        storage.appStore.tokens.beforeWrite = { [storage] () throws(SessionError) in try b.rememberHoldingLock(in: storage) }
        try FileManager.default.removeItem(atPath: paths.tokenFile)
        try FileManager.default.createDirectory(atPath: paths.tokenFile, withIntermediateDirectories: false)
        XCTAssertThrowsError(try storage.appStore.tokens.write("second-token-0123456789"))
        XCTAssertEqual(record(), .known(a), "the record names a backend whose token was never written")

        // With no record before, a failed write leaves none; an unreadable one stays unreadable.
        try FileManager.default.removeItem(atPath: ProfileBackend.path(root: paths.root, profile: paths.profile))
        XCTAssertThrowsError(try storage.appStore.tokens.write("second-token-0123456789"))
        XCTAssertEqual(record(), .none)
        try Data("{\"environment\":".utf8).write(to: URL(fileURLWithPath: ProfileBackend.path(root: paths.root, profile: paths.profile)))
        XCTAssertThrowsError(try storage.appStore.tokens.write("second-token-0123456789"))
        XCTAssertEqual(record(), .unreadable)
    }

    func testTheSameBackendIsTheSameWhateverItsCapitals() {
        let lower = ProfileBackend(environment: "custom", baseURL: "http://api.example.test:8080")
        XCTAssertTrue(lower.isSameBackend(as: ProfileBackend(environment: "custom", baseURL: "HTTP://API.Example.test:8080/")))
        XCTAssertFalse(lower.isSameBackend(as: ProfileBackend(environment: "custom", baseURL: "http://api.example.test:8081")))
        XCTAssertFalse(lower.isSameBackend(as: ProfileBackend(environment: "test", baseURL: nil)))
        // The path keeps its case: another path may be another service.
        XCTAssertFalse(ProfileBackend(environment: "custom", baseURL: "http://h/API").isSameBackend(as: ProfileBackend(environment: "custom", baseURL: "http://h/api")))
    }
}
