import SXKCore

/// Integer date arithmetic in Asia/Shanghai (UTC+8, no daylight saving since 1991), fast enough to
/// format a million generated orders; day numbers count days since 1970-01-01 in Shanghai.
enum ShanghaiCalendar {
    static let offset = WireDate.offset

    static func dayNumber(unix: Int) -> Int { CivilDate.floorDiv(unix + offset, 86400) }

    /// `yyyy-MM-dd`.
    static func dateText(day: Int) -> String { WireDate.dayText(day) }

    /// `yyyy-MM-dd HH:mm:ss`.
    static func timestamp(unix: Int) -> String { WireDate.timestamp(unix: unix) }

    /// `yyyyMMdd`, for order numbers.
    static func compactDate(day: Int) -> String {
        let (y, m, d) = CivilDate.civil(day)
        return pad(y, 4) + pad(m, 2) + pad(d, 2)
    }

    /// Parses a strict `yyyy-MM-dd` (a real calendar day) to its day number.
    static func parseDay(_ text: String) -> Int? { WireDate.dayNumber(text) }

    static func pad(_ value: Int, _ width: Int) -> String { NumberText.padded(value, width: width) }
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
