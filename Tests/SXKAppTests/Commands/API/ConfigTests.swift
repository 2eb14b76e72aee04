import Foundation
import SXKSandbox
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

    /// A config answer whose `data` is an empty object is no record to give keys to: its table is
    /// empty, `--csv` prints the empty table's header and no blank row, `--json` the `{}` as sent.
    func testAnEmptyConfigIsNoRecord() throws {
        let (server, base) = try startSandbox(SandboxConfig())
        defer { server.stop() }
        let ws = Workspace()
        server.injectFault(SandboxFault(path: "/api/app/config", kind: .dataEmpty, count: 3))
        XCTAssertEqual(SXK.run(["config", "--json"], in: ws, baseURL: base).stdout, "{}\n")
        let csv = SXK.run(["config", "--csv"], in: ws, baseURL: base)
        XCTAssertEqual(csv.status, 0, csv.summary)
        XCTAssertFalse(csv.stdout.contains("\n\n"), csv.summary)
        let columns = SXK.run(["config", "--columns", "minVersion"], in: ws, baseURL: base)
        XCTAssertEqual(columns.status, 2, columns.summary)
    }
}
