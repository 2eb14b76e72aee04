import XCTest
@testable import SXKCore

/// The sanitizer and the JSON writer's escapes, checked against an oracle written here from the
/// definition (not from `TerminalText.isControl`).
final class TerminalTextTests: XCTestCase {
    /// Every code point that must be shown as an escape, by class.
    static let c0 = Array(0x00...0x1F).map { UInt32($0) }
    static let del: [UInt32] = [0x7F]
    static let c1 = Array(0x80...0x9F).map { UInt32($0) }
    static let bidi: [UInt32] = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
    static let controls = Set(c0 + del + c1 + bidi)

    /// Ordinary text by class, near misses of the controls' UTF-8 forms included (U+00B7 and U+00A0
    /// share the 0xC2 lead, U+2026, U+202F, U+2065, U+206A and ZWJ U+200D the 0xE2 lead, U+061B the 0xD8 one).
    static let ordinary: [String: [String]] = [
        "ascii": ["a", "Z", "0", " ", "~", "\\", "\"", "{"],
        "latin-1": ["\u{A0}", "\u{B7}", "é", "ÿ", "\u{C2}"],
        "near-misses": ["\u{2026}", "\u{202F}", "\u{2065}", "\u{206A}", "\u{200D}", "\u{200B}", "\u{2028}", "\u{2029}", "\u{061B}", "\u{061D}", "—"],
        "cjk": ["西", "湖", "景", "区", "·", "，", "〇"],
        "emoji": ["😀", "👩‍💻", "🇨🇳", "👍🏽"],
        "combining": ["e\u{301}", "a\u{308}\u{323}", "\u{0300}"],
        "other": ["한", "ع", "ש", "𝄞", "\u{FEFF}"],
    ]

    static func oracleEscape(_ v: UInt32) -> String {
        switch v {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0..<0x80: return "\\x" + String(format: "%02x", v)
        default: return "\\u" + String(format: "%04x", v)
        }
    }

    static func oracle(_ s: String, keepingLines: Bool = false) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if controls.contains(scalar.value), !(keepingLines && (scalar == "\n" || scalar == "\t")) {
                out += oracleEscape(scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    func testEveryControlIsShownAsItsEscape() {
        for v in Self.controls.sorted() {
            let s = String(Unicode.Scalar(v)!)
            XCTAssertEqual(TerminalText.sanitize(s), Self.oracleEscape(v), String(format: "U+%04X", v))
            XCTAssertEqual(TerminalText.sanitize("x" + s + "西"), "x" + Self.oracleEscape(v) + "西")
        }
        XCTAssertEqual(TerminalText.sanitize("\u{1B}]52;c;aGk=\u{07}"), "\\x1b]52;c;aGk=\\x07")
        XCTAssertEqual(TerminalText.sanitize("a\u{9B}2J\u{202E}b"), "a\\u009b2J\\u202eb")
    }

    func testOrdinaryTextOfEveryClassIsUnchanged() {
        for (cls, samples) in Self.ordinary {
            for s in samples {
                XCTAssertEqual(TerminalText.sanitize(s), s, cls)
                XCTAssertFalse(TerminalText.needsEscaping(s), cls)
            }
            let joined = samples.joined()
            XCTAssertEqual(TerminalText.sanitize(joined), joined, cls)
        }
    }

    /// Every Unicode scalar: escaped exactly when it is in the control set.
    func testEveryScalarAgreesWithTheDefinition() {
        var wrong: [String] = []
        for v in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let expected = Self.controls.contains(v)
            if TerminalText.needsEscaping(String(scalar)) != expected || TerminalText.isControl(scalar) != expected {
                wrong.append(String(format: "U+%04X", v))
                if wrong.count > 10 { break }
            }
        }
        XCTAssertEqual(wrong, [])
    }

    /// Random mixes of every class: controls visible, everything else untouched, the result clean and
    /// sanitizing twice a no-op.
    func testRandomMixesMatchTheOracle() {
        var rng = SystemRandomNumberGenerator()
        let pieces = Self.ordinary.values.flatMap { $0 } + Self.controls.map { String(Unicode.Scalar($0)!) }
        for _ in 0..<3000 {
            let s = (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let out = TerminalText.sanitize(s)
            XCTAssertEqual(out, Self.oracle(s), s.debugDescription)
            XCTAssertFalse(out.unicodeScalars.contains { Self.controls.contains($0.value) })
            XCTAssertEqual(TerminalText.sanitize(out), out)
            XCTAssertEqual(TerminalText.sanitizeLines(s), Self.oracle(s, keepingLines: true), s.debugDescription)
        }
    }

    func testLinesVariantKeepsNewlineAndTabOnly() {
        XCTAssertEqual(TerminalText.sanitizeLines("a\nb\tc\r\u{1B}[2J"), "a\nb\tc\\r\\x1b[2J")
        XCTAssertEqual(TerminalText.sanitize("a\nb\tc"), "a\\nb\\tc")
    }

    /// The fast path hands back the same storage: no copy for clean text.
    func testCleanTextIsReturnedWithoutACopy() {
        let s = String(repeating: "西湖景区 photographer ", count: 20)
        let out = TerminalText.sanitize(s)
        let a = s.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) }
        let b = out.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) }
        XCTAssertNotNil(a)
        XCTAssertEqual(a, b)
    }

    // MARK: JSON writer

    func testJSONWriterEscapesEveryControlAndRoundTrips() throws {
        for v in Self.controls.sorted() {
            let s = "名" + String(Unicode.Scalar(v)!) + "x"
            let bytes = JSONWriter.bytes(.string(s))
            XCTAssertTrue(Self.isInert(bytes), String(format: "U+%04X: %@", v, String(decoding: bytes, as: UTF8.self)))
            XCTAssertEqual(try JSONParser.parse(bytes), .string(s))
        }
        XCTAssertEqual(JSONWriter.string(.string("a\u{9B}b\u{202E}\u{7F}")), #""a\u009bb\u202e\u007f""#)
        XCTAssertEqual(JSONWriter.string(.string("西湖 · 景区…\u{200D}")), "\"西湖 · 景区…\u{200D}\"")
    }

    func testJSONWriterRandomDocumentsRoundTrip() throws {
        var rng = SystemRandomNumberGenerator()
        let pieces = Self.ordinary.values.flatMap { $0 } + Self.controls.map { String(Unicode.Scalar($0)!) }
        for _ in 0..<500 {
            func text() -> String { (0..<Int.random(in: 0...8, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() }
            let value: JSONValue = .object(JSONObject([(text(), .string(text())), ("list", .array([.string(text()), .int(1)]))]))
            for style in [JSONWriter.Style.compact, .pretty] {
                let bytes = JSONWriter.bytes(value, style: style)
                XCTAssertTrue(Self.isInert(bytes))
                XCTAssertEqual(try JSONParser.parse(bytes), value)
            }
        }
    }

    /// No C0 (but the pretty writer's newlines), DEL, C1 or bidi control in UTF-8 bytes.
    static func isInert(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return !text.unicodeScalars.contains { $0 != "\n" && controls.contains($0.value) }
    }
}
