import Foundation
import XCTest
@testable import SXKCore

/// README "Times": wire timestamps (Shanghai) shown in the local zone with the offset. sxk asks the
/// C library for the zone (`TZ`); Foundation's calendar, with ICU's zone data, is the oracle here.
final class LocalTimeTests: XCTestCase {
    static let zones = ["UTC", "Asia/Shanghai", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Pacific/Auckland",
                        "America/St_Johns", "Australia/Adelaide", "Asia/Kathmandu", "Pacific/Chatham"]

    /// Runs `body` with the process's zone set to `name`, as `TZ=name sxk …` would start.
    func inZone(_ name: String, _ body: () throws -> Void) rethrows {
        let old = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", name, 1)
        tzset()
        FastWire.cache.forget()
        defer {
            if let old { setenv("TZ", old, 1) } else { unsetenv("TZ") }
            tzset()
            FastWire.cache.forget()
        }
        try body()
    }

    /// `yyyy-MM-dd HH:mm:ss ±hh:mm` by Foundation's calendar in `zone`.
    func expected(_ date: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let offset = zone.secondsFromGMT(for: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d %@%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!,
                      offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) % 3600 / 60)
    }

    func samples(_ count: Int) -> [Date] {
        var generator = SystemRandomNumberGenerator()
        var dates = ["2024-02-29 23:59:59", "2026-03-08 10:30:00", "2026-11-01 13:59:59", "1992-01-01 00:00:00", "2099-12-31 23:59:59",
                     "2026-12-01 07:59:59", "2026-12-01 08:00:00", "2026-03-29 08:59:59", "2026-03-29 09:00:00"].compactMap(WireDate.parseTimestamp)
        for _ in 0..<count {
            dates.append(Date(timeIntervalSince1970: TimeInterval(Int.random(in: 700_000_000...4_000_000_000, using: &generator))))
        }
        return dates
    }

    func testLocalTimesAgreeWithFoundationInEveryZone() throws {
        let dates = samples(1500)
        for name in Self.zones {
            let zone = try XCTUnwrap(TimeZone(identifier: name))
            try inZone(name) {
                for date in dates {
                    let want = expected(date, zone)
                    XCTAssertEqual(LocalTime.human(date), want, "\(date.timeIntervalSince1970) in \(name)")
                    let parts = want.split(separator: " ")
                    XCTAssertEqual(LocalTime.iso(date), "\(parts[0])T\(parts[1])\(parts[2])", "\(date.timeIntervalSince1970) in \(name)")
                }
                let instant = try XCTUnwrap(dates.first)
                XCTAssertEqual(LocalTime.compact(instant), String(expected(instant, zone).prefix(19).filter(\.isNumber)))
            }
        }
    }

    func testTheQuickWirePathAgreesWithTheSlowOneAndWithFoundation() throws {
        let texts = samples(2000).map(WireDate.timestamp)
        for name in Self.zones {
            let zone = try XCTUnwrap(TimeZone(identifier: name))
            try inZone(name) {
                for text in texts {
                    let date = try XCTUnwrap(WireDate.parseTimestamp(text))
                    let fast = FastWire.human(text, zone: .current)
                    XCTAssertEqual(fast, LocalTime.human(date), "\(text) in \(name)")
                    XCTAssertEqual(fast, expected(date, zone), "\(text) in \(name)")
                }
            }
        }
    }

    /// Rows next to each other around a clock change that falls on a half hour (St John's, Adelaide),
    /// in both orders: the kept offset must not outlive the change, nor start before it.
    func testConsecutiveTimesAcrossAHalfHourClockChange() throws {
        for (name, pair) in [("America/St_Johns", ["2026-03-08 13:15:00", "2026-03-08 13:45:00"]),
                             ("Australia/Adelaide", ["2026-10-04 00:10:00", "2026-10-04 00:50:00"]),
                             ("Europe/Berlin", ["2026-03-29 08:59:59", "2026-03-29 09:00:00"]),
                             ("Europe/Berlin", ["2026-10-25 08:59:59", "2026-10-25 09:00:00"])] {
            let zone = try XCTUnwrap(TimeZone(identifier: name))
            try inZone(name) {
                for text in pair + pair.reversed() + pair {
                    let date = try XCTUnwrap(WireDate.parseTimestamp(text))
                    XCTAssertEqual(FastWire.human(text, zone: .current), expected(date, zone), "\(text) in \(name)")
                }
            }
        }
    }

    func testOtherShapesAreLeftToTheSlowPathOrShownAsReceived() {
        let utc = LocalZone.fixed(secondsEast: 0)
        for text in ["2026-02-30 10:00:00", "2026-13-01 10:00:00", "2026-12-01T10:00:00", "2026-12-01 24:00:00", "２０２６-12-01 10:00:00", ""] {
            XCTAssertNil(FastWire.human(text, zone: utc), text)
        }
        XCTAssertEqual(LocalTime.human(wire: "2026-12-01 10:00:00", zone: utc), "2026-12-01 02:00:00 +00:00")
        XCTAssertEqual(LocalTime.human(wire: "1980-05-01 10:00:00", zone: utc), "1980-05-01 02:00:00 +00:00")
        XCTAssertEqual(FastWire.human("1980-05-01 10:00:00", zone: utc), "1980-05-01 02:00:00 +00:00")
        XCTAssertEqual(LocalTime.human(wire: "not a time", zone: utc), "not a time")
        XCTAssertEqual(LocalTime.human(wire: "2026-12-01 10:00:00", zone: .fixed(secondsEast: -(3 * 3600 + 1800))), "2026-11-30 22:30:00 -03:30")
    }

    /// The wire's days and timestamps (UTC+8) against Foundation's Shanghai calendar.
    func testWireDatesAgreeWithFoundationsShanghaiCalendar() throws {
        let shanghai = try XCTUnwrap(TimeZone(identifier: "Asia/Shanghai"))
        for date in samples(2000) {
            let want = expected(date, shanghai)
            XCTAssertEqual(WireDate.timestamp(date), String(want.prefix(19)))
            XCTAssertEqual(WireDate.day(date), String(want.prefix(10)))
            XCTAssertEqual(WireDate.parseTimestamp(WireDate.timestamp(date)), Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
            let day = try XCTUnwrap(WireDate.parseDay(WireDate.day(date)))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = shanghai
            XCTAssertEqual(day, calendar.startOfDay(for: date))
        }
        for bad in ["2026-02-30", "2025-02-29", "2026-00-10", "2026-12-32", "２０２６-12-01", "2026-1-01", "+026-12-01", "2026-12-01 "] {
            XCTAssertNil(WireDate.parseDay(bad), bad)
        }
        XCTAssertNotNil(WireDate.parseDay("2024-02-29"))
        XCTAssertNil(WireDate.parseTimestamp("2026-12-01 24:00:00"))
    }

    /// One formatter for every span a view prints: whole units rounded down (as `--json`'s seconds
    /// are), so `location`'s table and the home's note agree at 59.6 s; far dates and NaN don't trap.
    func testDurationsRoundDownAndNeverTrap() {
        XCTAssertEqual(LocalTime.duration(0), "0s")
        XCTAssertEqual(LocalTime.duration(59.6), "59s")
        XCTAssertEqual(LocalTime.duration(65), "1m05s")
        XCTAssertEqual(LocalTime.duration(3725), "1h02m")
        XCTAssertEqual(LocalTime.duration(86_399.9), "23h59m")
        XCTAssertEqual(LocalTime.duration(2 * 86_400 + 4 * 3600 + 59), "2d04h")
        XCTAssertEqual(LocalTime.duration(-5), "-5s")
        XCTAssertEqual(LocalTime.duration(-65.9), "-1m05s")
        XCTAssertEqual(LocalTime.duration(-0.5), "0s")
        XCTAssertEqual(LocalTime.duration(.nan), "–")
        XCTAssertEqual(LocalTime.duration(.infinity), "–")
        XCTAssertEqual(LocalTime.duration(1e300), "11574074074d01h")
        // The whole seconds `--json` gives: the same rounding and cap, never a trap.
        XCTAssertEqual(LocalTime.wholeSeconds(-65.9), -65)
        XCTAssertEqual(LocalTime.wholeSeconds(1e20), 1_000_000_000_000_000)
        XCTAssertEqual(LocalTime.wholeSeconds(-1e20), -1_000_000_000_000_000)
        XCTAssertNil(LocalTime.wholeSeconds(.nan))
    }

    /// A wire time that falls outside the years 1–9999 in the local zone stays as received rather
    /// than being written with a cut or broken year.
    func testAWireTimePastTheYearRangeStaysAsReceived() {
        let kiritimati = LocalZone.fixed(secondsEast: 14 * 3600)
        XCTAssertEqual(LocalTime.human(wire: "9999-12-31 23:59:59", zone: kiritimati), "9999-12-31 23:59:59")
        XCTAssertEqual(LocalTime.human(wire: "0000-01-01 00:00:00", zone: LocalZone.fixed(secondsEast: 0)), "0000-01-01 00:00:00")
        XCTAssertEqual(LocalTime.human(wire: "9999-12-31 12:00:00", zone: kiritimati), "9999-12-31 18:00:00 +14:00")
    }
}
