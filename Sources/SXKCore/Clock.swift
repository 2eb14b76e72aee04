import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The time source for rules that depend on "now" (the 2-hour location rule, snapshot age,
/// token expiry), so tests can inject a fixed clock.
public protocol WallClock: Sendable {
    func now() -> Date
}

public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that always answers the same instant, or one set by the test.
public final class FixedClock: WallClock, @unchecked Sendable {
    private let lock = Lock()
    private var instant: Date
    public init(_ instant: Date) { self.instant = instant }
    public func now() -> Date { lock.withLock { instant } }
    public func set(_ date: Date) { lock.withLock { instant = date } }
    public func advance(by seconds: TimeInterval) { lock.withLock { instant = instant.addingTimeInterval(seconds) } }
}

/// Dates on the wire: `yyyy-MM-dd` and `yyyy-MM-dd HH:mm:ss` in Asia/Shanghai, which has been UTC+8
/// without summer time since 1992. Earlier wire times are read at +8 as well (the zone's 1986–91
/// summer time is not modelled): no date the backend sends is that old.
public enum WireDate {
    /// Shanghai's offset from UTC, in seconds.
    public static let offset = 8 * 3600

    /// `yyyy-MM-dd` for the day that contains `date` in Shanghai.
    public static func day(_ date: Date) -> String {
        guard let unix = LocalZone.seconds(date) else { return LocalZone.unrepresentable(date) }
        return dayText(CivilDate.floorDiv(unix + offset, 86_400))
    }

    /// `yyyy-MM-dd HH:mm:ss` in Shanghai.
    public static func timestamp(_ date: Date) -> String {
        guard let unix = LocalZone.seconds(date) else { return LocalZone.unrepresentable(date) }
        return timestamp(unix: unix)
    }

    /// `yyyy-MM-dd` of a Shanghai day number (days since 1970-01-01 there).
    public static func dayText(_ day: Int) -> String { ymdText(CivilDate.civil(day)) }

    /// `yyyy-MM-dd HH:mm:ss` in Shanghai of epoch seconds.
    public static func timestamp(unix: Int) -> String {
        let day = CivilDate.floorDiv(unix + offset, 86_400)
        return dayText(day) + " " + hmsText(unix + offset - day * 86_400)
    }

    /// The instant `days` whole days after `date` (Shanghai has no clock changes, so a day is 86,400 s).
    public static func adding(days: Int, to date: Date) -> Date {
        date.addingTimeInterval(TimeInterval(days * 86_400))
    }

    /// The Shanghai day number of a strict `yyyy-MM-dd` (ASCII digits, a real calendar day).
    public static func dayNumber(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard bytes[i] >= 0x30, bytes[i] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[i] - 0x30)
            }
            return value
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10),
              (1...12).contains(m), d >= 1, d <= CivilDate.daysIn(month: m, year: y) else { return nil }
        return CivilDate.days(year: y, month: m, day: d)
    }

    /// Parses a strict `yyyy-MM-dd` to the start of that day in Shanghai.
    public static func parseDay(_ text: String) -> Date? {
        dayNumber(text).map { Date(timeIntervalSince1970: TimeInterval($0 * 86_400 - offset)) }
    }

    /// Parses an ISO 8601 time that names its zone: `yyyy-MM-ddTHH:mm:ss`, an optional fraction, then
    /// `Z` or `±HH:MM` (`±HHMM`). One without a zone is not taken here: whose wall time it is, is a guess.
    public static func parseZonedISO8601(_ text: String) -> Date? {
        let halves = text.split(separator: "T", maxSplits: 1)
        guard halves.count == 2, let day = dayNumber(String(halves[0])) else { return nil }
        var time = Substring(halves[1])
        var offset = 0
        if time.hasSuffix("Z") || time.hasSuffix("z") {
            time = time.dropLast()
        } else if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = time[time.index(after: sign)...].filter { $0 != ":" }
            guard zone.count == 4, zone.allSatisfy({ ("0"..."9").contains($0) }), let hours = Int(zone.prefix(2)), let minutes = Int(zone.suffix(2)),
                  hours < 24, minutes < 60 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (time[sign] == "-" ? -1 : 1)
            time = time[..<sign]
        } else {
            return nil
        }
        var fraction = 0.0
        if let dot = time.firstIndex(of: ".") {
            let digits = time[time.index(after: dot)...]
            guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Double("0." + digits) else { return nil }
            fraction = value
            time = time[..<dot]
        }
        let hms = time.split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 && $0.allSatisfy { ("0"..."9").contains($0) } }),
              let h = Int(hms[0]), let m = Int(hms[1]), let s = Int(hms[2]), h < 24, m < 60, s < 61 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(day * 86_400 + h * 3600 + m * 60 + s - offset) + fraction)
    }

    /// Parses `yyyy-MM-dd HH:mm:ss` in Shanghai.
    public static func parseTimestamp(_ text: String) -> Date? {
        let halves = text.split(separator: " ")
        guard halves.count == 2, let dayStart = parseDay(String(halves[0])) else { return nil }
        let hms = halves[1].split(separator: ":")
        guard hms.count == 3, let h = Int(hms[0]), let m = Int(hms[1]), let s = Int(hms[2]),
            (0..<24).contains(h), (0..<60).contains(m), (0..<61).contains(s)
        else { return nil }
        return dayStart.addingTimeInterval(TimeInterval(h * 3600 + m * 60 + s))
    }
}

