import Foundation
import XCTest
@testable import SXKShell

/// The startup file is read only when it is safely the user's own, and never blocks.
final class StartupFileTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "sxk-rcfile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func write(_ text: String, mode: mode_t) throws -> String {
        let path = dir + "/sxkrc"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(path, mode), 0)
        return path
    }

    func testLinesWithContinuationsAndNumbers() throws {
        let path = try write("alias a='orders \\\n  --json'\n\n# note\r\nwhoami\nend \\\\\n", mode: 0o600)
        XCTAssertEqual(StartupFile.load(path), .lines([
            .init(number: 1, text: "alias a='orders   --json'"), .init(number: 4, text: "# note"),
            .init(number: 5, text: "whoami"), .init(number: 6, text: "end \\\\"),
        ]))
        // A byte-order mark first (an editor's) is not part of the first command.
        XCTAssertEqual(StartupFile.split("\u{FEFF}version\r\nwhoami\n").map(\.text), ["version", "whoami"])
    }

    func testMissingAndUnsafeFiles() throws {
        XCTAssertEqual(StartupFile.load(dir + "/none"), .missing)
        XCTAssertEqual(StartupFile.load(dir + "/none/sxkrc"), .missing)
        for mode: mode_t in [0o620, 0o602, 0o666] {
            let path = try write("whoami\n", mode: mode)
            guard case .refused(let why) = StartupFile.load(path) else { return XCTFail("mode \(String(mode, radix: 8)) was not refused") }
            XCTAssertTrue(why.contains("others can write it"), why)
        }
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let started = Date()
        XCTAssertEqual(StartupFile.load(fifo), .refused("it is not a regular file"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "opening a FIFO must not block")
        XCTAssertEqual(StartupFile.load(dir), .refused("it is not a regular file"))
        // A symlink to the user's own safe file (a dotfiles checkout) is fine.
        let real = try write("whoami\n", mode: 0o644)
        let link = dir + "/link"
        XCTAssertEqual(symlink(real, link), 0)
        XCTAssertEqual(StartupFile.load(link), .lines([.init(number: 1, text: "whoami")]))
    }

    /// Any folder above the file (up to /) that someone else could write makes the file refused:
    /// they could replace the file or a folder on its path. /tmp-like folders (sticky bit) are fine.
    func testFolderAboveWritableByOthersIsRefused() throws {
        let nested = dir + "/a/b"
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true)
        let path = nested + "/sxkrc"
        try "whoami\n".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(path, 0o600), 0)
        XCTAssertEqual(StartupFile.load(path), .lines([.init(number: 1, text: "whoami")]))
        for mode: mode_t in [0o777, 0o775, 0o757] {
            XCTAssertEqual(chmod(dir + "/a", mode), 0)
            guard case .refused(let why) = StartupFile.load(path) else { return XCTFail("mode \(String(mode, radix: 8)) was not refused") }
            XCTAssertTrue(why.contains("others can write the folder \(dir!)/a "), why)
        }
        XCTAssertEqual(chmod(dir + "/a", 0o1777), 0)
        XCTAssertEqual(StartupFile.load(path), .lines([.init(number: 1, text: "whoami")]), "a sticky folder is fine")
        XCTAssertEqual(chmod(dir + "/a", 0o755), 0)
        // Through a symlink, the folders of the real file are the ones checked.
        let link = dir + "/link"
        XCTAssertEqual(symlink(path, link), 0)
        XCTAssertEqual(chmod(nested, 0o777), 0)
        guard case .refused(let why) = StartupFile.load(link) else { return XCTFail("a link into a writable folder was run") }
        XCTAssertTrue(why.contains(nested), why)
    }

    /// A folder above owned by another user (not root) is refused; the owner is compared with the
    /// effective uid. Making one needs chown, so this runs as root (CI and the dev machines do).
    func testFolderAboveOwnedByAnotherUserIsRefused() throws {
        // Skips only for an unprivileged developer: chown to another uid needs root (CI runs as root).
        guard geteuid() == 0 else { throw XCTSkip("needs root to chown a folder to another uid") }
        let nested = dir + "/a/b"
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true)
        let path = nested + "/sxkrc"
        try "whoami\n".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(path, 0o600), 0)
        XCTAssertEqual(chown(dir + "/a", 65534, 65534), 0)
        guard case .refused(let why) = StartupFile.load(path) else { return XCTFail("a folder owned by uid 65534 was trusted") }
        XCTAssertEqual(why, "the folder \(dir!)/a is owned by uid 65534, not by you (uid 0) or root")
    }
}
