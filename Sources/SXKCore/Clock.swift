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

/// Dates on the wire: `yyyy-MM-dd` and `yyyy-MM-dd HH:mm:ss` in Asia/Shanghai (CONTRACT §2).
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
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// `yyyy-MM-dd HH:mm:ss` in Shanghai.
    public static func timestamp(_ date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
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
    public static func human(wire text: String, zone: TimeZone = .current) -> String {
        WireDate.parseTimestamp(text).map { human($0, zone: zone) } ?? text
    }

    private static func parts(_ date: Date, zone: TimeZone) -> (String, String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let seconds = zone.secondsFromGMT(for: date)
        let sign = seconds < 0 ? "-" : "+"
        let offset = String(format: "%@%02d:%02d", sign, abs(seconds) / 3600, abs(seconds) % 3600 / 60)
        return (String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0),
                String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0), offset)
    }
}
