import XCTest
@testable import SXKApp
import SXKShell

/// Every spec has exactly one declaration and the reverse; commands that call the server say so.
final class CommandRegistryTests: XCTestCase {
    func testEverySpecHasOneDeclarationAndEveryDeclarationASpec() {
        let specNames = CommandCatalog.all.map(\.name)
        let entryNames = CommandRegistry.entries.map(\.name)
        XCTAssertEqual(Set(specNames), Set(entryNames))
        XCTAssertEqual(entryNames.count, Set(entryNames).count, "a command declared twice")
        XCTAssertEqual(CommandRegistry.all.map(\.spec.name), specNames)
    }

    /// The commands whose handlers send a request (read from the sandbox's request log in
    /// `ScopeOrdersAndCLITests`); a declaration that forgets `server: true` fails here.
    func testServerCommandsAreDeclared() {
        let server = Set(CommandRegistry.all.filter(\.needsServer).map(\.spec.name))
        for name in ["get", "post", "orders", "stats", "profile", "store", "location"] {
            XCTAssertTrue(server.contains(name), name)
        }
        // home and context diff send requests but must not validate first (a validation saves over the
        // state they read); switch-account tries its own tokens and asks a password when none works.
        for name in ["whoami", "keys", "logout", "trace", "timing", "pager", "man", "boot", "home", "explain", "context", "switch-account"] {
            XCTAssertFalse(server.contains(name), name)
        }
    }

    func testWatchAndCompareReadTheRegistry() {
        let watchable = Set(CommandRegistry.all.filter(\.watchable).map(\.spec.name))
        XCTAssertFalse(watchable.contains("login") || watchable.contains("watch") || watchable.contains("env"))
        XCTAssertEqual(Set(CommandRegistry.all.filter(\.comparable).map(\.spec.name)), ["get", "post", "orders"])
    }

    /// Run functions return data; `AppCommands.legacy` (stdout gathered into text) is left for
    /// `location` only, until it returns data too. Read from the declarations' source, since a run
    /// function cannot be inspected.
    func testNoDeclarationPrintsThroughLegacy() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/SXKApp/CommandRegistry.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        let declarations = text.components(separatedBy: "Entry(name: \"").dropFirst()
        XCTAssertEqual(declarations.count, CommandRegistry.entries.count, "the source was not read as expected")
        let legacy = declarations.filter { $0.contains("legacy") }.map { String($0.prefix { $0 != "\"" }) }
        XCTAssertTrue(Set(legacy).isSubset(of: ["location"]), "printing through legacy: \(legacy)")
    }
}