/// The zone local times are shown in: the process's own, as the C library keeps it (`TZ`, else
/// /etc/localtime, with the system's zone data), or a fixed offset from UTC.
public struct LocalZone: Sendable, Equatable {
    /// Seconds east of UTC, or nil for the process's zone.
    let fixed: Int?

    public static let current = LocalZone(fixed: nil)
    public static func fixed(secondsEast seconds: Int) -> LocalZone { LocalZone(fixed: seconds) }

    /// Whole epoch seconds of `date` (rounded down), or nil for an instant no calendar shows: not
    /// finite, or past the year 9999 either way (a stored time is outside text, imported from a device).
    public static func seconds(_ date: Date) -> Int? {
        let t = date.timeIntervalSince1970.rounded(.down)
        guard t.isFinite, abs(t) < 253_402_300_800 else { return nil }
        return Int(t)
    }

    /// What is shown for an instant `seconds` refuses: the number as stored.
    public static func unrepresentable(_ date: Date) -> String { "\(date.timeIntervalSince1970) s since 1970" }

    /// The offset from UTC, in seconds, at the instant `unix`.
    public func offset(at unix: Int) -> Int { fields(unix).offset }

    /// The wall time at `unix`: day number (days since 1970-01-01), second of that day, and the offset.
    func fields(_ unix: Int) -> (day: Int, seconds: Int, offset: Int) {
        let offset: Int
        if let fixed {
            offset = fixed
        } else {
            var t = time_t(unix)
            var parts = tm()
            offset = localtime_r(&t, &parts) == nil ? 0 : Int(parts.tm_gmtoff)
        }
        let local = unix + offset
        let day = CivilDate.floorDiv(local, 86_400)
        return (day, local - day * 86_400, offset)
    }
}

/// The one rule for every time sxk prints (README "Times"): the local time zone (`TZ`) with its UTC
/// offset, so a wall time is never read in the wrong zone — `2026-12-01 09:30:00 +08:00` for people,
/// ISO 8601 `2026-12-01T09:30:00+08:00` in JSON. Wire timestamps (Shanghai, no zone) are converted.
public enum LocalTime {
    /// `yyyy-MM-dd HH:mm:ss ±hh:mm`.
    public static func human(_ date: Date, zone: LocalZone = .current) -> String {
        guard let (day, time, offset) = parts(date, zone: zone) else { return LocalZone.unrepresentable(date) }
        return "\(day) \(time) \(offset)"
    }

    /// `yyyy-MM-ddTHH:mm:ss±hh:mm`.
    public static func iso(_ date: Date, zone: LocalZone = .current) -> String {
        guard let (day, time, offset) = parts(date, zone: zone) else { return LocalZone.unrepresentable(date) }
        return "\(day)T\(time)\(offset)"
    }

