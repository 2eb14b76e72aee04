import Foundation
import SXKTestSupport
import XCTest

/// The README's "A short tour" block, read from README.md and typed into `sxk --sandbox` in a pty as a
/// new operator would: every prompt the block shows must appear before its command, every other line
/// of the block must show up (`…` stands for any text, the sandbox's port may differ), and no command
/// may end in an `error:` line. The README and the product cannot drift apart.
final class ReadmeTourPTYTests: XCTestCase {
    enum Step: Equatable {
        /// A prompt (`sxk sandbox … › `) and the command typed at it, comment removed.
        case command(prompt: String, text: String)
        /// `password:` — the tour's password is the sandbox's.
        case password
        /// `choose 1-3: 3` — the question and the answer typed.
        case answer(question: String, text: String)
        /// A line the shell prints.
        case output(String)
    }

    static var readme: URL {
        RepositoryRoot.file("README.md")
    }

    /// The first ```text block after the "A short tour" heading, as steps.
    static func tour() throws -> [Step] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let heading = text.range(of: "## A short tour"),
              let open = text.range(of: "```text\n", range: heading.upperBound..<text.endIndex),
              let close = text.range(of: "\n```", range: open.upperBound..<text.endIndex) else {
            throw XCTSkip("README.md has no tour block") as Error
        }
        var steps: [Step] = []
        for raw in text[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("$ ") { continue }  // `$ make run`: the shell the test starts
            if line.hasPrefix("sxk "), let mark = line.range(of: " › ") {
                var command = String(line[mark.upperBound...])
                // A comment is set off by two spaces or more, as the block aligns them.
                if let comment = command.range(of: #"\s{2,}#.*$"#, options: .regularExpression) { command.removeSubrange(comment) }
                steps.append(.command(prompt: String(line[..<mark.upperBound]), text: command.trimmingCharacters(in: .whitespaces)))
            } else if line == "password:" {
                steps.append(.password)
            } else if line.hasPrefix("choose "), let colon = line.range(of: ": ") {
                steps.append(.answer(question: String(line[..<colon.upperBound]), text: String(line[colon.upperBound...])))
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                steps.append(.output(line))
            }
        }
        return steps
    }

    func testTheTourBlockParses() throws {
        let steps = try Self.tour()
        XCTAssertTrue(steps.contains(.password), "\(steps)")
        XCTAssertGreaterThanOrEqual(steps.filter { if case .command = $0 { return true } else { return false } }.count, 8, "\(steps)")
        guard case .command(let prompt, let text)? = steps.first(where: { if case .command = $0 { return true } else { return false } }) else {
            return XCTFail("no command in \(steps)")
        }
        XCTAssertEqual(prompt, "sxk sandbox (logged out) › ")
        XCTAssertTrue(text.hasPrefix("login "), text)
    }

    func testTheReadmeTourRunsAsWritten() throws {
        let steps = try Self.tour()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sxk-tour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "HOME": home.path, "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
            "TERM": "xterm", "LANG": "C.UTF-8", "SXK_PAGER": "cat",
        ]
        let s = try PTYSession(executable: InteractiveShellTests.binary, arguments: ["--sandbox"], environment: environment,
                               rows: 50, columns: 100)
        var pending: [String] = []
        var last = "start"
        /// The lines the block shows since the last sync point must be in `seen`, and no error.
        func check(_ seen: String) {
            let screen = seen.replacingOccurrences(of: #"127\.0\.0\.1:\d+"#, with: "127.0.0.1:PORT", options: .regularExpression)
            for line in pending {
                var from = screen.startIndex
                let wanted = line.replacingOccurrences(of: #"127\.0\.0\.1:\d+"#, with: "127.0.0.1:PORT", options: .regularExpression)
                for fragment in wanted.components(separatedBy: "…") where !fragment.isEmpty {
                    guard let found = screen.range(of: fragment, range: from..<screen.endIndex) else {
                        return XCTFail("after '\(last)' the README shows '\(line)', not on the screen:\n\(seen)")
                    }
                    from = found.upperBound
                }
            }
            pending = []
            XCTAssertFalse(seen.contains("error:"), "'\(last)' failed:\n\(seen)")
        }
        for step in steps {
            switch step {
            case .command(let prompt, let text):
                check(try s.expect(prompt, timeout: 30))
                try s.waitForEditor()
                s.send(text + "\r")
                last = text
            case .password:
                check(try s.expect("password:", timeout: 30))
                s.send("sandbox123\r")
            case .answer(let question, let text):
                check(try s.expect(question, timeout: 30))
                s.send(text + "\r")
            case .output(let line):
                pending.append(line)
            }
        }
        check(try s.expect(" › ", timeout: 30))
        s.send("exit\r")
        XCTAssertEqual(try s.waitForExit(), 0)
    }
}
