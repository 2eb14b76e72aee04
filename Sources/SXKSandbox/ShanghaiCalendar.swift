import SXKCore

/// Integer date arithmetic in Asia/Shanghai (UTC+8, no daylight saving since 1991), fast enough to
/// format a million generated orders; day numbers count days since 1970-01-01 in Shanghai.
enum ShanghaiCalendar {
    static let offset = 8 * 3600

    static func dayNumber(unix: Int) -> Int { floorDiv(unix + offset, 86400) }

    /// `yyyy-MM-dd`.
    static func dateText(day: Int) -> String {
        let (y, m, d) = civil(day)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
    }

    /// `yyyy-MM-dd HH:mm:ss`.
    static func timestamp(unix: Int) -> String {
        let day = dayNumber(unix: unix)
        let seconds = unix + offset - day * 86400
        return dateText(day: day) + " " + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
    }

    /// `yyyyMMdd`, for order numbers.
    static func compactDate(day: Int) -> String {
        let (y, m, d) = civil(day)
        return pad(y, 4) + pad(m, 2) + pad(d, 2)
    }

    /// Parses a strict `yyyy-MM-dd` (a real calendar day) to its day number.
    static func parseDay(_ text: String) -> Int? {
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
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m), d >= 1 else { return nil }
        let day = days(year: y, month: m, day: d)
        return civil(day) == (y, m, d) ? day : nil
    }

    // The day arithmetic is SXKCore's CivilDate.
    static func days(year: Int, month: Int, day: Int) -> Int { CivilDate.days(year: year, month: month, day: day) }
    static func civil(_ days: Int) -> (Int, Int, Int) { CivilDate.civil(days) }
    static func floorDiv(_ a: Int, _ b: Int) -> Int { CivilDate.floorDiv(a, b) }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

/// Money is kept in cents and written as yuan with two decimals (`128.80`).
enum Money {
    static func yuan(_ cents: Int) -> String {
        let sign = cents < 0 ? "-" : ""
        let value = abs(cents)
        return sign + String(value / 100) + "." + ShanghaiCalendar.pad(value % 100, 2)
    }
}

/// SplitMix64: a tiny, fast, well-mixed hash so order i is a pure function of seed and i.
enum SeedHash {
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func string(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return h
    }
}
