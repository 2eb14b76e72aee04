import Foundation
import XCTest

/// `config`: the login page's first call, which needs no login, as key/value rows or as JSON.
final class ConfigTests: XCTestCase {
    func testConfigNeedsNoLoginAndShowsEveryMember() throws {
        let ws = Workspace()
        let json = SXK.run(["config", "--json"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(json.status, 0, json.summary)
        let config = try XCTUnwrap(try json.json() as? [String: Any], json.summary)
        XCTAssertNotNil(config.wire("minVersion"), json.summary)
        let table = SXK.run(["config"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(table.status, 0, table.summary)
        let lines = table.stdout.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("KEY") == true, table.summary)
        XCTAssertEqual(lines.count, config.count + 1, "one row per member: \(table.summary)")
    }
}
