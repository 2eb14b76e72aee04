import Foundation
import XCTest
import SXKTestSupport
@testable import SXKSession

/// The property-list reader: what Foundation writes must read as Foundation reads it, the XML
/// forms Apple and hand editors use must read, and hostile files must be refused without a trap.
final class PropertyListTests: XCTestCase {
    private let roomy = PropertyListLimits(values: 1_000_000, bytes: 1 << 26, depth: 32)

    private func xml(_ text: String, limits: PropertyListLimits? = nil) throws -> PropertyListValue {
        try PropertyListReader.xml(Array(text.utf8), limits: limits ?? roomy)
    }

    private func binary(_ bytes: [UInt8], limits: PropertyListLimits? = nil) throws -> PropertyListValue {
        try PropertyListReader.binary(bytes, limits: limits ?? roomy)
    }

    /// The error reading `body` gives, or nil when it reads.
    private func error(_ body: () throws -> PropertyListValue) -> PropertyListError? {
        do {
            _ = try body()
            return nil
        } catch let error as PropertyListError {
            return error
        } catch {
            XCTFail("not a PropertyListError: \(error)")
            return nil
        }
    }

    private func reason(_ error: PropertyListError?) -> String? {
        switch error {
        case .malformed(let why)?, .unsupported(let why)?: return why
        default: return nil
        }
    }

    // MARK: Against Foundation

