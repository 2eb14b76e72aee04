import Foundation
import XCTest
@testable import SXKApp
import SXKTestSupport

/// A command's tests are named after it: `Commands.<Name>` in `Sources/SXKApp/Commands/<Group>/<Name>.swift`
/// has its tests in `Tests/SXKAppTests/Commands/<Group>/<Name>Tests.swift`. Read from the registry and the
/// two folders, so a command added without its test file fails here.
final class CommandTestFilesTests: XCTestCase {
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
            if !testFiles.contains(where: { $0.lowercased() == expected.lowercased() }) {
                missing.append("Tests/SXKAppTests/Commands/\(expected) for Commands.\(name)")
            }
        }
        XCTAssertEqual(missing, [], "commands without a test file named after them")
    }
}
