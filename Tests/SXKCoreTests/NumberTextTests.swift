import Foundation
import XCTest
@testable import SXKCore

/// `NumberText` stands in for `String(format:)` (which costs a one-shot a conformance scan): it must
/// print what `%0Nd` and `%.Nf` print, the latter but for exact ties, which it rounds away from zero.
final class NumberTextTests: XCTestCase {
    func testPaddedPrintsWhatPercentZeroDPrints() {
        for n in [0, 1, 7, 9, 10, 59, 99, 100, 1234, 20261, -1, -7, -59, -1234, Int(Int32.max), Int(Int32.min)] {
            for width in [0, 1, 2, 3, 4, 6] {
                XCTAssertEqual(NumberText.padded(n, width: width), String(format: "%0\(width)d", n), "\(n) at \(width)")
            }
        }
    }

    func testFixedPrintsWhatPercentDotNFPrints() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, 1, 12.5, 0.04, 99.96, 1234.5678, 31.2, 0.001, 1e6, -3.2, -0.04]
        for _ in 0..<2000 { values.append(Double.random(in: -10_000...10_000, using: &generator)) }
        for value in values {
            for digits in [0, 1, 2, 3] {
                var scale = 1.0
                for _ in 0..<digits { scale *= 10 }
                let scaled = abs(value) * scale
                // Exact ties (x.5 after scaling) are where the two round differently: left out here.
                if scaled - scaled.rounded(.down) == 0.5 { continue }
                XCTAssertEqual(NumberText.fixed(value, digits: digits), String(format: "%.\(digits)f", value), "\(value), \(digits) digits")
            }
        }
    }

    func testFixedRoundsTiesAwayFromZeroAndSaysWhatIsNotANumber() {
        XCTAssertEqual(NumberText.fixed(0.5, digits: 0), "1")
        XCTAssertEqual(NumberText.fixed(2.5, digits: 0), "3")
        XCTAssertEqual(NumberText.fixed(-2.5, digits: 0), "-3")
        XCTAssertEqual(NumberText.fixed(-0.04, digits: 1), "-0.0")
        XCTAssertEqual(NumberText.fixed(.nan, digits: 1), "nan")
        XCTAssertEqual(NumberText.fixed(.infinity, digits: 1), "inf")
        XCTAssertEqual(NumberText.fixed(-.infinity, digits: 1), "-inf")
    }
}
