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

    /// A config answer whose `data` is an empty object is a record of no keys in every format:
    /// `--json` prints the `{}` as sent, the row formats no row (and no blank line), and `--columns`
    /// has nothing to choose, as a record with keys refuses a name it does not have.
    func testAnEmptyConfigIsARecordOfNoKeys() throws {
        let (server, base) = try startSandbox(SandboxConfig())
        defer { server.stop() }
        let ws = Workspace()
        server.injectFault(SandboxFault(path: "/api/app/config", kind: .dataEmpty, count: 10))
        XCTAssertEqual(SXK.run(["config", "--json"], in: ws, baseURL: base).stdout, "{}\n")
        for format in ["--csv", "--tsv", "--ndjson", "--expanded"] {
            let r = SXK.run(["config", format], in: ws, baseURL: base)
            XCTAssertEqual(r.status, 0, r.summary)
            XCTAssertEqual(r.stdout, "", "\(format): \(r.summary)")
        }
        let columns = SXK.run(["config", "--columns", "key"], in: ws, baseURL: base)
        XCTAssertEqual(columns.status, 2, columns.summary)
        XCTAssertEqual(columns.errorLines, ["error: unknown column 'key'; there are none to choose from"], columns.summary)
    }
}