    /// `HH:mm:ss ±hh:mm`, for columns where the day is plain from context.
    public static func clock(_ date: Date, zone: LocalZone = .current) -> String {
        guard let (_, time, offset) = parts(date, zone: zone) else { return LocalZone.unrepresentable(date) }
        return "\(time) \(offset)"
    }

    /// A span of time for people — `45s`, `1m05s`, `2h05m`, `3d04h` — whole units rounded toward
    /// zero, as `--json` gives whole seconds, so a table, a note and the JSON never disagree; a
    /// negative span (a report time in the future) keeps its sign: `-1m05s`.
    public static func duration(_ seconds: Double) -> String {
        guard let whole = wholeSeconds(seconds) else { return "–" }
        if whole < 0 { return "-" + duration(-seconds) }
        let s = whole
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(NumberText.padded(s % 60, width: 2))s" }
        if s < 86_400 { return "\(s / 3600)h\(NumberText.padded(s % 3600 / 60, width: 2))m" }
        return "\(s / 86_400)d\(NumberText.padded(s % 86_400 / 3600, width: 2))h"
    }

    /// A span in whole seconds, toward zero, as `--json` gives it and `duration` shows it; nil for
    /// one that is not a number. Capped at ±10^15 s so a time from far away cannot overflow `Int`.
    public static func wholeSeconds(_ seconds: Double) -> Int? {
        guard seconds.isFinite else { return nil }
        return Int(min(max(seconds, -1e15), 1e15).rounded(.towardZero))
    }

    /// `yyyyMMddHHmmss`, for names of files.
    public static func compact(_ date: Date, zone: LocalZone = .current) -> String {
        guard let unix = LocalZone.seconds(date) else { return LocalZone.unrepresentable(date) }
        let (day, seconds, _) = zone.fields(unix)
        let (y, m, d) = CivilDate.civil(day)
        return NumberText.padded(y, width: 4) + NumberText.padded(m, width: 2) + NumberText.padded(d, width: 2)
            + NumberText.padded(seconds / 3600, width: 2) + NumberText.padded(seconds % 3600 / 60, width: 2)
            + NumberText.padded(seconds % 60, width: 2)
    }

    /// A wire timestamp (`yyyy-MM-dd HH:mm:ss`, Shanghai) by the same rule; other text as received.
    /// Order tables and CSV streams convert one per row, so the usual shape is read in place and
    /// the zone's offset kept between rows (FastWire).
    public static func human(wire text: String, zone: LocalZone = .current) -> String {
        if let fast = FastWire.human(text, zone: zone) { return fast }
        // One that cannot be written in this zone (past the year 9999 here) stays as received.
        guard let (day, time, offset) = WireDate.parseTimestamp(text).flatMap({ parts($0, zone: zone) }) else { return text }
        return "\(day) \(time) \(offset)"
    }

    private static func parts(_ date: Date, zone: LocalZone) -> (String, String, String)? {
        guard let unix = LocalZone.seconds(date) else { return nil }
        let (day, seconds, offset) = zone.fields(unix)
        let civil = CivilDate.civil(day)
        // Four digits of year or none: a time past 9999 or before 1 in this zone is not written as one.
        guard (1...9999).contains(civil.0) else { return nil }
        return (ymdText(civil), hmsText(seconds), offsetText(offset))
    }

    static func offsetText(_ seconds: Int) -> String {
        (seconds < 0 ? "-" : "+") + NumberText.padded(abs(seconds) / 3600, width: 2) + ":" + NumberText.padded(abs(seconds) % 3600 / 60, width: 2)
    }
}

/// The quick path of `LocalTime.human(wire:)`: the text read in place, days from the civil date and
/// back (proleptic Gregorian), the zone's offset kept for the span it holds for.
enum FastWire {
    static let cache = OffsetCache()

