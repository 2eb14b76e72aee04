import Foundation
import XCTest
import SXKTestSupport

/// `import-defaults` on hostile binary plists, run as the real binary under an address-space limit
/// (`prlimit --as`) and a deadline: a file of a few hundred bytes must not expand into gigabytes.
final class ImportDefaultsTests: XCTestCase {
    /// `bplist00` with a top dictionary `{"a": L}`, where L is `levels` nested arrays, each holding
    /// `fan` references to the same array below it, ending in the string "x". Written byte by byte
    /// so the test does not depend on Foundation's writer (which would expand the shared array).
    static func sharedArrayPlist(levels: Int, fan: Int) -> [UInt8] {
        precondition(fan < 15 && levels + 3 < 256)
        var objects: [[UInt8]] = [[0xD1, 1, 2], [0x51, UInt8(ascii: "a")]]
        for level in 0..<levels { objects.append([0xA0 | UInt8(fan)] + Array(repeating: UInt8(3 + level), count: fan)) }
        objects.append([0x51, UInt8(ascii: "x")])
        return BinaryPlistFixture.bplist(objects)
    }

    private let prlimit = "/usr/bin/prlimit"
    /// 512 MB of address space: the Swift runtime and Foundation need ~200 MB mapped; the bomb needed 4.3 GB.
    private var limited: [String] { [prlimit, "--as=\(512 << 20)", "--"] }

    private func importFile(_ bytes: [UInt8], in ws: Workspace) throws -> RunResult {
        // Skips only without util-linux's prlimit (Debian ships it, so CI runs this).
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: prlimit), "needs prlimit (util-linux)")
        let file = ws.root + "/export.plist"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
        return SXK.run(["import-defaults", file], in: ws, baseURL: nil, timeout: 20, wrapper: limited)
    }

    func testSharedArrayBombIsOneClearErrorUnderAMemoryLimit() throws {
        let ws = Workspace()
        let bomb = Self.sharedArrayPlist(levels: 12, fan: 6)
        XCTAssertLessThan(bomb.count, 200, "the bomb is a tiny file")
        let r = try importFile(bomb, in: ws)
        XCTAssertFalse(r.timedOut, r.summary)
        XCTAssertFalse(r.uncaughtSignal, r.summary)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.stderrLines.count, 1, r.summary)
        XCTAssertTrue(r.stderr.hasPrefix("error: cannot import \(ws.root)/export.plist: "), r.summary)
        XCTAssertTrue(r.stderr.contains("more than 200000 values"), r.summary)
        XCTAssertEqual(r.stdout, "")
    }

    /// Sharing within the limits is ordinary binary plist and still imports (6³ values).
    func testSmallSharedArraysStillImport() throws {
        let ws = Workspace()
        let r = try importFile(Self.sharedArrayPlist(levels: 3, fan: 6), in: ws)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("(binary plist)"), r.summary)
    }

    /// An array that holds itself: refused as malformed, without a loop.
    func testSelfReferenceIsRefused() throws {
        let ws = Workspace()
        var bytes = Self.sharedArrayPlist(levels: 2, fan: 2)
        // Object 3 (the second level) points back at object 2 (the first).
        let table = bytes.count - 32 - 5  // five objects, one offset byte each
        let second = Int(bytes[table + 3])
        bytes[second + 1] = 2
        let r = try importFile(bytes, in: ws)
        XCTAssertFalse(r.timedOut, r.summary)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertTrue(r.stderr.contains("not a valid binary plist (an object contains itself)"), r.summary)
    }
}
