import Foundation
import SXKCore
import SXKTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// How a fuzz run is sized and seeded: a few thousand cases in `make test`, many more with
/// `SXK_LONG_TESTS=1`; the seed is `SXK_FUZZ_SEED` when set (to replay a failure), else fresh.
struct FuzzRun {
    let name: String
    let seed: UInt64
    let cases: Int
    /// A case slower than this fails the test (a hang is caught by the watchdog at 10× this).
    let caseDeadline: TimeInterval
    /// Largest run of repeated bytes a mutation inserts (deep nesting, long words).
    let maxRun: Int

    /// The deadline is wall time on a machine that may be loaded (CI has two cores): generous, as
    /// what it is to catch is a case that runs away (quadratic on a 100 KB input), not a slow one.
    init(_ name: String, fast: Int, long: Int, caseDeadline: TimeInterval = 5) {
        self.name = name
        let env = ProcessInfo.processInfo.environment
        // A fixed seed by default, so a run (CI's) fails only for a change, never for the draw;
        // `SXK_FUZZ_SEED=random` explores new cases, a number replays a run.
        let asked = env["SXK_FUZZ_SEED"]
        seed = asked == "random" ? UInt64.random(in: 1...UInt64.max)
            : asked.flatMap { UInt64($0) } ?? name.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        cases = env["SXK_FUZZ_CASES"].flatMap { Int($0) } ?? (longTestsEnabled ? long : fast)
        self.caseDeadline = caseDeadline
        maxRun = longTestsEnabled ? 100_000 : 5_000
    }

    /// How to replay this run, for failure messages.
    var replay: String { "\(name): replay with SXK_FUZZ_SEED=\(seed) SXK_FUZZ_CASES=\(cases)" }
}

/// Aborts the process (printing seed, case and input) when one fuzz case runs far past its
/// deadline: a hang cannot be interrupted from inside, and an XCTest timeout would lose the input.
final class FuzzWatchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var started: Date?
    private var label = ""
    private var input: () -> String = { "" }
    private var done = false
    private let limit: TimeInterval

    init(run: FuzzRun) {
        limit = run.caseDeadline * 10
        let replay = run.replay
        Thread.detachNewThread { [self] in
            while true {
                usleep(50_000)
                let (start, what, text, finished) = lock.withLock { (started, label, input, done) }
                if finished { return }
                if let start, Date().timeIntervalSince(start) > limit {
                    let shown = String(text().prefix(2000))
                    FileHandle.standardError.write(Data("fuzz case hung (> \(limit) s): \(what)\n\(replay)\ninput: \(shown.debugDescription)\n".utf8))
                    abort()
                }
            }
        }
    }

    func begin(_ label: String, input: @escaping () -> String) {
        lock.withLock {
            self.label = label
            self.input = input
            started = Date()
        }
    }

    /// Ends the case; returns its duration.
    @discardableResult
    func end() -> TimeInterval {
        lock.withLock {
            defer { started = nil }
            return started.map { Date().timeIntervalSince($0) } ?? 0
        }
    }

    func stop() { lock.withLock { done = true } }
}

/// Byte-level mutations of a valid input: flips, interesting bytes, cuts, duplicated chunks,
/// inserted quotes/backslashes/NUL/Unicode/tokens, long runs (deep nesting) and splices.
struct Mutator {
    var dictionary: [[UInt8]]
    var interesting: [UInt8] = Array("\"'\\{}[]:,;#-=. \t\n\r0123456789eE+".utf8) + [0, 0x7F, 0x80, 0xBF, 0xC0, 0xE4, 0xF0, 0xFF]
    var maxRun: Int

    init(dictionary: [String], maxRun: Int) {
        let extra: [String] = [
            "\\u0000", "\\uD800", "\\uDFFF\\uD800", "\u{0}", "西湖景区", "\u{1F600}", "\u{200B}", "\u{FEFF}", "e\u{301}",
            "\\", "\"", "'", "1e999999", "-0", "123456789012345678901234567890", "null",
        ]
        self.dictionary = (dictionary + extra).map { Array($0.utf8) }
        self.maxRun = maxRun
    }

