import Foundation
import SXKTestSupport
import XCTest
@testable import SXKApp
@testable import SXKShell

/// Each command, the app's and the shell's own, is one type in one file named after it.
final class CommandFilesTests: XCTestCase {
    static let root = RepositoryRoot.url()

    /// `switch-account` → `SwitchAccount`, `__complete` → `Complete`.
    static func typeName(_ command: String) -> String {
        command.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The Swift files under `folder` (recursively) whose name, less `.swift`, is `name` in any case.
    static func files(named name: String, under folder: String) throws -> [URL] {
        let base = root.appendingPathComponent(folder)
        guard let walk = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return walk.compactMap { $0 as? URL }.filter {
            $0.pathExtension == "swift" && $0.deletingPathExtension().lastPathComponent.lowercased() == name.lowercased()
        }
    }

    func testEachCommandIsOneTypeInOneFileNamedAfterIt() throws {
        let declared: [(type: String, command: String, folder: String)] =
            CommandRegistry.commands.map { (String(describing: $0), $0.spec.name, "Sources/SXKApp/Commands") }
            + Builtins.commands.map { (String(describing: $0), $0.spec.name, "Sources/SXKShell/Builtins") }
        XCTAssertEqual(declared.count, Builtins.specs.count + CommandCatalog.all.count, "a command is declared outside the two registries")
        for item in declared {
            XCTAssertEqual(item.type.lowercased(), Self.typeName(item.command).lowercased(), "\(item.command) is declared by a type named otherwise")
            let files = try Self.files(named: item.type, under: item.folder)
            XCTAssertEqual(files.count, 1, "\(item.command): \(files.count) files named \(item.type).swift under \(item.folder)")
            guard let file = files.first else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            XCTAssertTrue(text.contains("enum \(item.type): "), "\(file.lastPathComponent) does not declare \(item.type)")
            // The spec is in the type's file, not in a list elsewhere.
            let spec = try NSRegularExpression(pattern: "CommandSpec\\(\\s*\"" + NSRegularExpression.escapedPattern(for: item.command) + "\"")
            XCTAssertNotNil(spec.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                            "\(file.lastPathComponent) does not hold the spec of \(item.command)")
        }
    }
}
