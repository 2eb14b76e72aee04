import SXKShell

/// Numeric options read the same way by every command (`--page`, `--page-size`, `--count`).
extension AppCommands {
    /// `--page 2`, `--limit 5`: a whole number in `range`, else a usage error naming the range.
    static func number(_ command: ParsedCommand, _ flag: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = command.option(flag) else { return nil }
        guard let n = Int(text), range.contains(n) else {
            let bounds = range.upperBound == Int.max ? "\(range.lowerBound) or more" : "between \(range.lowerBound) and \(range.upperBound)"
            throw AppError.usage("--\(flag) must be a whole number \(bounds) (got '\(text)')")
        }
        return n
    }
}
