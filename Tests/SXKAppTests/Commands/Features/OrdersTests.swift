import Foundation
import XCTest

/// `orders`: one page of the role's orders with a paging footer; `--all` every row.
final class OrdersTests: XCTestCase {
    func testOrdersPrintsOnePageWithItsFooterAndAllWalksEveryPage() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        let page = SXK.run(["orders", "--page-size", "3"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(page.status, 0, page.summary)
        let lines = page.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 5, "header, 3 rows, footer: \(page.summary)")
        let footer = try XCTUnwrap(lines.last.map(String.init))
        XCTAssertTrue(footer.hasPrefix("page 1/") && footer.hasSuffix(" · photographer"), footer)
        let json = try XCTUnwrap(try SXK.run(["orders", "--page-size", "3", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        let total = try XCTUnwrap(json.wireInt("total"))
        let all = SXK.run(["orders", "--all", "--ndjson"], in: ws, baseURL: SharedSandbox.url, timeout: 60)
        XCTAssertEqual(all.status, 0, all.summary)
        XCTAssertEqual(all.stdout.split(separator: "\n").count, total, "--all printed every order once")
    }
}
