import Foundation
import XCTest
@testable import SXKSession
@testable import SXKCore

/// `OutputFile`: where sxk writes a file the user named, only a regular file or a new name is used.
final class OutputFileTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "sxk-out-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func kind(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    func testANewNameIsCreatedPrivateAndARegularFileWrittenInPlace() throws {
        let path = dir + "/new.har"
        try OutputFile.write(Array("one\n".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "one\n")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o600)
        try OutputFile.write(Array("2\n".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "2\n", "truncated, not appended")
        // A link to a regular file is written through; the link stays a link.
        let link = dir + "/link.har"
        XCTAssertEqual(symlink(path, link), 0)
        try OutputFile.write(Array("three\n".utf8), to: link)
        XCTAssertEqual(kind(link), S_IFLNK)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "three\n")
        XCTAssertNil(OutputFile.refusal("-"))
        // `append` adds at the end (a `>> FILE` redirection), through the same checks.
        let more = try OutputFile.open(path, append: true)
        try more.write(Array("four\n".utf8))
        try more.close()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "three\nfour\n")
        XCTAssertThrowsError(try OutputFile.open(dir, append: true))
    }

    func testSpecialFilesAreRefusedAndLeftAsTheyAre() throws {
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let socketPath = dir + "/sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in socketPath.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        let linkToFIFO = dir + "/to-fifo", linkToDevice = dir + "/to-full", dangling = dir + "/dangling"
        XCTAssertEqual(symlink(fifo, linkToFIFO), 0)
        XCTAssertEqual(symlink("/dev/full", linkToDevice), 0)
        XCTAssertEqual(symlink(dir + "/nowhere", dangling), 0)
        let cases: [(String, String, mode_t)] = [
            (fifo, "it is a FIFO", S_IFIFO), (socketPath, "it is a socket", S_IFSOCK), (dir, "it is a directory", S_IFDIR),
            ("/dev/full", "it is a device", S_IFCHR), ("/dev/zero", "it is a device", S_IFCHR), (linkToFIFO, "it is a FIFO", S_IFLNK), (linkToDevice, "it is a device", S_IFLNK),
            (dangling, "it is a symbolic link to a missing file", S_IFLNK),
        ]
        for (path, reason, before) in cases {
            let started = Date()
            XCTAssertThrowsError(try OutputFile.write(Array("x".utf8), to: path), path) { error in
                let e = error as? OutputFileError
                XCTAssertEqual(e?.path, path)
                XCTAssertEqual(e?.reason, reason, path)
                XCTAssertTrue(e?.description.hasPrefix("refusing to write \(path): ") == true)
            }
            XCTAssertNotNil(OutputFile.refusal(path), path)
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, "\(path): no wait for a reader")
            XCTAssertEqual(kind(path), before, "\(path) left as it was")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/nowhere"), "nothing created through a dangling link")
    }

    /// `/dev/null` (or a link to it) is the one device taken: output thrown away, as `> /dev/null`
    /// does in sh; it stays the device it was.
    func testTheNullDeviceTakesOutputAndStaysADevice() throws {
        let link = dir + "/to-null"
        XCTAssertEqual(symlink("/dev/null", link), 0)
        for path in ["/dev/null", link] {
            XCTAssertNil(OutputFile.refusal(path), path)
            XCTAssertNil(OutputFile.laterWriteRefusal(path), path)
            try OutputFile.write(Array("x".utf8), to: path)
            let appended = try OutputFile.open(path, append: true)
            try appended.write(Array("y".utf8))
            try appended.close()
        }
        XCTAssertEqual(kind("/dev/null"), S_IFCHR)
        XCTAssertEqual(kind(link), S_IFLNK)
    }
}
