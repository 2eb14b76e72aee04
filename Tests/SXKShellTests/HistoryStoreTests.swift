import Foundation
import XCTest
@testable import SXKShell

final class HistoryStoreTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "sxk-hist-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func mode(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! Int
    }

    func testFilterRules() {
        let specs = Builtins.merged(with: Fixtures.specs)
        XCTAssertTrue(HistoryStore.shouldPersist("orders --all", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist(" orders --all", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("login 13800000001", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("version; login", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("help login", specs: specs))
    }

    func testTwoSaversMergeAndFilterUnderUmaskZero() throws {
        let path = dir + "/profile/history"
        let old = umask(0)
        defer { umask(old) }

        let a = HistoryStore(path: path)
        let b = HistoryStore(path: path)
        a.load()
        b.load()
        a.add("orders --all", persist: true)
        a.add(" secret", persist: false)
        b.add("scenic 西湖景区", persist: true)
        a.add("login 13800000001", persist: false)
        try a.save()
        try b.save()
        b.add("stats daily", persist: true)
        try b.save()

        XCTAssertEqual(HistoryStore.read(path: path), ["orders --all", "scenic 西湖景区", "stats daily"])
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertEqual(try mode(dir + "/profile"), 0o700)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("_HiStOrY_V2_\n"))
        XCTAssertTrue(text.contains("orders\\040--all"))
        XCTAssertFalse(text.contains("secret"))
        XCTAssertFalse(text.contains("login"))
        // Recall within the session still has every line.
        XCTAssertEqual(a.entries, ["orders --all", " secret", "login 13800000001"])
        // No temp files left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir + "/profile").filter { $0.contains("tmp") }
        XCTAssertEqual(leftovers, [])
        // A new session loads the merged file.
        let c = HistoryStore(path: path)
        c.load()
        XCTAssertEqual(c.entries, ["orders --all", "scenic 西湖景区", "stats daily"])
    }

    func testNothingToSaveLeavesNoFile() throws {
        let path = dir + "/history"
        let s = HistoryStore(path: path)
        s.add(" hidden", persist: false)
        try s.save()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }
}
