import Foundation
import SXKModels
import SXKSession
import XCTest
@testable import SXKApp

/// The store list kept for Tab completion is parsed once per version of its file, not at every Tab:
/// a list of thousands costs one parse, and a new list (a new file) is read again.
final class StoreListCacheTests: XCTestCase {
    func testTheKeptListIsParsedOncePerVersion() throws {
        let dir = NSTemporaryDirectory() + "sxk-stores-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = try StatePaths.resolve(stateDir: dir, profile: "p", envName: "test", environment: [:])
        let storage = try ProfileStorage(paths: paths, warn: { _ in })
        let many = (1...20_000).map { Store(storeId: $0, storeName: "店 \($0)", scenicId: 1) }
        StoreListCache.remember(many, in: storage)
        let before = StoreListCache.parses.load(ordering: .relaxed)
        XCTAssertEqual(StoreListCache.read(storage).count, 20_000)
        XCTAssertEqual(StoreListCache.read(storage).count, 20_000)
        XCTAssertEqual(StoreListCache.read(storage).count, 20_000)
        XCTAssertLessThanOrEqual(StoreListCache.parses.load(ordering: .relaxed) - before, 1, "parsed at every read")
        StoreListCache.remember([Store(storeId: 7, storeName: "新店", scenicId: 1)], in: storage)
        XCTAssertEqual(StoreListCache.read(storage).map(\.storeId), [7], "a new list is read again")
    }
}
