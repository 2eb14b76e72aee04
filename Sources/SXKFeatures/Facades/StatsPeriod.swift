import FoundationEssentials
import SXKCore

/// A named statistics period. `week` is the last 7 days including today and `month` the last 30, as
/// `stats --help` says (a calendar month so far is a single day on the 1st).
public enum StatsPeriod: String, Sendable, CaseIterable {
    case today, week, month
}

/// An inclusive `yyyy-MM-dd` date range in Shanghai time.
public struct DateRange: Sendable, Equatable {
    public var from: String
    public var to: String

    public init(from: String, to: String) { self.from = from; self.to = to }

    /// Resolves `--from/--to` or `--period` (default today) against `now`; from after to is an error.
    /// A lone `--from` runs to today; a lone `--to` is that single day.
    public static func resolve(from: String?, to: String?, period: StatsPeriod?, now: Date) throws(FeatureError) -> DateRange {
        if let from { guard WireDate.parseDay(from) != nil else { throw FeatureError.invalidDate(from) } }
        if let to { guard WireDate.parseDay(to) != nil else { throw FeatureError.invalidDate(to) } }
        if from != nil || to != nil {
            if period != nil { throw FeatureError.conflictingDateOptions }
            let end = to ?? WireDate.day(now)
            let start = from ?? end
            // Same fixed-width format, so text order is date order.
            guard start <= end else { throw FeatureError.invalidDateRange(from: start, to: end) }
            return DateRange(from: start, to: end)
        }
        let today = WireDate.day(now)
        switch period ?? .today {
        case .today:
            return DateRange(from: today, to: today)
        case .week:
            let start = WireDate.adding(days: -6, to: now)
            return DateRange(from: WireDate.day(start), to: today)
        case .month:
            let start = WireDate.adding(days: -29, to: now)
            return DateRange(from: WireDate.day(start), to: today)
        }
    }

    /// Every day of the range, oldest first.
    public var days: [String] {
        guard var day = WireDate.parseDay(from), let end = WireDate.parseDay(to) else { return [] }
        var out: [String] = []
        while day <= end {
            out.append(WireDate.day(day))
            day = WireDate.adding(days: 1, to: day)
        }
        return out
    }

    public var json: JSONValue { ["from": .string(from), "to": .string(to)] }
}
