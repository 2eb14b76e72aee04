import XCTest
@testable import SXKShell

/// The one joining rule for continued lines (REPL, piped input, sxkrc).
final class LineJoinerTests: XCTestCase {
    func join(_ lines: [String]) -> (commands: [String], pending: String?) {
        var joiner = LineJoiner()
        var out: [String] = []
        for line in lines { if let whole = joiner.add(line) { out.append(whole) } }
        return (out, joiner.finish())
    }

    func testTable() {
        let cases: [([String], [String], String?)] = [
            (["get /a \\", "--json"], ["get /a --json"], nil),
            (["post /x '{\"a\":", "1}'"], ["post /x '{\"a\":\n1}'"], nil),
            (["a \"one", "two\" b"], ["a \"one\ntwo\" b"], nil),
            (["a 'x\\", "y'"], ["a 'xy'"], nil),                 // a trailing backslash joins inside quotes too
            (["a \"x\\\\", "y\""], ["a \"x\\\\\ny\""], nil),     // an escaped backslash does not
            (["end \\\\", "next"], ["end \\\\", "next"], nil),   // even count: no continuation
            (["# it's \\", "b"], ["# it's \\", "b"], nil),       // nothing continues a comment
            (["a #'b"], ["a #'b"], nil),                         // a quote in a comment opens nothing
            (["a#'b", "c'"], ["a#'b\nc'"], nil),                // `#` inside a word is no comment
            (["a \\", "b \\", "c"], ["a b c"], nil),
            (["a '", "", "'"], ["a '\n\n'"], nil),
            (["a 'open", "still"], [], "a 'open\nstill"),
            (["a \\"], [], "a "),
        ]
        for (lines, commands, pending) in cases {
            let got = join(lines)
            XCTAssertEqual(got.commands, commands, "\(lines)")
            XCTAssertEqual(got.pending, pending, "\(lines)")
        }
    }

    func testWholeTextJoinsByTheSameRule() throws {
        let text = "a 'x\\\r\ny' \\\n  b\r\nc \"d\ne\"\n# z \\\nf"
        let lines = StartupFile.split(text)
        XCTAssertEqual(lines.map(\.text), ["a 'xy'   b", "c \"d\ne\"", "# z \\", "f"])
        XCTAssertEqual(lines.map(\.number), [1, 4, 6, 7])
        XCTAssertEqual(try lines.flatMap { try Tokenizer.split($0.text) }, [["a", "xy", "b"], ["c", "d\ne"], ["f"]])
    }

    func testContinuationKindAndPrompt() {
        var joiner = LineJoiner()
        XCTAssertNil(joiner.add("a \"b"))
        XCTAssertEqual(joiner.continuation, .quote("\""))
        XCTAssertEqual(joiner.continuation?.prompt.plain, "\"… › ")
        XCTAssertNil(joiner.add("c\" \\"))
        XCTAssertEqual(joiner.continuation, .backslash)
        XCTAssertEqual(joiner.continuation?.prompt.plain, "… › ")
        joiner.reset()
        XCTAssertFalse(joiner.isPending)
        XCTAssertEqual(joiner.add("x"), "x")
    }

    /// The joiner scans with the tokenizer's rules: a single line waits for more exactly when the
    /// tokenizer would call it unfinished (an open quote or a trailing escape). Seeded, deterministic.
    func testAgreesWithTheTokenizerOnOneLine() {
        let alphabet: [String] = ["a", " ", "'", "\"", "\\", "#", ";", "$", "x", "西", "\t"]
        var seed: UInt64 = 0x5EED_1234
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            let line = (0..<next(14)).map { _ in alphabet[next(alphabet.count)] }.joined()
            var joiner = LineJoiner()
            let waits = joiner.add(line) == nil
            var unfinished = false
            do { _ = try Tokenizer.split(line) } catch {
                let text = "\(error)"
                unfinished = text.contains("unterminated single quote") || text.contains("unterminated double quote")
                    || text.contains("unfinished escape")
            }
            XCTAssertEqual(waits, unfinished, line.debugDescription)
            if waits != unfinished { return }
        }
    }
}
