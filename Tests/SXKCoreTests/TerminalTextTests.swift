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
    /// General category Cf (Unicode 15.1), the zero-width ones and the byte order mark among them.
    static let format: [UInt32] = [0x00AD, 0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891,
        0x08E2, 0x180E, 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x206A, 0x206B, 0x206C,
        0x206D, 0x206E, 0x206F, 0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB, 0x110BD, 0x110CD, 0x1BCA0, 0x1BCA1, 0x1BCA2, 0x1BCA3,
        0xE0001] + Array(0x13430...0x1343F).map { UInt32($0) } + Array(0x1D173...0x1D17A).map { UInt32($0) }
        + Array(0xE0020...0xE007F).map { UInt32($0) }
    /// Zl and Zp.
    static let separators: [UInt32] = [0x2028, 0x2029]
    static let controls = Set(c0 + del + c1 + bidi + format + separators)

    /// Ordinary text by class, near misses of the controls' UTF-8 forms included (U+00B7 and U+00A0
    /// share the 0xC2 lead, U+2026, U+202F and U+2065 the 0xE2 lead, U+061B the 0xD8 one, U+FEFE the
    /// 0xEF one); a zero-width joiner inside an emoji sequence is kept.
    static let ordinary: [String: [String]] = [
        "ascii": ["a", "Z", "0", " ", "~", "\\", "\"", "{"],
        "latin-1": ["\u{A0}", "\u{B7}", "é", "ÿ", "\u{C2}"],
        "near-misses": ["\u{2026}", "\u{202F}", "\u{2065}", "\u{061B}", "\u{061D}", "—", "\u{FEFE}", "\u{FFFC}", "\u{AC}", "\u{AE}"],
        "cjk": ["西", "湖", "景", "区", "·", "，", "〇"],
        "emoji": ["😀", "👩‍💻", "🇨🇳", "👍🏽"],
        "combining": ["e\u{301}", "a\u{308}\u{323}", "\u{0300}"],
        "other": ["한", "ع", "ש", "𝄞", "\u{E0100}", "❤️‍🔥", "👍🏽‍♂️"],
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

    /// A zero-width joiner after an emoji (or its variation selector U+FE0F) and before one.
    static func joinsEmoji(_ scalars: [Unicode.Scalar], _ i: Int) -> Bool {
        func emoji(_ s: Unicode.Scalar) -> Bool {
            (0x1F000...0x1FAFF).contains(s.value) || ((0x2190...0x2BFF).contains(s.value) && s.properties.isEmoji)
        }
        return scalars[i] == "\u{200D}" && i > 0 && i + 1 < scalars.count
            && (emoji(scalars[i - 1]) || scalars[i - 1] == "\u{FE0F}") && emoji(scalars[i + 1])
    }

    static func oracle(_ s: String, keepingLines: Bool = false) -> String {
        var out = ""
        let scalars = Array(s.unicodeScalars)
        for (i, scalar) in scalars.enumerated() {
            if controls.contains(scalar.value), !(keepingLines && (scalar == "\n" || scalar == "\t")), !joinsEmoji(scalars, i) {
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
            XCTAssertTrue(Self.isInert(Array(out.utf8)) && !out.contains("\n"))
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
        XCTAssertEqual(JSONWriter.string(.string("西湖 · 景区…\u{200D}")), #""西湖 · 景区…\u200d""#)
        XCTAssertEqual(JSONWriter.string(.string("👩‍💻\u{E0001}")), #""👩‍💻\udb40\udc01""#)
        XCTAssertEqual(TerminalText.sanitize("a\u{200B}b\u{2028}c\u{FEFF}d\u{2060}e\u{2064}"), #"a\u200bb\u2028c\ufeffd\u2060e\u2064"#)
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
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        return !scalars.indices.contains { scalars[$0] != "\n" && controls.contains(scalars[$0].value) && !joinsEmoji(scalars, $0) }
    }
}