    func mutate(_ input: [UInt8], corpus: [[UInt8]], rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + rng.below(4)) {
            let at = rng.below(bytes.count + 1)
            switch rng.below(10) {
            case 0 where !bytes.isEmpty:
                bytes[min(at, bytes.count - 1)] ^= UInt8(1) << UInt8(rng.below(8))
            case 1 where !bytes.isEmpty:
                bytes[min(at, bytes.count - 1)] = rng.pick(interesting)
            case 2:
                bytes.insert(rng.pick(interesting), at: at)
            case 3 where !bytes.isEmpty:
                let end = min(bytes.count, at + 1 + rng.below(16))
                bytes.removeSubrange(min(at, bytes.count - 1)..<end)
            case 4:
                bytes = Array(bytes.prefix(at))
            case 5:
                bytes.insert(contentsOf: rng.pick(dictionary), at: at)
            case 6 where !bytes.isEmpty:
                let from = rng.below(bytes.count)
                let chunk = Array(bytes[from..<min(bytes.count, from + 1 + rng.below(64))])
                bytes.insert(contentsOf: chunk, at: at)
            case 7:
                // A long run: deep nesting, a huge number, a long word.
                let unit = rng.pick([Array("[".utf8), Array("{\"a\":".utf8), Array("x".utf8), Array("9".utf8), Array("\\".utf8), Array("'".utf8), Array("西".utf8)])
                let count = rng.chance(20) ? rng.below(maxRun) : rng.below(300)
                var run: [UInt8] = []
                run.reserveCapacity(unit.count * count)
                for _ in 0..<count { run += unit }
                bytes.insert(contentsOf: run, at: at)
            case 8:
                let other = rng.pick(corpus)
                let cut = rng.below(other.count + 1)
                bytes = Array(bytes.prefix(at)) + Array(other.suffix(from: cut))
            default:
                if !bytes.isEmpty { bytes.swapAt(rng.below(bytes.count), rng.below(bytes.count)) }
            }
        }
        return bytes
    }
}

/// Mutations of a parsed JSON tree, so mutated bodies still parse and reach the envelope reader
/// and the model decoders: values swapped for other types, keys dropped, renamed (snake_case,
/// case, unknown), duplicated, lists emptied or grown, numbers as strings and out of range.
struct JSONTreeMutator {
    static let values: [JSONValue] = [
        .null, .bool(true), .bool(false), .number("0"), .number("-1"), .number("1.5"), .number("1e400"), .number("-0"),
        .number("99999999999999999999"), .number("9223372036854775808"), .string(""), .string("1"), .string("abc"),
        .string("2026-02-30"), .string("西湖景区"), .string("\u{0}"), .string("100401"), .array([]), .object(JSONObject()),
        .array([.null]), .string(String(repeating: "x", count: 300)),
    ]

    func mutate(_ value: JSONValue, rng: inout SplitMix64) -> JSONValue {
        var out = value
        for _ in 0..<(1 + rng.below(3)) { out = mutateOnce(out, rng: &rng, depth: 0) }
        return out
    }

    private func mutateOnce(_ value: JSONValue, rng: inout SplitMix64, depth: Int) -> JSONValue {
        // Descend most of the time, so deep fields get hit as often as the envelope.
        switch value {
        case .object(var object) where !object.entries.isEmpty && (depth == 0 || rng.chance(70)):
            let i = rng.below(object.entries.count)
            switch rng.below(8) {
            case 0: object.entries.remove(at: i)
            case 1: object.entries[i].key = JSONObject.snakeCase(object.entries[i].key)
            case 2: object.entries[i].key = object.entries[i].key.uppercased()
            case 3: object.entries.append(object.entries[i])
            case 4: object.entries[i].value = rng.pick(Self.values)
            case 5: object.entries[i].value = Self.numberAsString(object.entries[i].value)
            default: object.entries[i].value = mutateOnce(object.entries[i].value, rng: &rng, depth: depth + 1)
            }
            return .object(object)
        case .array(var items) where !items.isEmpty:
            let i = rng.below(items.count)
            switch rng.below(5) {
            case 0: items.remove(at: i)
            case 1: items = []
            case 2: items.append(contentsOf: Array(repeating: items[i], count: 1 + rng.below(50)))
            case 3: items[i] = rng.pick(Self.values)
            default: items[i] = mutateOnce(items[i], rng: &rng, depth: depth + 1)
            }
            return .array(items)
        default:
            return rng.chance(50) ? rng.pick(Self.values) : Self.numberAsString(value)
        }
    }

    static func numberAsString(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let n): return .string(n)
        case .string(let s) where Double(s) != nil: return .number(s)
        case .bool(let b): return .string(b ? "true" : "false")
        default: return value
        }
    }
}
