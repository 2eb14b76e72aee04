import Foundation
import XCTest
@testable import SXKApp
import SXKShell
import SXKTestSupport

/// The one sink for the app's stderr lines: masked and made inert once, and the only writer to
/// stderr in SXKApp.
final class DiagnosticsTests: XCTestCase {
    func testLinesAreMaskedAndInert() {
        let sink = BufferOutput()
        let diagnostics = Diagnostics(sink: sink, secrets: ["sxk_live_token_0123"])
        diagnostics.note("token sxk_live_token_0123 \u{1b}[31mred\nnext")
        diagnostics.warning("name \u{202e}evil")
        diagnostics.lines("time: 1 ms\n  #1 GET /x sxk_live_token_0123\n")
        XCTAssertEqual(sink.text, "token *** \\x1b[31mred\\nnext\nwarning: name \\u202eevil\ntime: 1 ms\n  #1 GET /x ***\n")
    }

    /// Status lines (`timing on`'s, a trace's answer line) wrap at spaces on a terminal as notes do;
    /// what follows them (a trace's headers and body) stays as given, and a pipe gets whole lines.
    func testStatusLinesWrapAtSpacesOnATerminal() {
        let text = "  GET /api/app/store/all 200  dns 0.0  connect 0.1  tls –  first byte 0.4  total 0.6 ms  (http/1.1, new connection)\n"
            + "< {\"code\":200,\"data\":{\"list\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]}}\n"
        let screen = BufferOutput(messageWidth: 60)
        Diagnostics(sink: screen).lines(text, statusLines: 1)
        XCTAssertEqual(screen.text, "  GET /api/app/store/all 200  dns 0.0  connect 0.1  tls –\n    first byte 0.4  total 0.6 ms  (http/1.1, new connection)\n"
            + "< {\"code\":200,\"data\":{\"list\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]}}\n")
        let pipe = BufferOutput()
        Diagnostics(sink: pipe).lines(text, statusLines: .max)
        XCTAssertEqual(pipe.text, text)
    }

    /// Every stderr line of SXKApp goes through `Diagnostics` or a command's returned notes and
    /// warnings: no direct write elsewhere. Read from the sources, as the stdout check is.
    func testNoDirectStderrWriteOutsideTheSink() throws {
        let folder = RepositoryRoot.file("Sources/SXKApp")
        let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        XCTAssertTrue(files.contains("Support/Diagnostics.swift"), "the sources were not found at \(folder.path)")
        let pattern = try NSRegularExpression(pattern: #"io\.warning\(|stderr\.write\(|standardError|fputs\("#)
        var found: [String] = []
        for file in files where file != "Support/Diagnostics.swift" {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertEqual(found, [], "stderr written around the one sink")
    }

    /// In the shell, stderr is written by its output layer alone (`Sources/SXKShell/Output`: the renderer,
    /// `ErrorPresenter`, the sinks); the REPL's builtins and the command language go through them.
    func testTheShellWritesStderrOnlyThroughItsOutputLayer() throws {
        let folder = RepositoryRoot.file("Sources/SXKShell")
        let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        XCTAssertTrue(files.contains("REPL/Shell.swift"), "the sources were not found at \(folder.path)")
        let pattern = try NSRegularExpression(pattern: #"stderr\.(write|line)\(|standardError|fputs\("#)
        var found: [String] = []
        for file in files where !file.hasPrefix("Output/") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertEqual(found, [], "stderr written around the shell's output layer")
    }
}
