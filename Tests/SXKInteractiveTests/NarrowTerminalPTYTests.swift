import Foundation
import SXKShell
import XCTest

/// Tables in a narrow terminal, fitted by what their columns declare.
final class NarrowTerminalPTYTests: SandboxPTYTestCase {
    /// `context diff` at 80 columns: the stored value and the server's are given the same room (a
    /// phone shows whole on both sides), and the same/DIFFERS column has a header. A difference the
    /// table would cut prints the rows as records instead, both sides whole.
    func testContextDiffSharesTheWidthAndShowsADifferenceWhole() throws {
        try logIn("13800000002")
        let s = try start(columns: 80)
        s.send("context diff\r")
        let shown = try s.expect("at the app's next start", timeout: 30)
        let lines = shown.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.first { $0.contains("SERVER NOW") }, shown)
        XCTAssertTrue(header.hasSuffix("MATCH"), header)
        let storedAt = try XCTUnwrap(header.range(of: "STORED")), serverAt = try XCTUnwrap(header.range(of: "SERVER NOW")),
            matchAt = try XCTUnwrap(header.range(of: "MATCH"))
        let storedWidth = header.distance(from: storedAt.lowerBound, to: serverAt.lowerBound)
        let serverWidth = header.distance(from: serverAt.lowerBound, to: matchAt.lowerBound)
        XCTAssertLessThanOrEqual(abs(storedWidth - serverWidth), 1, header)
        let phone = try XCTUnwrap(lines.first { $0.hasPrefix("key_in_phone ") }, shown)
        XCTAssertEqual(phone.components(separatedBy: "13800000002").count, 3, "both sides whole: \(phone)")
        try s.expect("›")

        // The server's role list changes: its long difference would be cut in the table.
        server.setRoles([(roleCode: "scenicAdmin", scenicIds: [2])], userId: 2001)
        defer { server.setRoles(nil, userId: 2001) }
        s.send("context diff\r")
        let records = try s.expect("at the app's next start", timeout: 30)
        XCTAssertTrue(records.contains("-[ RECORD 1 ]"), records)
        let table = records.components(separatedBy: "at the app's next start")[0]
        let differing = table.components(separatedBy: "-[ RECORD").filter { $0.contains("DIFFERS") }
        XCTAssertFalse(differing.isEmpty, records)
        for record in differing { XCTAssertFalse(record.contains("…"), "a side was cut: \(record)") }
        try s.expect("›")
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// A prompt that would not fit on one row with room to type drops the backend before a named
    /// profile (and shortens its markers), so it stays on one row of a 56-column window.
    func testALongPromptShortensToLeaveRoomToType() throws {
        try logIn("13800000003", profile: "customer-export")
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: globalArguments + ["--profile", "customer-export"],
                               environment: environment, rows: 20, columns: 56)
        let shown = try s.expect("›")
        let prompt = String(shown.split(separator: "\n").last ?? "")
        XCTAssertTrue(prompt.contains("sxk :customer-export "), prompt)
        XCTAssertFalse(prompt.contains("custom:"), prompt)
        XCTAssertLessThan(TextWidth.width(prompt), 56, prompt)
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }

    /// `accounts` at 60 columns: the role is a code and stays whole; the account's name is cut instead.
    func testAccountsKeepsTheRoleWholeAndCutsTheName() throws {
        try logIn("13800000004", extra: ["--account", "1"])
        let s = try start(columns: 60)
        s.send("accounts\r")
        let shown = try s.expect("门店", timeout: 30) + (try s.expect("›"))
        let rows = shown.split(separator: "\n").map(String.init).filter { $0.contains("400") }
        XCTAssertEqual(rows.count, 3, shown)
        for (row, role) in zip(rows, ["photographer", "scenicAdmin", "storeAdmin"]) {
            XCTAssertTrue(row.contains(" \(role) "), "\(role) cut: \(row)")
        }
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
        // Narrower still: the role is kept before the account's name and the type.
        let narrow = try start(columns: 34)
        narrow.send("accounts\r")
        let table = try narrow.expect("›", timeout: 30)
        XCTAssertTrue(table.contains("ROLE") && table.contains("scenicAdmin"), table)
        narrow.send("exit\r")
        XCTAssertEqual(try narrow.waitForExit(), 0)
    }
}