    static func human(_ text: String, zone: LocalZone) -> String? {
        var text = text
        return text.withUTF8 { b -> String? in
            guard b.count == 19, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A else { return nil }
            func number(_ from: Int, _ count: Int) -> Int? {
                var n = 0
                for i in from..<(from + count) {
                    let d = Int(b[i]) - 48
                    guard (0...9).contains(d) else { return nil }
                    n = n * 10 + d
                }
                return n
            }
            guard let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2), let h = number(11, 2),
                  let mi = number(14, 2), let s = number(17, 2), (1...12).contains(mo),
                  d >= 1, d <= CivilDate.daysIn(month: mo, year: y), h < 24, mi < 60, s < 60 else { return nil }
            let utc = CivilDate.days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s - WireDate.offset
            let offset = cache.offset(utc, zone: zone)
            let local = utc + offset
            let day = CivilDate.floorDiv(local, 86_400)
            let seconds = local - day * 86_400
            let (ly, lm, ld) = CivilDate.civil(day)
            guard (1...9999).contains(ly) else { return nil }
            var out = [UInt8]()
            out.reserveCapacity(26)
            func put(_ n: Int, _ width: Int) {
                var digits = [UInt8](repeating: 48, count: width)
                var v = n
                for i in stride(from: width - 1, through: 0, by: -1) { digits[i] = UInt8(48 + v % 10); v /= 10 }
                out.append(contentsOf: digits)
            }
            put(ly, 4); out.append(0x2D); put(lm, 2); out.append(0x2D); put(ld, 2); out.append(0x20)
            put(seconds / 3600, 2); out.append(0x3A); put(seconds % 3600 / 60, 2); out.append(0x3A); put(seconds % 60, 2)
            out.append(0x20); out.append(offset < 0 ? 0x2D : 0x2B)
            put(abs(offset) / 3600, 2); out.append(0x3A); put(abs(offset) % 3600 / 60, 2)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The zone's offset, kept with the span of instants it is known to hold for. On a miss the span
    /// reaches a day each way: the C library gives an offset, not the next clock change, so a change
    /// within that day is found by halving (no zone changes its clock twice within one day). Rows
    /// of a table come in time order, so one lookup serves many rows, and a change at any minute —
    /// on the half hour in St John's or Adelaide — ends the span exactly there.
    final class OffsetCache: @unchecked Sendable {
        private let lock = Lock()
        private var zone: LocalZone?
        private var from = Int.max
        private var until = Int.min
        private var offset = 0

        /// Drops what is kept: the process's zone changed (`TZ` set again, then `tzset`, as tests do).
        func forget() { lock.withLock { zone = nil } }

        func offset(_ utc: Int, zone: LocalZone) -> Int {
            lock.withLock {
                if utc >= from, utc < until, self.zone == zone { return offset }
                let offset = zone.offset(at: utc)
                from = Self.edge(of: utc, offset: offset, zone: zone, step: -86_400)
                until = Self.edge(of: utc, offset: offset, zone: zone, step: 86_400) + 1
                self.offset = offset
                self.zone = zone
                return offset
            }
        }

        /// The last instant from `utc` towards `utc + step` that still has `offset`.
        static func edge(of utc: Int, offset: Int, zone: LocalZone, step: Int) -> Int {
            var same = utc, changed = utc + step
            if zone.offset(at: changed) == offset { return changed }
            while abs(changed - same) > 1 {
                let middle = same + (changed - same) / 2
                if zone.offset(at: middle) == offset { same = middle } else { changed = middle }
            }
            return same
        }
    }
}

/// Proleptic Gregorian dates as day numbers since 1970-01-01 and back (H. Hinnant's days_from_civil
/// and civil_from_days), in integers: the wire's wall times (FastWire) and the sandbox's Shanghai days.
public enum CivilDate {
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// (year, month, day) of a day number.
    public static func civil(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Division rounded towards minus infinity (instants before 1970 fall on the right day).
    public static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
}

/// `yyyy-MM-dd` of a (year, month, day).
private func ymdText(_ c: (Int, Int, Int)) -> String {
    NumberText.padded(c.0, width: 4) + "-" + NumberText.padded(c.1, width: 2) + "-" + NumberText.padded(c.2, width: 2)
}

/// `HH:mm:ss` of a second of the day.
private func hmsText(_ seconds: Int) -> String {
    NumberText.padded(seconds / 3600, width: 2) + ":" + NumberText.padded(seconds % 3600 / 60, width: 2) + ":" + NumberText.padded(seconds % 60, width: 2)
}

extension Duration {
    /// The duration in milliseconds, as the timings show it.
    public var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
    /// The duration in seconds.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
