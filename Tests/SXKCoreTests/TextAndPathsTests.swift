import SXKCore
import XCTest

final class TextAndPathsTests: XCTestCase {
    /// `range(ofBytes:)` finds what `firstRange(of:)` finds, for the ASCII needles sxk searches names and
    /// keys with, including where a combining mark or a prepended mark joins a needle's end to other text.
    func testByteSearchAgreesWithFirstRange() {
        let texts = [
            "a_role_b_common_uris", "_role_", "x_role_\u{301}_role_y", "\u{600}_role_z", "é_role_é", "none", "",
            "_rol_role_", "__role__", ".defaults.json.tmp-123-ab", ".lock", "测试_role_测试", "a_role", "\r\n_role_",
        ]
        for needle in ["_role_", ".tmp-", "."] {
            for text in texts {
                let bytes = text.range(ofBytes: needle)
                let characters = text.firstRange(of: needle)
                XCTAssertEqual(bytes, characters, "\(text.unicodeScalars.map { String($0.value, radix: 16) }) / \(needle)")
            }
        }
        XCTAssertEqual("abc".range(ofBytes: ""), "abc".startIndex..<"abc".startIndex)
    }
}
