import Foundation
import SXKSandbox
import XCTest

/// `history` against a hostile backend: each line's stored context holds the scenic name the server
/// sent (with OSC 52, CSI, C1, bidi and zero-width characters in it); the listing shows it escaped,
/// in the shell and in a one-shot run reading the saved file.
final class HostileHistoryPTYTests: SandboxPTYTestCase {
    private static func rawEscapes(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.contains("\u{1B}]52") || text.contains("\u{9B}") || text.contains("\u{202E}") || text.contains("\u{200B}")
            || text.contains("\u{2028}") || text.contains("\u{FEFF}")
    }

    func testHistoryShowsTheStoredContextEscaped() throws {
        server.setHostile(true)
        try logIn("13800000001")
        let s = try start()
        s.send("whoami\r")
        try s.expect("state folder")
        try s.expect("›")
        let before = s.raw.count
        s.send("history\r")
        try s.expect("whoami")
        try s.expect("›")
        let listing = Array(s.raw[before...])
        let text = String(decoding: listing, as: UTF8.self)
        XCTAssertTrue(text.contains("\\x1b]52;c;aGk="), "the payload shown escaped: \(text.debugDescription)")
        XCTAssertFalse(Self.rawEscapes(listing), text.debugDescription)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)

        // The saved file, listed by a one-shot run into a pipe.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: InteractiveShellTests.binary)
        process.arguments = globalArguments + ["history"]
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let oneShot = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(oneShot.contains("whoami"), oneShot)
        XCTAssertTrue(oneShot.contains("\\x1b]52;c;aGk="), oneShot.debugDescription)
        XCTAssertFalse(Self.rawEscapes(Array(data)), oneShot.debugDescription)
    }
}
