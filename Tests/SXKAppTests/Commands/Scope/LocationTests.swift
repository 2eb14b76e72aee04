import Foundation
import XCTest

/// `location`: the location state the app keeps on the device; `online` / `offline` change it locally.
final class LocationTests: XCTestCase {
    func testOnlineAndOfflineChangeTheStoredState() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        func online() throws -> Bool? {
            let r = SXK.run(["location", "--json"], in: ws, baseURL: SharedSandbox.url)
            XCTAssertEqual(r.status, 0, r.summary)
            return try XCTUnwrap(try r.json() as? [String: Any], r.summary)["online"] as? Bool
        }
        XCTAssertEqual(try online(), false)
        let on = SXK.run(["location", "online"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(on.status, 0, on.summary)
        XCTAssertTrue(on.stderr.contains("stored locally only"), on.summary)
        XCTAssertEqual(try online(), true)
        XCTAssertEqual(SXK.run(["location", "offline"], in: ws, baseURL: SharedSandbox.url).status, 0)
        XCTAssertEqual(try online(), false)
    }

    /// A stored report time from far away (a hand-edited or corrupted file) is shown, in the table
    /// and in `--json` alike, without a trap.
    func testAReportTimeFromFarAwayIsShownWithoutATrap() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(SXK.run(["location", "online"], in: ws, baseURL: SharedSandbox.url).status, 0)
        for time in [1e20, -1e20] {
            try ws.setStored("1001_scenic_key_last_location_report_time", time)
            for format in [[], ["--json"]] {
                let r = SXK.run(["location"] + format, in: ws, baseURL: SharedSandbox.url)
                XCTAssertEqual(r.status, 0, "\(time) \(format): \(r.summary)")
            }
        }
    }

    /// A last report ahead of the clock (a device clock set forward): online with the whole 2 hours, the
    /// report said to be in the future, not a negative span; `--json` keeps the signed seconds.
    func testAReportTimeInTheFutureIsSaidAsSuch() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(SXK.run(["location", "online"], in: ws, baseURL: SharedSandbox.url).status, 0)
        try ws.setStored("1001_scenic_key_last_location_report_time", Date().addingTimeInterval(3_600).timeIntervalSince1970)
        let r = SXK.run(["location"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stdout.contains("ahead of this clock)"), r.summary)
        XCTAssertFalse(r.stdout.contains("-59m") || r.stdout.contains("-1h"), r.summary)
        XCTAssertTrue(r.stderr.contains("the last report time is in the future"), r.summary)
        let json = try XCTUnwrap(try SXK.run(["location", "--json"], in: ws, baseURL: SharedSandbox.url).json() as? [String: Any])
        XCTAssertLessThan(try XCTUnwrap(json["elapsedSeconds"] as? Int), 0, "\(json)")
        // The home's replay says it too, with the inferred rule's basis, not under the seed's alone.
        let home = SXK.run(["home", "--offline"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertTrue(home.stdout.contains("(the last report is not in the past: the countdown counts the whole 2 hours from now [inferred"), home.summary)
    }

    /// Logged out there is no account whose keys a switch could write (the app shows the login page):
    /// every switch is refused with exit 3 and nothing is written, not even the `guest` scope's keys.
    func testSwitchesNeedASession() throws {
        let ws = Workspace()
        for argv in [["location", "online"], ["location", "offline"], ["location", "report"], ["location", "remind", "30"]] {
            let r = SXK.run(argv, in: ws, baseURL: SharedSandbox.url)
            XCTAssertEqual(r.status, 3, r.summary)
            XCTAssertEqual(r.errorLines, ["error: not logged in — run `login`"], r.summary)
        }
        XCTAssertNil(ws.read(ws.defaultsFile), "a logged-out switch wrote defaults.json")
        // Showing the stored state still works logged out.
        XCTAssertEqual(SXK.run(["location"], in: ws, baseURL: SharedSandbox.url).status, 0)
    }
}