    func testDecodesWhatFoundationWritesAsFoundationReadsIt() throws {
        var compared = 0
        for seed in UInt64(1)...300 {
            var maker = TreeMaker(seed: seed)
            let tree = maker.root()
            for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
                let data = try PropertyListSerialization.data(fromPropertyList: tree, format: format, options: 0)
                let read = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                let expected = try XCTUnwrap(Self.value(fromFoundation: read), "seed \(seed): Foundation gave a type the test does not map")
                let decoded: PropertyListValue
                do {
                    decoded = format == .xml ? try xml(String(decoding: data, as: UTF8.self)) : try binary([UInt8](data))
                } catch {
                    return XCTFail("seed \(seed), \(format == .xml ? "xml" : "binary"): \(error)")
                }
                if let difference = Self.difference(Self.sortedKeys(decoded), Self.sortedKeys(expected)) {
                    return XCTFail("seed \(seed), \(format == .xml ? "xml" : "binary"): \(difference)")
                }
                compared += 1
            }
        }
        XCTAssertEqual(compared, 600)
    }

    /// Foundation's decoded `Any` as the reader's value. On Linux a plist boolean comes back as a
    /// Swift Bool, numbers as NSNumber (objCType `d`/`f` for reals, `Q` above Int64.max).
    static func value(fromFoundation any: Any) -> PropertyListValue? {
        if type(of: any) == Bool.self, let flag = any as? Bool { return .bool(flag) }
        if let text = any as? String { return .string(text) }
        if let date = any as? Date { return .date(date.timeIntervalSince1970) }
        if let data = any as? Data { return .data([UInt8](data)) }
        if let number = any as? NSNumber {
            switch String(cString: number.objCType) {
            case "d", "f": return .real(number.doubleValue)
            case "B": return .bool(number.boolValue)
            case "Q":
                let value = number.uint64Value
                return Int64(exactly: value).map { .integer($0) } ?? .unsignedInteger(value)
            default: return .integer(number.int64Value)
            }
        }
        if let array = any as? [Any] {
            var items: [PropertyListValue] = []
            for item in array {
                guard let value = value(fromFoundation: item) else { return nil }
                items.append(value)
            }
            return .array(items)
        }
        if let dictionary = any as? [String: Any] {
            var entries: [PropertyListEntry] = []
            for (key, item) in dictionary {
                guard let value = value(fromFoundation: item) else { return nil }
                entries.append(PropertyListEntry(key: key, value: value))
            }
            return .dictionary(entries)
        }
        return nil
    }

    /// Where two values first differ (read, then expected), with strings escaped; nil when equal.
    static func difference(_ read: PropertyListValue, _ expected: PropertyListValue, at path: String = "top") -> String? {
        switch (read, expected) {
        case (.array(let items), .array(let others)):
            guard items.count == others.count else { return "\(path): \(items.count) items, expected \(others.count)" }
            for i in items.indices {
                if let found = difference(items[i], others[i], at: "\(path)[\(i)]") { return found }
            }
            return nil
        case (.dictionary(let entries), .dictionary(let others)):
            guard entries.map(\.key) == others.map(\.key) else {
                return "\(path): keys \(entries.map(\.key).debugDescription), expected \(others.map(\.key).debugDescription)"
            }
            for (entry, other) in zip(entries, others) {
                if let found = difference(entry.value, other.value, at: "\(path)[\(entry.key.debugDescription)]") { return found }
            }
            return nil
        default:
            return read == expected ? nil : "\(path): \(String(reflecting: read)), expected \(String(reflecting: expected))"
        }
    }

    /// Dictionaries in key order, so an unordered Foundation dictionary compares with the reader's.
    static func sortedKeys(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let items):
            return .array(items.map(sortedKeys))
        case .dictionary(let entries):
            return .dictionary(entries.map { PropertyListEntry(key: $0.key, value: sortedKeys($0.value)) }.sorted { $0.key < $1.key })
        default:
            return value
        }
    }

    // MARK: XML as written by hand

    func testXMLTextReferencesCDATAAndComments() throws {
        let text = "<plist><string>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#65;&#x42;&#x1F600;|<![CDATA[<raw> & ]]>|<!-- gone -->end</string></plist>"
        XCTAssertEqual(try xml(text), .string("a <b> & \"c\" 'd' AB😀|<raw> & |end"))
    }

    func testXMLWhitespaceInsideStringsIsKeptExactly() throws {
        XCTAssertEqual(try xml("<plist>\n  <array>\n\t<string>  two\n\tlines \r\n</string>\n<string> </string>\n  </array>\n</plist>\n"),
                       .array([.string("  two\n\tlines \r\n"), .string(" ")]))
        // Lines are counted by LF, so a CRLF file numbers its lines as an editor does.
        XCTAssertEqual(reason(error { try xml("<plist>\r\n<array>\r\n<string>\r\n</string>\r\n</dict>") }), "line 5: </dict> closes <array>")
    }

    func testXMLPrologBOMDoctypeAndCommentsAroundTheRoot() throws {
        let text = """
        \u{FEFF}<?xml version="1.0" encoding="utf-8"?>
        <!-- before -->
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd" [ <!ENTITY x "y>"> ]>
        <?app ignore me?>
        <plist version="1.0"><!-- inside --><dict><!-- c --><key>k</key><!-- c --><string>v</string></dict><!-- after --></plist>
        <!-- trailing --><?app?>

        """
        XCTAssertEqual(try xml(text), .dictionary([PropertyListEntry(key: "k", value: .string("v"))]))
    }

    func testXMLEmptyElementForms() throws {
        let text = """
        <plist><dict><key>s</key><string/><key>d</key><dict/><key>a</key><array/><key>data</key><data/>\
        <key>t</key><true/><key>f</key><false></false><key/><string>empty key</string><key>e</key><array></array></dict></plist>
        """
        XCTAssertEqual(try xml(text), .dictionary([
            PropertyListEntry(key: "s", value: .string("")),
            PropertyListEntry(key: "d", value: .dictionary([])),
            PropertyListEntry(key: "a", value: .array([])),
            PropertyListEntry(key: "data", value: .data([])),
            PropertyListEntry(key: "t", value: .bool(true)),
            PropertyListEntry(key: "f", value: .bool(false)),
            PropertyListEntry(key: "", value: .string("empty key")),
            PropertyListEntry(key: "e", value: .array([])),
        ]))
    }

    func testXMLNumbersDatesAndData() throws {
        let text = """
        <plist><array>
        <integer>0x1F</integer><integer>-0X10</integer><integer>+7</integer><integer>-0</integer>
        <integer>-9223372036854775808</integer><integer>9223372036854775807</integer>
        <integer>9223372036854775808</integer><integer>18446744073709551615</integer>
        <real>-Infinity</real><real>+INF</real><real>inf</real><real>1e3</real><real>-.5</real><real>2.</real><real>1.5E-3</real>
        <date>2001-01-01T00:00:00Z</date><date>1969-12-31T23:59:59Z</date><date>2024-02-29T12:00:00Z</date><date>1900-03-01T00:00:00Z</date>
        <data>AAEC
          /w==</data><data>QQ==</data><data>QUI=</data>
        </array></plist>
        """
        XCTAssertEqual(try xml(text), .array([
            .integer(31), .integer(-16), .integer(7), .integer(0),
            .integer(.min), .integer(.max),
            .unsignedInteger(1 << 63), .unsignedInteger(.max),
            .real(-.infinity), .real(.infinity), .real(.infinity), .real(1000), .real(-0.5), .real(2), .real(0.0015),
            .date(978_307_200), .date(-1), .date(1_709_208_000), .date(-2_203_891_200),
            .data([0, 1, 2, 255]), .data([0x41]), .data([0x41, 0x42]),
        ]))
        guard case .array(let nans) = try xml("<plist><array><real>nan</real><real>NaN</real><real>-nan</real></array></plist>") else {
            return XCTFail("not an array")
        }
        XCTAssertEqual(nans.count, 3)
        for value in nans {
            guard case .real(let number) = value, number.isNaN else { return XCTFail("\(value) is not NaN") }
        }
    }

    /// In a nested dictionary the last value of a repeated key wins and the dictionary holds the key
    /// once, as Foundation reads it; in the top one (a device's defaults, each key once) it is an error.
    func testXMLDuplicateKeysKeepTheLastValueBelowTheTop() throws {
        let text = "<plist><array><dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer><key>a</key><integer>3</integer></dict></array></plist>"
        XCTAssertEqual(try xml(text), .array([.dictionary([PropertyListEntry(key: "a", value: .integer(3)), PropertyListEntry(key: "b", value: .integer(2))])]))
        let foundation = try PropertyListSerialization.propertyList(from: Data(text.utf8), options: [], format: nil)
        guard case .array(let ours) = try xml(text), let theirs = (foundation as? [Any])?.first else { return XCTFail("not an array of one") }
        XCTAssertEqual(Self.value(fromFoundation: theirs).map(Self.sortedKeys), ours.first.map(Self.sortedKeys))
        // Keys are compared as Swift strings: two spellings of "é" are one key, kept as first written.
        let spellings = "<plist><array><dict><key>\u{E9}</key><integer>1</integer><key>e&#x301;</key><integer>2</integer></dict></array></plist>"
        guard case .array(let items) = try xml(spellings), case .dictionary(let entries)? = items.first else { return XCTFail("not a dictionary") }
        XCTAssertEqual(entries.map(\.key.unicodeScalars.count), [1])
        XCTAssertEqual(entries.map(\.value), [.integer(2)])
        XCTAssertEqual(error { try xml("<plist><dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer><key>a</key><integer>3</integer></dict></plist>") },
                       .repeatedKey("a"))
        XCTAssertEqual(error { try xml("<plist><dict><key>\u{E9}</key><integer>1</integer><key>e&#x301;</key><integer>2</integer></dict></plist>") },
                       .repeatedKey("e\u{301}"))
    }

    // MARK: Hostile XML

    func testXMLMillionDeepNestingIsAnErrorNotAStackOverflow() {
        let deep = "<plist>" + String(repeating: "<array>", count: 1_000_000)
        XCTAssertEqual(error { try xml(deep) }, .tooDeep(limit: 32))
        let deepDicts = "<plist>" + String(repeating: "<dict><key>k</key>", count: 1_000_000)
        XCTAssertEqual(error { try xml(deepDicts) }, .tooDeep(limit: 32))
    }

    /// The top value is at depth 0: a value at the limit reads, one below it does not, in both formats.
    func testDepthLimitIsTheSameInBothFormats() throws {
        func nested(_ levels: Int) -> String {
            "<plist>" + String(repeating: "<array>", count: levels) + "<true/>" + String(repeating: "</array>", count: levels) + "</plist>"
        }
        XCTAssertNoThrow(try xml(nested(32)))
        XCTAssertEqual(error { try xml(nested(33)) }, .tooDeep(limit: 32))
        func chain(_ levels: Int) -> [UInt8] {
            // Object i is an array holding object i + 1; the last is `true`.
            Self.bplist((0..<levels).map { [0xA1, UInt8($0 + 1)] } + [[0x09]])
        }
        XCTAssertNoThrow(try binary(chain(32)))
        XCTAssertEqual(error { try binary(chain(33)) }, .tooDeep(limit: 32))
    }

    func testXMLStructureErrorsNameTheLine() {
        let cases: [(String, String)] = [
            ("", "line 1: no <plist> element"),
            ("<plist><dict>", "line 1: <dict> is not closed"),
            ("<plist>\n<array>\n<string>a</string>\n</dict>\n</plist>", "line 4: </dict> closes <array>"),
            ("<plist>\n<array>\n</foo>", "line 3: the close tag of an element that is not a plist element closes <array>"),
            ("<plist>\n\n<string>a</strin>", "line 3: the close tag of an element that is not a plist element closes <string>"),
            ("<plist><string>abc", "line 1: <string> is not closed"),
            ("<plist>\n<!-- x </plist>", "line 2: a comment is not closed"),
            ("<plist><string><![CDATA[abc</string></plist>", "line 1: a CDATA section is not closed"),
            ("<plist><array><![CDATA[x]]></array></plist>", "line 1: a CDATA section or declaration between elements"),
            ("<!DOCTYPE plist [ <!ENTITY a \"b\">", "line 1: <!DOCTYPE> is not closed"),
            ("<?app <plist/>", "line 1: a processing instruction is not closed"),
            ("<plist><true/></plist>\njunk", "line 2: text after </plist>"),
            ("<plist><true/></plist><plist><true/></plist>", "line 1: text after </plist>"),
            ("junk<plist><true/></plist>", "line 1: text before <plist>"),
            ("<plist><true/>\n<false/></plist>", "line 2: a second value in <plist>"),
            ("<plist>hello<true/></plist>", "line 1: text inside <plist>"),
            ("<plist><array>x</array></plist>", "line 1: text inside <array>"),
            ("<plist/>", "line 1: <plist> holds no value"),
            ("<plist>\n</plist>", "line 2: <plist> holds no value"),
            ("<dict></dict>", "line 1: the root element is not <plist>"),
            ("<plist><plist/></plist>", "line 1: <plist> inside <plist>"),
            ("<plist><dict><string>v</string></dict></plist>", "line 1: a value without a <key> in <dict>"),
            ("<plist><array><key>k</key></array></plist>", "line 1: <key> outside a <dict>"),
            ("<plist><dict><key>a</key><key>b</key></dict></plist>", "line 1: two <key>s in a row"),
            ("<plist><dict><key>a</key></dict></plist>", "line 1: a <key> without a value"),
            ("<plist><foo/></plist>", "line 1: an element that is not a plist element"),
            ("<plist><string>a<b/>c</string></plist>", "line 1: an element inside <string>"),
            ("<plist><true>x</true></plist>", "line 1: <true/> holds text"),
            ("<plist><array></plist>", "line 1: </plist> closes <array>"),
            ("<plist version=1><true/></plist>", "line 1: a malformed attribute"),
            ("<plist version=\"1><true/></plist>", "line 1: an attribute value is not closed"),
            ("<plist>< true/></plist>", "line 1: a malformed tag"),
            ("<plist><true/></plist", "line 1: a malformed close tag"),
            ("<plist><true", "line 1: a tag is not closed"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(error { try xml(text) }, .malformed(expected), text)
        }
    }

    func testXMLDeclaringAnotherEncodingIsRefused() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist><true/></plist>"
        XCTAssertEqual(error { try xml(text) }, .unsupported("line 1: the declared encoding is not UTF-8, the only one read"))
        XCTAssertNoThrow(try xml("<?xml version='1.0' encoding='UTF-8' standalone='yes'?><plist><true/></plist>"))
    }

    func testXMLScalarTextErrors() {
        let cases: [(String, String)] = [
            ("<data>!!!!</data>", "<data> is not valid base64"),
            ("<data>QQ</data>", "<data> is not valid base64"),
            ("<data>QQ==QQ==</data>", "<data> is not valid base64"),
            ("<data>QQ===</data>", "<data> is not valid base64"),
            ("<date>2024-02-30T00:00:00Z</date>", "<date> is not a date written yyyy-MM-ddTHH:mm:ssZ"),
            ("<date>2023-02-29T00:00:00Z</date>", "<date> is not a date written yyyy-MM-ddTHH:mm:ssZ"),
            ("<date>yesterday</date>", "<date> is not a date written yyyy-MM-ddTHH:mm:ssZ"),
            ("<date>2024-01-01 00:00:00Z</date>", "<date> is not a date written yyyy-MM-ddTHH:mm:ssZ"),
            ("<date>2024-01-01T24:00:00Z</date>", "<date> is not a date written yyyy-MM-ddTHH:mm:ssZ"),
            ("<integer>99999999999999999999999</integer>", "<integer> holds no integer, or one outside 64 bits"),
            ("<integer>18446744073709551616</integer>", "<integer> holds no integer, or one outside 64 bits"),
            ("<integer>-9223372036854775809</integer>", "<integer> holds no integer, or one outside 64 bits"),
            ("<integer> 1</integer>", "<integer> holds no integer, or one outside 64 bits"),
            ("<integer>12a</integer>", "<integer> holds no integer, or one outside 64 bits"),
            ("<integer>0x</integer>", "<integer> holds no integer, or one outside 64 bits"),
            ("<integer></integer>", "<integer> holds no integer, or one outside 64 bits"),
            ("<integer/>", "<integer> holds no integer, or one outside 64 bits"),
            ("<real>1.2.3</real>", "<real> holds no number"),
            ("<real>0x1p3</real>", "<real> holds no number"),
            ("<real>1e</real>", "<real> holds no number"),
            ("<real>.</real>", "<real> holds no number"),
            ("<string>&foo;</string>", "an entity XML does not predefine"),
            ("<string>a & b</string>", "an '&' that starts no entity"),
            ("<string>&#0;</string>", "a character reference to NUL or a surrogate"),
            ("<string>&#xD800;</string>", "a character reference to NUL or a surrogate"),
            ("<string>&#x110000;</string>", "a character reference beyond U+10FFFF"),
            ("<string>&#12a;</string>", "a malformed character reference"),
            ("<string>&#x;</string>", "a malformed character reference"),
        ]
        for (body, expected) in cases {
            XCTAssertEqual(error { try xml("<?xml version=\"1.0\"?>\n<plist>\n\(body)</plist>") }, .malformed("line 3: \(expected)"), body)
        }
        let notUTF8 = Array("<plist><string>".utf8) + [0xC3, 0x28] + Array("</string></plist>".utf8)
        XCTAssertEqual(error { try PropertyListReader.xml(notUTF8, limits: roomy) }, .malformed("line 1: text that is not UTF-8"))
    }

    func testXMLLimitsOnValuesAndBytes() {
        let ten = "<plist><array>" + String(repeating: "<true/>", count: 10) + "</array></plist>"
        XCTAssertNoThrow(try xml(ten, limits: PropertyListLimits(values: 11, bytes: 10, depth: 32)))
        XCTAssertEqual(error { try xml(ten, limits: PropertyListLimits(values: 10, bytes: 10, depth: 32)) }, .tooManyValues(limit: 10))
        let long = "<plist><dict><key>k</key><string>" + String(repeating: "x", count: 100) + "</string></dict></plist>"
        XCTAssertNoThrow(try xml(long, limits: PropertyListLimits(values: 10, bytes: 101, depth: 32)))
        XCTAssertEqual(error { try xml(long, limits: PropertyListLimits(values: 10, bytes: 100, depth: 32)) }, .tooManyBytes(limit: 100))
    }

    /// Cut anywhere before its end, an XML plist is refused; changed anywhere, it reads or is refused, never traps.
    func testTruncatedAndCorruptedXMLNeverTraps() throws {
        var maker = TreeMaker(seed: 7)
        let data = [UInt8](try PropertyListSerialization.data(fromPropertyList: maker.root(), format: .xml, options: 0))
        let close = Array("</plist>".utf8)
        let end = try XCTUnwrap((0...(data.count - close.count)).first { data[$0..<($0 + close.count)].elementsEqual(close) }) + close.count
        for length in 0..<end {
            XCTAssertNotNil(error { try PropertyListReader.xml(Array(data.prefix(length)), limits: roomy) }, "prefix \(length)")
        }
        var rng = PlistTestGenerator(seed: 11)
        let alphabet = Array("<>/&;#x![]-?=\"' \nabdikrtyCD0129".utf8)
        var refused = 0
        for _ in 0..<2_000 {
            var bytes = data
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng) ?? 0
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &rng) ?? 0, at: at)
                }
            }
            if error({ try PropertyListReader.xml(bytes, limits: roomy) }) != nil { refused += 1 }
        }
        XCTAssertGreaterThan(refused, 500)
    }

    // MARK: Hostile binary

    static func bplist(_ objects: [[UInt8]], top: Int = 0, refSize: UInt8 = 1) -> [UInt8] {
        BinaryPlistFixture.bplist(objects, top: top, refSize: refSize)
    }

    func testHandMadeBinaryReads() throws {
        let plist = Self.bplist([[0xD2, 1, 2, 3, 4], [0x51, 0x61], [0x51, 0x62], [0x10, 5], [0x09]])
        XCTAssertEqual(try binary(plist), .dictionary([PropertyListEntry(key: "a", value: .integer(5)), PropertyListEntry(key: "b", value: .bool(true))]))
        // A key given twice: in a nested dictionary the last value, one entry; in the top one an error.
        let twice = Self.bplist([[0xA1, 1], [0xD2, 2, 2, 3, 4], [0x51, 0x6B], [0x10, 1], [0x10, 2]])
        XCTAssertEqual(try binary(twice), .array([.dictionary([PropertyListEntry(key: "k", value: .integer(2))])]))
        XCTAssertEqual(error { try binary(Self.bplist([[0xD2, 1, 1, 2, 3], [0x51, 0x6B], [0x10, 1], [0x10, 2]])) }, .repeatedKey("k"))
        // Lengths past 14 follow the marker as an integer object.
        let long = Self.bplist([[0x5F, 0x10, 20] + Array(repeating: 0x78, count: 20)])
        XCTAssertEqual(try binary(long), .string(String(repeating: "x", count: 20)))
    }

    func testBinaryIntegerRealAndDateForms() throws {
        let zeros = [UInt8](repeating: 0, count: 8), ones = [UInt8](repeating: 0xFF, count: 8)
        let float = Float(1.25).bitPattern, double = (-2.5).bitPattern
        let cases: [([UInt8], PropertyListValue)] = [
            ([0x10, 0xFF], .integer(255)),
            ([0x11, 0xFF, 0xFF], .integer(65535)),
            ([0x12, 0xFF, 0xFF, 0xFF, 0xFF], .integer(4_294_967_295)),
            ([0x13] + ones, .integer(-1)),
            ([0x13, 0x80] + zeros.dropFirst(), .integer(.min)),
            ([0x14] + zeros + ones, .unsignedInteger(.max)),
            ([0x14] + zeros + [0, 0, 0, 0, 0, 0, 0, 5], .integer(5)),
            ([0x22] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: float >> ($0 * 8)) }, .real(1.25)),
            ([0x23] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: double >> ($0 * 8)) }, .real(-2.5)),
            ([0x33] + zeros, .date(978_307_200)),
        ]
        for (object, expected) in cases {
            XCTAssertEqual(try binary(Self.bplist([object])), expected, "\(object)")
        }
        XCTAssertEqual(error { try binary(Self.bplist([[0x14] + [0, 0, 0, 0, 0, 0, 0, 1] + zeros])) }, .malformed("an integer wider than 64 bits"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x14] + ones + ones])) }, .malformed("an integer wider than 64 bits"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x15] + zeros + zeros + zeros + zeros])) }, .malformed("bad integer size"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x21, 0, 0]])) }, .malformed("bad real size"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x32, 0, 0, 0, 0]])) }, .malformed("bad date size"))
    }

    func testEveryPrefixOfABinaryPlistIsRefused() throws {
        let plist: [String: Any] = ["k": [1, "two", 3.5, Data([1, 2]), Date(timeIntervalSince1970: 5), true, "千岛湖"], "x": ["nested": -7]]
        let data = [UInt8](try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0))
        XCTAssertNoThrow(try binary(data))
        for length in 0..<data.count {
            XCTAssertNotNil(error { try binary(Array(data.prefix(length))) }, "prefix \(length)")
        }
    }

    /// Bytes changed anywhere (trailer, offset table, markers, lengths): read or refused, never a trap.
    func testCorruptedBinaryPlistsNeverTrap() throws {
        var maker = TreeMaker(seed: 3)
        let data = [UInt8](try PropertyListSerialization.data(fromPropertyList: maker.root(), format: .binary, options: 0))
        var rng = PlistTestGenerator(seed: 5)
        var refused = 0
        for round in 0..<5_000 {
            var bytes = data
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                // Half the changes land in the trailer and offset table, which every read goes through.
                let at = round % 2 == 0 ? Int.random(in: 0..<bytes.count, using: &rng) : Int.random(in: max(8, bytes.count - 64)..<bytes.count, using: &rng)
                bytes[at] = UInt8.random(in: 0...255, using: &rng)
            }
            if error({ try binary(bytes) }) != nil { refused += 1 }
        }
        XCTAssertGreaterThan(refused, 1_000)
    }

    func testBinaryOutOfRangeOffsetsReferencesAndLengths() {
        var outside = Self.bplist([[0xA1, 1], [0x09]])
        outside[outside.count - 32 - 1] = 0xF0  // the second offset, past the table
        XCTAssertEqual(error { try binary(outside) }, .malformed("object offset out of range"))
        var intoTable = Self.bplist([[0xA1, 1], [0x09]])
        intoTable[intoTable.count - 32 - 1] = UInt8(intoTable.count - 32 - 2)  // the offset table itself
        XCTAssertEqual(error { try binary(intoTable) }, .malformed("object offset out of range"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xA1, 7], [0x09]])) }, .malformed("reference out of range"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xD1, 1, 9], [0x51, 0x61]])) }, .malformed("reference out of range"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x09]], top: 1)) }, .malformed("bad trailer"))
        // Lengths that reach past the object area, or that no Int holds.
        XCTAssertEqual(error { try binary(Self.bplist([[0x5F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])) },
                       .malformed("an object runs past the object area"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xAF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]], refSize: 8)) },
                       .malformed("an object runs past the object area"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x4F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])) },
                       .malformed("value out of range"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x4F, 0x51, 0x61]])) }, .malformed("bad length"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x44, 1, 2]])) }, .malformed("an object runs past the object area"))
        XCTAssertEqual(error { try binary(Array("bplist01".utf8) + Array(Self.bplist([[0x09]]).dropFirst(8))) },
                       .malformed("only version 00 is read"))
        var wideTable = Self.bplist([[0x09]])
        wideTable[wideTable.count - 32 + 6] = 9  // offsets 9 bytes wide
        XCTAssertEqual(error { try binary(wideTable) }, .malformed("bad trailer"))
        var manyObjects = Self.bplist([[0x09]])
        manyObjects[manyObjects.count - 32 + 8] = 0x7F  // an object count near Int64.max
        XCTAssertEqual(error { try binary(manyObjects) }, .malformed("bad trailer"))
    }

    func testBinaryCyclesAreRefused() {
        XCTAssertEqual(error { try binary(Self.bplist([[0xA1, 0]])) }, .malformed("an object contains itself"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xA1, 1], [0xA2, 2, 0], [0x09]])) }, .malformed("an object contains itself"))
        // A dictionary whose value is the dictionary.
        XCTAssertEqual(error { try binary(Self.bplist([[0xD1, 1, 0], [0x51, 0x6B]])) }, .malformed("an object contains itself"))
    }

    func testBinaryStringsAreValidated() throws {
        XCTAssertEqual(try binary(Self.bplist([[0x62, 0xD8, 0x3D, 0xDE, 0x00]])), .string("😀"))
        XCTAssertEqual(try binary(Self.bplist([[0x62, 0x53, 0x43, 0x5C, 0x9B]])), .string("千岛"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x61, 0xD8, 0x00]])) }, .malformed("an unpaired surrogate in a UTF-16 string"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x62, 0xDE, 0x00, 0xD8, 0x3D]])) }, .malformed("an unpaired surrogate in a UTF-16 string"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x62, 0xD8, 0x3D, 0x00, 0x41]])) }, .malformed("an unpaired surrogate in a UTF-16 string"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x52, 0x41, 0xE9]])) }, .malformed("a non-ASCII byte in an ASCII string"))
    }

    func testBinaryNonStringKeysAndUnsupportedTypes() {
        XCTAssertEqual(error { try binary(Self.bplist([[0xD1, 1, 2], [0x10, 1], [0x09]])) }, .malformed("a dictionary key that is not a string"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xD1, 1, 2], [0x41, 0x6B], [0x09]])) }, .malformed("a dictionary key that is not a string"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xA1, 1], [0x80, 0x01]])) }, .unsupported("a UID, marker 0x80"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x70]])) }, .unsupported("an unknown object type, marker 0x70"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xC1, 1], [0x09]])) }, .unsupported("a set, marker 0xc1"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xB0]])) }, .unsupported("an ordered set, marker 0xb0"))
        XCTAssertEqual(error { try binary(Self.bplist([[0x00]])) }, .unsupported("a null or fill object, marker 0x00"))
        XCTAssertEqual(error { try binary(Self.bplist([[0xA1, 1], [0x0F]])) }, .unsupported("a null or fill object, marker 0x0f"))
    }

    /// Shared references are measured before anything is built: a tiny file standing for millions of values is refused.
    func testBinarySharedReferencesPastTheLimitAreRefused() throws {
        // Object i: an array holding object i + 1 six times; after the last level, "x".
        func shared(levels: Int) -> [UInt8] {
            Self.bplist((0..<levels).map { level in [UInt8(0xA6)] + Array(repeating: UInt8(level + 1), count: 6) } + [[0x51, 0x78]])
        }
        let bomb = shared(levels: 12)
        XCTAssertLessThan(bomb.count, 200)
        XCTAssertEqual(error { try binary(bomb, limits: PropertyListLimits(values: 200_000, bytes: 16 << 20, depth: 32)) }, .tooManyValues(limit: 200_000))
        let small = shared(levels: 3)  // 6³ strings
        guard case .array(let items) = try binary(small) else { return XCTFail("not an array") }
        XCTAssertEqual(items.count, 6)
        XCTAssertEqual(error { try binary(small, limits: PropertyListLimits(values: 1_000, bytes: 100, depth: 32)) }, .tooManyBytes(limit: 100))
    }
}

