import Foundation
import SXKSandbox
import SXKShell
import XCTest
@testable import SXKApp

/// Files derived from the command specs and data files stay in step with them.
final class GeneratedArtifactsTests: XCTestCase {
    /// The repository root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testCommittedCompletionScriptsMatchTheSpecs() throws {
        let specs = Builtins.merged(with: CommandCatalog.all)
        for shell in CompletionScript.Shell.allCases {
            let path = Self.root.appendingPathComponent("completions").appendingPathComponent(shell.fileName)
            let committed = try String(contentsOf: path, encoding: .utf8)
            XCTAssertEqual(committed, CompletionScript.generate(for: shell, specs: specs),
                           "completions/\(shell.fileName) differs from the specs — run `make completions`")
        }
    }

    func testEverySpecParsesItsOwnExamples() throws {
        let specs = Builtins.merged(with: CommandCatalog.all)
        let parser = CommandParser(specs: specs)
        for spec in CommandCatalog.all {
            for example in spec.examples where !example.contains("|") && !example.contains("$") && !example.hasPrefix("echo") {
                let words = try Tokenizer.split(example).first ?? []
                XCTAssertNoThrow(try parser.parse(words), "example of \(spec.name) does not parse: \(example)")
            }
        }
    }

    func testMenuCatalogCoversEveryPermissionTheSandboxServes() {
        let catalog = MenuCatalogResource.catalog
        XCTAssertFalse(catalog.entries.isEmpty, "menu-catalog.json did not parse")
        for permission in SandboxCatalog.permissions {
            XCTAssertNotNil(catalog.entry(uri: permission.uri), "no menu for \(permission.uri)")
        }
    }
}
