import Foundation
import XCTest
@testable import SXKApp
import SXKTestSupport

/// A command's tests are named after it: `Commands.<Name>` in `Sources/SXKApp/Commands/<Group>/<Name>.swift`
/// has its tests in `Tests/SXKAppTests/Commands/<Group>/<Name>Tests.swift`. Read from the registry and the
/// two folders, so a command added without its test file fails here.
final class CommandTestFilesTests: XCTestCase {
    /// Commands whose tests were written before the rule, in a file that tests several of them together;
    /// each names that file (under `Tests/`), which must run the command. A command that gets a file of its
    /// own leaves this list (a stale entry fails).
    static let testedTogether: [String: String] = [
        "Config": "SXKAppTests/Safety/NetworkFaultTests.swift",
        "Get": "SXKAppTests/Commands/API/RawRequestTests.swift",
        "Post": "SXKAppTests/Commands/API/RawRequestTests.swift",
        "Accounts": "SXKAppTests/Commands/Session/LoginTests.swift",
        "SwitchAccount": "SXKAppTests/Commands/Session/LoginTests.swift",
        "Logout": "SXKAppTests/Commands/Session/LoginTests.swift",
        "Whoami": "SXKAppTests/Commands/Session/LoginTests.swift",
        "Keys": "SXKAppTests/Commands/Session/LoginTests.swift",
        "Role": "SXKAppTests/Commands/Scope/ScopeOrdersAndCLITests.swift",
        "Scenic": "SXKAppTests/Commands/Scope/ScopeOrdersAndCLITests.swift",
        "Store": "SXKAppTests/Commands/Scope/ScopeOrdersAndCLITests.swift",
        "Permissions": "SXKAppTests/Commands/Session/DeviceSnapshotTests.swift",
        "Menus": "SXKAppTests/Commands/Session/DeviceSnapshotTests.swift",
        "Home": "SXKAppTests/Commands/Session/ContextTests.swift",
        "Location": "SXKAppTests/Operator/PapercutTests.swift",
        "Orders": "SXKAppTests/Commands/Scope/ScopeOrdersAndCLITests.swift",
        "Stats": "SXKAppTests/Operator/OperatorWordingTests.swift",
        "Profile": "SXKAppTests/Commands/Session/LoginTests.swift",
        "Curl": "SXKAppTests/Commands/Tools/PowerFeaturesTests.swift",
        "Watch": "SXKAppTests/Commands/Tools/PowerFeaturesTests.swift",
        "Trace": "SXKAppTests/Operator/FirstDayTests.swift",
        "Timing": "SXKAppTests/Operator/FirstDayTests.swift",
        "Explain": "SXKAppTests/Commands/Session/ContextTests.swift",
        "Pager": "SXKInteractiveTests/RendererPTYTests.swift",
        "Man": "SXKAppTests/Commands/GeneratedArtifactsTests.swift",
    ]

    func testEveryCommandHasATestFileNamedAfterIt() throws {
        let root = RepositoryRoot.url()
        let sources = root.appendingPathComponent("Sources/SXKApp/Commands")
        let tests = root.appendingPathComponent("Tests/SXKAppTests/Commands")
        let fm = FileManager.default
        func swiftFiles(_ folder: URL) -> [String] {
            (fm.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        }
        let sourceFiles = swiftFiles(sources), testFiles = swiftFiles(tests)
        XCTAssertTrue(sourceFiles.contains("CommandRegistry.swift"), "the sources were not found at \(sources.path)")
        var missing: [String] = []
        for type in CommandRegistry.commands {
            let name = String(describing: type)
            // File names compare without case: `Commands.Har` is in `HAR.swift`.
            guard let source = sourceFiles.first(where: { ($0 as NSString).lastPathComponent.lowercased() == name.lowercased() + ".swift" }),
                  source.contains("/") else {
                missing.append("Commands.\(name) is not in Sources/SXKApp/Commands/<Group>/\(name).swift")
                continue
            }
            let expected = (source as NSString).deletingLastPathComponent + "/\(name)Tests.swift"
            let own = testFiles.contains { $0.lowercased() == expected.lowercased() }
            if let shared = Self.testedTogether[name] {
                XCTAssertFalse(own, "Commands.\(name) has \(expected): remove it from testedTogether")
                let text = (try? String(contentsOf: root.appendingPathComponent("Tests").appendingPathComponent(shared), encoding: .utf8)) ?? ""
                // The command's name as a command word: opening a quoted string or after `; `.
                let word = try NSRegularExpression(pattern: #"(["']|; )"# + NSRegularExpression.escapedPattern(for: type.spec.name) + #"(["' ;]|\\n)"#)
                XCTAssertNotNil(word.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                                "Tests/\(shared), named for Commands.\(name), does not run `\(type.spec.name)`")
            } else if !own {
                missing.append("Tests/SXKAppTests/Commands/\(expected) for Commands.\(name)")
            }
        }
        XCTAssertEqual(missing, [], "commands without a test file named after them")
    }
}
