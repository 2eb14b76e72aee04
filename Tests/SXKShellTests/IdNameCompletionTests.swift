import XCTest
@testable import SXKShell

final class IdNameCompletionTests: XCTestCase {
    private struct Item { var id: Int; var name: String; var group: Int }

    private func pairs(_ group: Int?) -> (Item) -> (id: String, name: String)? {
        { item in group == nil || item.group == group ? (String(item.id), item.name) : nil }
    }

    func testIdsThenNamesByPrefixEachNameOnce() {
        let items = [Item(id: 101, name: "断桥摄影店", group: 1), Item(id: 102, name: "苏堤旅拍馆", group: 1),
                     Item(id: 103, name: "断桥摄影店", group: 1), Item(id: 201, name: "灵隐禅心摄影", group: 2)]
        let index = IdNameCompletion()
        XCTAssertEqual(index.candidates(from: items, prefix: "10", pair: pairs(nil)).map(\.value), ["101", "102", "103"])
        XCTAssertEqual(index.candidates(from: items, prefix: "断", pair: pairs(nil)),
                       [CompletionCandidate("断桥摄影店", description: "101")])
        XCTAssertEqual(index.candidates(from: items, prefix: "", pair: pairs(nil)).map(\.value),
                       ["101", "102", "103", "201", "断桥摄影店", "苏堤旅拍馆", "灵隐禅心摄影"])
        XCTAssertEqual(index.candidates(from: items, prefix: "x", pair: pairs(nil)), [])
    }

    func testANewListOrDiscriminatorRebuildsTheSameListIsReused() {
        let index = IdNameCompletion()
        var items = [Item(id: 1, name: "西湖景区", group: 1), Item(id: 2, name: "灵隐寺", group: 2)]
        XCTAssertEqual(index.candidates(from: items, discriminator: 1, prefix: "", pair: pairs(1)).map(\.value), ["1", "西湖景区"])
        // Same discriminator, same array, a different closure: the cached index answers (that is the point).
        XCTAssertEqual(index.candidates(from: items, discriminator: 1, prefix: "", pair: pairs(2)).map(\.value), ["1", "西湖景区"])
        XCTAssertEqual(index.candidates(from: items, discriminator: 2, prefix: "", pair: pairs(2)).map(\.value), ["2", "灵隐寺"])
        items.append(Item(id: 3, name: "千岛湖", group: 2))
        XCTAssertEqual(index.candidates(from: items, discriminator: 2, prefix: "", pair: pairs(2)).map(\.value), ["2", "3", "灵隐寺", "千岛湖"])
        items[0].name = "改名"
        XCTAssertEqual(index.candidates(from: items, discriminator: nil, prefix: "改", pair: pairs(nil)).map(\.value), ["改名"],
                       "a mutated copy is a new buffer, so the index is rebuilt")
    }

    func testAnIdEqualToANameIsOfferedOnce() {
        let items = [Item(id: 7, name: "7", group: 1)]
        XCTAssertEqual(IdNameCompletion().candidates(from: items, prefix: "7", pair: pairs(nil)),
                       [CompletionCandidate("7", description: "7")])
    }
}
