import Foundation
import XCTest

/// `scenic`: the role's scenic areas, the current one marked.
final class ScenicTests: XCTestCase {
    func testScenicListsTheRolesScenicAreasWithTheCurrentMarked() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let r = SXK.run(["scenic", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        let scenics = try XCTUnwrap(try r.json() as? [[String: Any]], r.summary)
        XCTAssertEqual(scenics.map { $0["scenicId"] as? Int }, [1], r.summary)
        XCTAssertEqual(scenics.first?["current"] as? Bool, true, r.summary)
        let table = SXK.run(["scenic"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertTrue(table.stdout.contains("*   1  西湖景区"), table.summary)
    }
}