/// SplitMix64, so a failing tree is rebuilt from the seed in the message.
private struct PlistTestGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random property-list trees as Foundation takes them: the values at the edges of each binary
/// encoding (integer widths, string kinds, lengths past 14) and the text XML must escape.
private struct TreeMaker {
    var rng: PlistTestGenerator
    init(seed: UInt64) { rng = PlistTestGenerator(seed: seed) }

    private static let pieces = [
        "", "a", "Zz", "key", "<", ">", "&", "&amp;", "<&>", "\"", "'", "]]>", "<!--", "-->", " ", "  two  ", "\t", "\n",
        "\r\n", "é", "ß", "千岛湖", "门店管理员", "😀", "👩‍💻", "𝄞", "0x1F", "-1", "\u{1B}[31m", String(repeating: "x", count: 17),
        String(repeating: "长", count: 16),
    ]
    private static let integers: [Int64] = [
        0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 65535, 65536, -65536, Int64(Int32.max), Int64(UInt32.max),
        Int64(UInt32.max) + 1, .max, .min, .max - 1, .min + 1,
    ]
    private static let doubles: [Double] = [0, -0.0, 1.5, -2.25, 0.1, 1e300, -1e-300, 123_456.789, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 2.2250738585072014e-308]

    mutating func root() -> Any {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<6: return dictionary(depth: 0)
        case 6..<9: return array(depth: 0)
        default: return scalar()
        }
    }

    mutating func string() -> String {
        (0..<Int.random(in: 0...4, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng) ?? "" }.joined()
    }

    private mutating func count() -> Int {
        Int.random(in: 0..<12, using: &rng) == 0 ? Int.random(in: 15...18, using: &rng) : Int.random(in: 0...4, using: &rng)
    }

    private mutating func value(depth: Int) -> Any {
        guard depth < 6 else { return scalar() }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1: return array(depth: depth + 1)
        case 2, 3: return dictionary(depth: depth + 1)
        default: return scalar()
        }
    }

    private mutating func array(depth: Int) -> [Any] {
        (0..<count()).map { _ in value(depth: depth) }
    }

    private mutating func dictionary(depth: Int) -> [String: Any] {
        var out: [String: Any] = [:]
        for _ in 0..<count() { out[string()] = value(depth: depth) }
        return out
    }

    private mutating func scalar() -> Any {
        switch Int.random(in: 0..<16, using: &rng) {
        case 0: return Bool.random(using: &rng)
        case 1: return Int(Self.integers.randomElement(using: &rng) ?? 0)
        case 2:
            // A random width, so each of the 1-, 2-, 4- and 8-byte forms comes up.
            let bits = Int.random(in: 1...62, using: &rng)
            let magnitude = Int.random(in: 0..<(1 << bits), using: &rng)
            return Bool.random(using: &rng) ? magnitude : -magnitude
        case 3: return Bool.random(using: &rng) ? UInt64.max : UInt64.random(in: (UInt64(Int64.max) + 1)...UInt64.max, using: &rng)
        case 4: return Self.doubles.randomElement(using: &rng) ?? 0
        case 5: return Double.random(in: -1e6...1e6, using: &rng)
        case 6:
            let double = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
            return double.isFinite ? double : 1.0
        case 7: return Float(Double.random(in: -1000...1000, using: &rng))
        case 8: return Date(timeIntervalSince1970: Double.random(in: -2_000_000_000...4_000_000_000, using: &rng))
        case 9: return Date(timeIntervalSince1970: Double(Int.random(in: -2_000_000_000...4_000_000_000, using: &rng)))
        case 10: return Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        default: return string()
        }
    }
}
