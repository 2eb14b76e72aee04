import Foundation
import XCTest
@testable import SXKCore

/// README "Times": wire timestamps (Shanghai) shown in the local zone with the offset. The integer
/// path must agree with Calendar's answer everywhere, including daylight-saving zones and leap days.
final class LocalTimeTests: XCTestCase {
    func testFastWireConversionAgreesWithCalendar() throws {
        let zones = ["UTC", "Asia/Shanghai", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Pacific/Auckland", "America/St_Johns"]
            .compactMap(TimeZone.init(identifier:))
        XCTAssertEqual(zones.count, 7)
        var generator = SystemRandomNumberGenerator()
        var samples = ["2024-02-29 23:59:59", "2026-03-08 10:30:00", "2026-11-01 13:59:59", "1992-01-01 00:00:00", "2099-12-31 23:59:59",
                       "2026-12-01 07:59:59", "2026-12-01 08:00:00"]
        for _ in 0..<2000 {
            let instant = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 700_000_000...4_000_000_000, using: &generator)))
            samples.append(WireDate.timestamp(instant))
        }
        for zone in zones {
            for text in samples {
                let slow = try XCTUnwrap(WireDate.parseTimestamp(text)).map { LocalTime.human($0, zone: zone) }
                XCTAssertEqual(FastWire.human(text, zone: zone), slow, "\(text) in \(zone.identifier)")
            }
        }
    }

    /// Rows next to each other around a clock change that falls on a half hour (St John's, Adelaide),
    /// in both orders: the kept offset must not outlive the change.
    func testConsecutiveTimesAcrossAHalfHourClockChange() throws {
        for (zoneName, pair) in [("America/St_Johns", ["2026-03-08 13:15:00", "2026-03-08 13:45:00"]),
                                 ("Australia/Adelaide", ["2026-10-04 00:10:00", "2026-10-04 00:50:00"]),
                                 ("Europe/Berlin", ["2026-03-29 08:59:59", "2026-03-29 09:00:00"])] {
            let zone = try XCTUnwrap(TimeZone(identifier: zoneName))
            for text in pair + pair.reversed() + pair {
                let slow = try XCTUnwrap(WireDate.parseTimestamp(text)).map { LocalTime.human($0, zone: zone) }
                XCTAssertEqual(FastWire.human(text, zone: zone), slow, "\(text) in \(zoneName)")
            }
        }
    }

    func testOtherShapesAreLeftToTheCalendarPathOrShownAsReceived() {
        let utc = TimeZone(identifier: "UTC")!
        for text in ["2026-02-30 10:00:00", "2026-13-01 10:00:00", "2026-12-01T10:00:00", "2026-12-01 24:00:00", "1980-05-01 10:00:00", "２０２６-12-01 10:00:00", ""] {
            XCTAssertNil(FastWire.human(text, zone: utc), text)
        }
        XCTAssertEqual(LocalTime.human(wire: "2026-12-01 10:00:00", zone: utc), "2026-12-01 02:00:00 +00:00")
        XCTAssertEqual(LocalTime.human(wire: "1980-05-01 10:00:00", zone: utc), "1980-05-01 02:00:00 +00:00")
        XCTAssertEqual(LocalTime.human(wire: "not a time", zone: utc), "not a time")
    }
}
