import Foundation
import XCTest

/// A child sxk starts (the pager) holds stdin, stdout and stderr only: no kept-alive connection to
/// the backend, no socket pair or pipe of libcurl's or sxk's own.
final class ChildDescriptorsPTYTests: SandboxPTYTestCase {
    func testThePagerInheritsOnlyTheStandardDescriptors() throws {
        try logIn("13800000001")
        var env = environment
        // The pager lists its own descriptors instead of paging (fd 3 is ls's listing of the folder).
        env["SXK_PAGER"] = "ls -l /proc/self/fd"
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments, environment: env)
        try s.expect("›")
        try s.waitForEditor()
        // Connections to the backend are open and kept alive after these.
        s.send("get /api/yf-handset-app/userinfo\r")
        try s.expect("userId")
        try s.expect("›")
        s.send("orders\r")
        try s.expect("›")
        let before = s.raw.count
        s.send("help\r")
        try s.expect("total")
        try s.expect("›")
        let listing = PTYSession.strip(Array(s.raw[before...]))
        let entries = listing.split(separator: "\n").compactMap { line -> (Int, String)? in
            guard let arrow = line.range(of: " -> ") else { return nil }
            let fd = line[..<arrow.lowerBound].split(separator: " ").last.flatMap { Int($0) }
            return fd.map { ($0, String(line[arrow.upperBound...]).trimmingCharacters(in: .whitespaces)) }
        }
        XCTAssertEqual(entries.filter { $0.0 < 3 }.count, 3, listing)
        let extra = entries.filter { $0.0 >= 3 && !$0.1.hasPrefix("/proc/") }
        XCTAssertEqual(extra.map { "\($0.0) -> \($0.1)" }, [], listing)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }
}
