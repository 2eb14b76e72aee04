import Foundation
import XCTest

/// `env` lists every environment's stored session from its own files (read only), and every time
/// sxk prints carries its UTC offset in the local zone (README "Times").
final class EnvTests: XCTestCase {
    var url: URL { SharedSandbox.url }

    func testEnvListsEachProfilesSessionWithoutChangingIt() throws {
        let ws = Workspace()
        SXK.login("13800000003", in: ws, baseURL: url)
        let profile = "127.0.0.1-\(url.port!)"
        let defaults = ws.stateDir + "/\(profile)/defaults.json"
        let before = try XCTUnwrap(ws.read(defaults))
        // From the test environment: the base-URL profile is listed from disk, not current.
        let r = SXK.run(["--env", "test", "env", "--json"], in: ws, baseURL: nil)
        XCTAssertEqual(r.status, 0, r.summary)
        let object = try XCTUnwrap(try r.json() as? [String: Any], r.summary)
        let rows = try XCTUnwrap(object["environments"] as? [[String: Any]], r.summary)
        XCTAssertEqual(rows.prefix(3).compactMap { $0["name"] as? String }, ["test", "release", "sandbox"], r.summary)
        let test = try XCTUnwrap(rows.first { $0["name"] as? String == "test" })
        XCTAssertEqual(test["current"] as? Bool, true)
        XCTAssertEqual(test["session"] as? Bool, false)
        let custom = try XCTUnwrap(rows.first { $0["profile"] as? String == profile }, r.summary)
        XCTAssertEqual(custom["current"] as? Bool, false)
        XCTAssertEqual(custom["session"] as? Bool, true)
        XCTAssertEqual(custom["role"] as? String, "storeAdmin")
        XCTAssertNotNil(custom["account"] as? String)
        XCTAssertNotNil(custom["validatedAgeSeconds"] as? Int, r.summary)
        XCTAssertEqual(ws.read(defaults), before, "env must not write the profile it reads")

        let human = SXK.run(["--env", "test", "env"], in: ws, baseURL: nil)
        let line = try XCTUnwrap(human.stdout.split(separator: "\n").first { $0.contains(profile) }, human.summary)
        XCTAssertTrue(line.contains("stored") && line.contains("storeAdmin") && line.contains(" ago"), String(line))
    }

    /// The same stored report time, shown in two zones: each with its own offset.
    func testTimesCarryTheirOffsetInTheLocalZone() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let report = SXK.run(["-c", "location online; location report"], in: ws, baseURL: url)
        XCTAssertEqual(report.status, 0, report.summary)
        var seen: [String: String] = [:]
        for (zone, offset) in [("UTC", "+00:00"), ("Asia/Shanghai", "+08:00")] {
            let human = SXK.run(["location"], in: ws, baseURL: url, env: ["TZ": zone])
            let line = try XCTUnwrap(human.stdout.split(separator: "\n").first { $0.hasPrefix("last report") }, human.summary)
            XCTAssertTrue(line.hasSuffix(" " + offset), "\(zone): \(line)")
            let json = SXK.run(["location", "--json"], in: ws, baseURL: url, env: ["TZ": zone])
            let stamp = try XCTUnwrap((try json.json() as? [String: Any])?["lastReportTime"] as? String, json.summary)
            XCTAssertTrue(stamp.hasSuffix(offset) && stamp.contains("T"), "\(zone): \(stamp)")
            seen[zone] = stamp
        }
        // One instant: the two ISO stamps parse to the same time.
        let f = ISO8601DateFormatter()
        XCTAssertEqual(seen["UTC"].flatMap(f.date), seen["Asia/Shanghai"].flatMap(f.date), "\(seen)")

        // A wire time in a known column: the orders CREATED cell in the local zone with its offset,
        // while --json and CSV (data as received) keep the server's text.
        let wire = try XCTUnwrap(((try SXK.run(["orders", "--page-size", "1", "--json"], in: ws, baseURL: url).json() as? [String: Any])?["list"]
            as? [[String: Any]])?.first?["createTime"] as? String)
        for (zone, offset) in [("UTC", "+00:00"), ("Asia/Shanghai", "+08:00")] {
            let table = SXK.run(["orders", "--page-size", "1", "--columns", "createTime"], in: ws, baseURL: url, env: ["TZ": zone])
            let cell = try XCTUnwrap(table.stdout.split(separator: "\n").dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) }, table.summary)
            XCTAssertTrue(cell.hasSuffix(" " + offset), "\(zone): \(cell)")
            if zone == "Asia/Shanghai" { XCTAssertEqual(cell, wire + " +08:00") } else { XCTAssertNotEqual(cell.prefix(19), Substring(wire)) }
            let csv = SXK.run(["orders", "--page-size", "1", "--csv", "--columns", "createTime"], in: ws, baseURL: url, env: ["TZ": zone])
            XCTAssertEqual(csv.stdout.split(separator: "\n").dropFirst().first.map(String.init), wire, csv.summary)
        }
    }

    /// `env use` of a backend refused before anything is stored (plain http to another host) leaves
    /// no profile folder behind for `env` to list.
    func testARefusedEnvUseLeavesNoProfile() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "env use http://10.0.0.1:80"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 2, r.summary)
        XCTAssertTrue(r.stderr.contains("refusing plain http"), r.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/10.0.0.1-80"), r.summary)
    }

    /// So does such a backend named on the command line, before any command runs; `--insecure-http`
    /// allows it (nothing is sent here: `keys` reads the profile only).
    func testARefusedBaseURLLeavesNoProfile() throws {
        let ws = Workspace()
        for args in [["config"], ["-c", "keys"], ["whoami"]] {
            let r = SXK.run(args, in: ws, baseURL: URL(string: "http://10.0.0.1:80")!)
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertEqual(r.stderrLines, ["error: refusing plain http to a non-loopback host (http://10.0.0.1:80); use https or --insecure-http"], r.summary)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: ws.stateDir), [], r.summary)
        }
        let allowed = SXK.run(["--insecure-http", "keys"], in: ws, baseURL: URL(string: "http://10.0.0.1:80")!)
        XCTAssertEqual(allowed.status, 0, allowed.summary)
    }
}
