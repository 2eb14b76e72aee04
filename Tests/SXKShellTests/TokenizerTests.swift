import XCTest
@testable import SXKShell

final class TokenizerTests: XCTestCase {
    func testTable() throws {
        let cases: [(String, [[String]])] = [
            ("orders --all", [["orders", "--all"]]),
            ("  a   b  ", [["a", "b"]]),
            ("a 'b c' \"d e\"", [["a", "b c", "d e"]]),
            ("a 'it''s'", [["a", "its"]]),
            (#"a "say \"hi\"" b\ c"#, [["a", #"say "hi""#, "b c"]]),
            (#"a 'no \escape'"#, [["a", #"no \escape"#]]),
            ("a; b c ;; d", [["a"], ["b", "c"], ["d"]]),
            ("a\nb", [["a"], ["b"]]),
            ("a # comment ; b", [["a"]]),
            ("# whole line\nb", [["b"]]),
            ("a#b c", [["a#b", "c"]]),
            ("a ';' b", [["a", ";", "b"]]),
            ("scenic 西湖景区", [["scenic", "西湖景区"]]),
            ("post /x '{\"a\": 1}'", [["post", "/x", "{\"a\": 1}"]]),
            ("a ''", [["a", ""]]),
            ("a \\\n  b", [["a", "b"]]),     // a continued line starts no empty word
            ("a\\\nb c", [["ab", "c"]]),
        ]
        for (line, expected) in cases {
            XCTAssertEqual(try Tokenizer.split(line), expected, line)
        }
    }

    func testUnterminatedQuoteIsUsageError() {
        XCTAssertThrowsError(try Tokenizer.split("a 'b")) { XCTAssertTrue("\($0)".contains("unterminated single quote")) }
        XCTAssertThrowsError(try Tokenizer.split("a \"b")) { XCTAssertTrue($0 is UsageError) }
        XCTAssertThrowsError(try Tokenizer.split("a \\")) { XCTAssertTrue($0 is UsageError) }
    }

    func testPositionsAndLenientOpenQuote() throws {
        let tokens = try Tokenizer.tokenize("ab '西 湖", lenient: true)[0]
        XCTAssertEqual(tokens.map(\.text), ["ab", "西 湖"])
        XCTAssertEqual(tokens[1].start, 3)
        XCTAssertEqual(tokens[1].end, "ab '西 湖".utf8.count)
        XCTAssertEqual(tokens[1].openQuote, "'")
    }

    func testQuoteRoundTrips() throws {
        // A combining mark after a quote or a hash makes one Character of the two, but not one byte.
        for word in ["plain", "with space", "it's", "a\"b", "西湖 景区", "", "#x", "a;b",
                     "'\u{0301}", "a'\u{0301}b", "#\u{0301}x", "tese''\u{0301}t"] {
            XCTAssertEqual(try Tokenizer.split("x " + Tokenizer.quote(word)), [["x", word]], word)
        }
        XCTAssertEqual(Tokenizer.quote("西湖景区"), "西湖景区")
    }

    /// Unquoted `|`, `>` and `>>` are operators; the shell command after `|` runs to the next
    /// `;` or newline outside sh's quotes and is kept as typed; quoted, they are text.
    func testPipeAndRedirectOperators() throws {
        func shape(_ line: String) throws -> [[String]] {
            try Tokenizer.tokenize(line, lenient: false).map { command in
                command.map { token in
                    switch token.output {
                    case .pipe?: return "PIPE(" + token.text + ")"
                    case .file(let append)?: return append ? "APPEND" : "WRITE"
                    case nil: return token.text
                    }
                }
            }
        }
        let cases: [(String, [[String]])] = [
            ("orders --ndjson | jq .orderNo", [["orders", "--ndjson", "PIPE(jq .orderNo)"]]),
            ("a|b", [["a", "PIPE(b)"]]),
            ("a | jq '.x; .y' | head -2; b", [["a", "PIPE(jq '.x; .y' | head -2)"], ["b"]]),
            ("a | sed \"s/;/x/\" a\\;b\nc", [["a", "PIPE(sed \"s/;/x/\" a\\;b)"], ["c"]]),
            ("a > out.txt", [["a", "WRITE", "out.txt"]]),
            ("a>>'my file'", [["a", "APPEND", "my file"]]),
            ("a '|' \"> x\" \\>", [["a", "|", "> x", ">"]]),
        ]
        for (line, expected) in cases {
            XCTAssertEqual(try shape(line), expected, line)
        }
        XCTAssertThrowsError(try Tokenizer.tokenize("a |", lenient: false))
        XCTAssertThrowsError(try Tokenizer.tokenize("a | ;b", lenient: false))
        XCTAssertThrowsError(try Tokenizer.tokenize("a | jq 'x", lenient: false))
        // Completion reads a line being typed: there the operators stay words.
        XCTAssertEqual(try Tokenizer.tokenize("a | b", lenient: true).map { $0.map(\.text) }, [["a", "|", "b"]])
    }
}
