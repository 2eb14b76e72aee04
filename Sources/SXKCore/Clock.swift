import Foundation

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
    private let lock = NSLock()
    private var instant: Date
    public init(_ instant: Date) { self.instant = instant }
    public func now() -> Date { lock.withLock { instant } }
    public func set(_ date: Date) { lock.withLock { instant = date } }
    public func advance(by seconds: TimeInterval) { lock.withLock { instant = instant.addingTimeInterval(seconds) } }
}

/// Dates on the wire: `yyyy-MM-dd` and `yyyy-MM-dd HH:mm:ss` in Asia/Shanghai.
public enum WireDate {
    public static let timeZone = TimeZone(identifier: "Asia/Shanghai") ?? TimeZone(secondsFromGMT: 8 * 3600)!

    public static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// `yyyy-MM-dd` for the day that contains `date` in Shanghai.
    public static func day(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return ymdText(c)
    }

    /// `yyyy-MM-dd HH:mm:ss` in Shanghai.
    public static func timestamp(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return ymdText(c) + " " + hmsText(c)
    }

    /// Parses a strict `yyyy-MM-dd` (valid calendar day) to the start of that day in Shanghai.
    public static func parseDay(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
        else { return nil }
        var components = DateComponents()
        components.year = y; components.month = m; components.day = d
        components.timeZone = timeZone
        guard let date = calendar.date(from: components) else { return nil }
        // Reject 2026-02-30 and the like, which Calendar silently rolls over.
        return day(date) == text ? date : nil
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

/// The one rule for every time sxk prints (README "Times"): the local time zone (`TZ`) with its UTC
/// offset, so a wall time is never read in the wrong zone — `2026-12-01 09:30:00 +08:00` for people,
/// ISO 8601 `2026-12-01T09:30:00+08:00` in JSON. Wire timestamps (Shanghai, no zone) are converted.
public enum LocalTime {
    /// `yyyy-MM-dd HH:mm:ss ±hh:mm`.
    public static func human(_ date: Date, zone: TimeZone = .current) -> String {
        let (day, time, offset) = parts(date, zone: zone)
        return "\(day) \(time) \(offset)"
    }

    /// `yyyy-MM-ddTHH:mm:ss±hh:mm`.
    public static func iso(_ date: Date, zone: TimeZone = .current) -> String {
        let (day, time, offset) = parts(date, zone: zone)
        return "\(day)T\(time)\(offset)"
    }

    /// `HH:mm:ss ±hh:mm`, for columns where the day is plain from context.
    public static func clock(_ date: Date, zone: TimeZone = .current) -> String {
        let (_, time, offset) = parts(date, zone: zone)
        return "\(time) \(offset)"
    }

    /// A wire timestamp (`yyyy-MM-dd HH:mm:ss`, Shanghai) by the same rule; other text as received.
    /// Order tables and CSV streams convert one per row, so the usual shape is done in integer
    /// arithmetic (Shanghai has been UTC+8 without daylight saving since 1992); the rest via Calendar.
    public static func human(wire text: String, zone: TimeZone = .current) -> String {
        if let fast = FastWire.human(text, zone: zone) { return fast }
        return WireDate.parseTimestamp(text).map { human($0, zone: zone) } ?? text
    }

    private static func parts(_ date: Date, zone: TimeZone) -> (String, String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let seconds = zone.secondsFromGMT(for: date)
        let sign = seconds < 0 ? "-" : "+"
        let offset = sign + NumberText.padded(abs(seconds) / 3600, width: 2) + ":" + NumberText.padded(abs(seconds) % 3600 / 60, width: 2)
        return (ymdText(c), hmsText(c), offset)
    }
}

/// The integer path of `LocalTime.human(wire:)`: days from the civil date and back (proleptic
/// Gregorian), the zone's offset asked once per hour of time and kept.
enum FastWire {
    private static let cache = OffsetCache()

    static func human(_ text: String, zone: TimeZone) -> String? {
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
                  let mi = number(14, 2), let s = number(17, 2), y >= 1992, (1...12).contains(mo),
                  d >= 1, d <= daysIn(mo, y), h < 24, mi < 60, s < 60 else { return nil }
            let utc = CivilDate.days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s - 8 * 3600
            let offset = cache.offset(utc, zone: zone)
            let local = utc + offset
            let day = CivilDate.floorDiv(local, 86_400)
            let seconds = local - day * 86_400
            let (ly, lm, ld) = CivilDate.civil(day)
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

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The zone's UTC offset, kept with the span it holds for: from the last transition at or before
    /// the instant (or 400 days back when there is none) to the next one. Rows of a table come in time
    /// order, so one lookup serves until a clock change — at whatever minute the zone changes.
    final class OffsetCache: @unchecked Sendable {
        private let lock = NSLock()
        private var zone: TimeZone?
        private var from = Int.max
        private var until = Int.min
        private var offset = 0

        func offset(_ utc: Int, zone: TimeZone) -> Int {
            lock.withLock {
                if utc >= from, utc < until, self.zone == zone { return offset }
                let instant = Date(timeIntervalSince1970: TimeInterval(utc))
                offset = zone.secondsFromGMT(for: instant)
                until = zone.nextDaylightSavingTimeTransition(after: instant).map { Int($0.timeIntervalSince1970) } ?? Int.max
                let floor = utc - 400 * 86_400
                from = floor
                var next = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: TimeInterval(floor)))
                for _ in 0..<32 {
                    guard let t = next, Int(t.timeIntervalSince1970) <= utc else { break }
                    from = Int(t.timeIntervalSince1970)
                    next = zone.nextDaylightSavingTimeTransition(after: t)
                }
                self.zone = zone
                return offset
            }
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

    /// Division rounded towards minus infinity (instants before 1970 fall on the right day).
    public static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
}

/// `yyyy-MM-dd` of the components (0 for a missing field).
private func ymdText(_ c: DateComponents) -> String {
    NumberText.padded(c.year ?? 0, width: 4) + "-" + NumberText.padded(c.month ?? 0, width: 2) + "-" + NumberText.padded(c.day ?? 0, width: 2)
}

/// `HH:mm:ss` of the components (0 for a missing field).
private func hmsText(_ c: DateComponents) -> String {
    NumberText.padded(c.hour ?? 0, width: 2) + ":" + NumberText.padded(c.minute ?? 0, width: 2) + ":" + NumberText.padded(c.second ?? 0, width: 2)
}
