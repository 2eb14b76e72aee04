import Foundation
import XCTest
import SXKCore

/// `DirectoryEntry.name` reads each `readdir` record's name up to its NUL, from the shortest name to
/// the longest a file system allows, and `Descriptors.openDescriptors` sees a descriptor just opened.
final class DirectoryEntryTests: XCTestCase {
    func testNamesOfEveryLengthAreReadWhole() throws {
        let dir = NSTemporaryDirectory() + "sxk-dirent-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names = ["a", "西湖", String(repeating: "b", count: 100), String(repeating: "c", count: 255)]
        for name in names { XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/" + name, contents: nil), name) }
        let handle = try XCTUnwrap(opendir(dir))
        defer { closedir(handle) }
        var seen: [String] = []
        while let entry = readdir(handle) { seen.append(String(decoding: DirectoryEntry.name(entry), as: UTF8.self)) }
        XCTAssertEqual(Set(seen), Set(names + [".", ".."]))
    }

    func testOpenDescriptorsSeesADescriptorJustOpened() throws {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertTrue(Descriptors.openDescriptors().contains(fd))
        XCTAssertTrue(Descriptors.openDescriptors().contains(2))
    }
}
