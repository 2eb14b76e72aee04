import Foundation
import XCTest
import SXKCore

/// `FileBytes.readAll` reads a file whole whatever size `fstat` gave (a file that grew since, or a
/// size of 0 from a pipe), stops past its limit, and reports a failing `read`.
final class FileBytesTests: XCTestCase {
    private func withFile(_ bytes: [UInt8], _ body: (Int32) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "sxk-filebytes-" + UUID().uuidString
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { unlink(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        try body(fd)
    }

    func testReadsTheWholeFileWhateverSizeWasGiven() throws {
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for hint in [bytes.count, 0, 10, bytes.count * 3] {
            try withFile(bytes) { fd in XCTAssertEqual(FileBytes.readAll(fd, sizeHint: hint, limit: 1 << 20), .bytes(bytes), "hint \(hint)") }
        }
        try withFile([]) { fd in XCTAssertEqual(FileBytes.readAll(fd, sizeHint: 0, limit: 10), .bytes([])) }
        try withFile([1, 2, 3]) { fd in XCTAssertEqual(FileBytes.readAll(fd, sizeHint: 3, limit: 3), .bytes([1, 2, 3]), "exactly the limit") }
    }

    func testStopsPastTheLimit() throws {
        let bytes = [UInt8](repeating: 7, count: 5_000)
        for hint in [0, 4_096, 5_000] {
            try withFile(bytes) { fd in
                guard case .tooLarge(let read) = FileBytes.readAll(fd, sizeHint: hint, limit: 4_096) else { return XCTFail("hint \(hint)") }
                XCTAssertGreaterThan(read, 4_096)
                XCTAssertLessThanOrEqual(read, 4_097, "reads no more than one byte past the limit")
            }
        }
    }

    func testReportsAFailingRead() throws {
        let path = NSTemporaryDirectory() + "sxk-filebytes-dir-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        defer { rmdir(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(FileBytes.readAll(fd, sizeHint: 0, limit: 100), .failed(EISDIR))
    }
}
