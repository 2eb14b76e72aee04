import XCTest
@testable import SXKApp
import SXKShell
import SXKTestSupport

/// Every command type is listed once; commands that call the server say so.
final class CommandRegistryTests: XCTestCase {
    func testEveryCommandIsListedOnce() {
        let specNames = CommandCatalog.all.map(\.name)
        let typeNames = CommandRegistry.commands.map { $0.spec.name }
        XCTAssertEqual(typeNames.count, Set(typeNames).count, "a command listed twice")
        XCTAssertEqual(CommandRegistry.all.map(\.spec.name), specNames)
    }

    /// The commands whose handlers send a request (read from the sandbox's request log in
    /// `ScopeOrdersAndCLITests`); a command that forgets `needsServer` fails here. `location` alone
    /// shows the state the device keeps: only `location detail` calls.
    func testServerCommandsAreDeclared() throws {
        let parser = CommandParser(specs: CommandCatalog.all)
        func needsServer(_ words: [String]) throws -> Bool {
            guard case .run(let command) = try parser.parse(words), let declaration = CommandRegistry.declaration(for: command.spec.name) else {
                XCTFail("\(words) is not a command run"); return false
            }
            return declaration.needsServer(command)
        }
        for words in [["get", "/api/x"], ["post", "/api/x"], ["orders"], ["stats"], ["profile"], ["store"], ["location", "detail"]] {
            XCTAssertTrue(try needsServer(words), "\(words)")
        }
        // home and context diff send requests but must not validate first (a validation saves over the
        // state they read); switch-account tries its own tokens and asks a password when none works.
        for name in ["whoami", "keys", "logout", "trace", "timing", "pager", "man", "boot", "home", "explain", "context", "switch-account", "location"] {
            XCTAssertFalse(try needsServer([name]), name)
        }
        for sub in ["online", "offline", "report"] { XCTAssertFalse(try needsServer(["location", sub]), sub) }
    }

    func testWatchAndCompareReadTheRegistry() {
        let watchable = Set(CommandRegistry.all.filter(\.watchable).map(\.spec.name))
        XCTAssertFalse(watchable.contains("login") || watchable.contains("watch") || watchable.contains("env"))
        XCTAssertEqual(Set(CommandRegistry.all.filter(\.comparable).map(\.spec.name)), ["get", "post", "orders"])
    }

    /// On a device snapshot only a switch the user typed, `--apply` or a command that replaces the
    /// session writes; each command's type says which of its runs do.
    func testSnapshotWritersAreTheSwitchesAndSessionCommands() throws {
        let parser = CommandParser(specs: CommandCatalog.all)
        func writes(_ words: [String]) throws -> Bool {
            guard case .run(let command) = try parser.parse(words) else { XCTFail("\(words) is help"); return false }
            let declaration = try XCTUnwrap(CommandRegistry.declaration(for: command.spec.name))
            return AppCommands.writesSnapshot(command, declaration)
        }
        for line in [["login"], ["logout"], ["switch-account", "2"], ["env"], ["role", "photographer"], ["scenic", "2"],
                     ["store", "101"], ["location", "online"], ["menus", "common", "add", "/x"], ["home", "--apply"]] {
            XCTAssertTrue(try writes(line), "\(line)")
        }
        for line in [["role"], ["scenic"], ["store"], ["location"], ["menus"], ["menus", "common"], ["home"], ["whoami"], ["orders"]] {
            XCTAssertFalse(try writes(line), "\(line)")
        }
    }

    /// Run functions return data and the renderer prints it: no command handler in SXKApp writes to
    /// stdout itself. Read from the sources, since a run function's writes cannot be inspected.
    func testNoCommandHandlerWritesToStdout() throws {
        let folder = RepositoryRoot.file("Sources/SXKApp")
        let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        XCTAssertTrue(files.contains("Commands/CommandRegistry.swift"), "the sources were not found at \(folder.path)")
        // io.stdout/io.json writes, a bare print(, the process's stdout handle, or the old gathering wrapper.
        let pattern = try NSRegularExpression(pattern: #"io\.(stdout|json)\.(write|line|print)\(|(^|[^.\w])print\(|FileHandle\.standardOutput|\blegacy\("#)
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertEqual(found, [], "handlers writing to stdout instead of returning data")
    }
}
