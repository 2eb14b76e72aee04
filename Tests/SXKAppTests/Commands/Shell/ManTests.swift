import Foundation
import XCTest
@testable import SXKApp

/// `man`: the manual page and `man readme` README's command table, both from the specs.
final class ManTests: XCTestCase {
    func testManPrintsThePageAndReadmeTheTable() {
        let ws = Workspace()
        let page = SXK.run(["man"], in: ws, baseURL: nil)
        XCTAssertEqual(page.status, 0, page.summary)
        XCTAssertEqual(page.stdout, Manual.page)
        XCTAssertTrue(page.stdout.hasPrefix(".\\\""), "not roff: \(page.stdout.prefix(80))")
        let table = SXK.run(["man", "readme"], in: ws, baseURL: nil)
        XCTAssertEqual(table.status, 0, table.summary)
        XCTAssertEqual(table.stdout, Manual.commandTable)
        XCTAssertTrue(table.stdout.hasPrefix("| command | does |\n| --- | --- |\n| `env"), table.summary)
    }
}
