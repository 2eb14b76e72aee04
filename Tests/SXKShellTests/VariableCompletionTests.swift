import XCTest
@testable import SXKShell

/// Tab after `$`, alias names as commands, alias flags, and the command inside `let`.
final class VariableCompletionTests: XCTestCase {
    struct Session: CompletionValueProvider {
        func completions(for provider: String, prefix: String) -> [CompletionCandidate] {
            let values: [(String, String)]
            switch provider {
            case "variable": values = [("id", "7001"), ("idx", "2"), ("no", "\"SX1\""), ("_", "{…}")]
            case "alias": values = [("so", "alias for orders --role storeAdmin"), ("sc", "alias for scenic")]
            default: return Fixtures.Scenics().completions(for: provider, prefix: prefix)
            }
            return values.filter { $0.0.hasPrefix(prefix) }.map { CompletionCandidate($0.0, description: $0.1) }
        }
        func aliasWords(_ name: String) -> [String]? {
            switch name {
            case "so": return ["orders", "--role", "storeAdmin"]
            case "sc": return ["scenic"]
            default: return nil
            }
        }
    }

    let engine = CompletionEngine(specs: Builtins.merged(with: Fixtures.specs))

    func complete(_ line: String) -> CompletionResult {
        engine.complete(line: line, cursor: line.utf8.count, provider: Session())
    }

    func testDollarTabCompletesVariableNames() {
        let r = complete("get /x id=$i")
        XCTAssertEqual(r.candidates.map(\.value), ["id", "idx"])
        XCTAssertEqual(r.candidates.first?.description, "7001")
        XCTAssertEqual(r.replaceStart, "get /x id=$".utf8.count)
        XCTAssertEqual(r.prefix, "i")
        XCTAssertEqual(r.insertion(for: "id", final: true), "id ", "a name goes in unquoted")
        XCTAssertEqual(complete("get $").candidates.map(\.value), ["id", "idx", "no", "_"])
        XCTAssertEqual(complete("get \"q=$n").candidates.map(\.value), ["no"])
        XCTAssertEqual(complete("get \"q=$n").insertion(for: "no", final: true), "no", "inside double quotes nothing is closed")
        let braced = complete("get ${n")
        XCTAssertEqual(braced.candidates.map(\.value), ["no}"])
        XCTAssertEqual(braced.replaceStart, "get ${".utf8.count)
        // Not a reference: single quotes, an escaped dollar.
        XCTAssertEqual(complete("get '$i").candidates, [])
        XCTAssertEqual(complete("get \\$i").candidates, [])
    }

    func testAliasesCompleteAsCommandsAndAsWhatTheyStandFor() {
        XCTAssertEqual(complete("s").candidates.map(\.value), ["stats", "scenic", "set", "so", "sc"])
        XCTAssertEqual(complete("so --a").candidates.map(\.value), ["--all"])
        XCTAssertEqual(complete("sc 西").candidates.map(\.value), ["1", "西湖 北线"])
        XCTAssertEqual(complete("unalias ").candidates.map(\.value), ["so", "sc"])
        XCTAssertEqual(complete("unset ").candidates.map(\.value), ["id", "idx", "no", "_"])
    }

    func testLetCompletesTheCommandAfterEquals() {
        XCTAssertEqual(complete("let ").candidates.map(\.value), ["id", "idx", "no"])
        XCTAssertEqual(complete("let id ").candidates.map(\.value), ["="])
        XCTAssertEqual(complete("let id = ord").candidates.map(\.value), ["orders"])
        XCTAssertEqual(complete("let id = orders --ro").candidates.map(\.value), ["--role"])
        XCTAssertEqual(complete("let id = so --a").candidates.map(\.value), ["--all"])
    }
}
