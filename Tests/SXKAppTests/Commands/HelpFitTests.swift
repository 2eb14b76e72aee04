import XCTest
@testable import SXKApp
import SXKShell

/// The app's own help (every command and subcommand, and `sxk --help`) fits 60 and 80 columns.
final class HelpFitTests: XCTestCase {
    func testEveryHelpPageFitsTheWindow() {
        let specs = Builtins.merged(with: CommandCatalog.all)
        func chains(_ prefix: [CommandSpec]) -> [[CommandSpec]] {
            [prefix] + prefix.last!.subcommands.flatMap { chains(prefix + [$0]) }
        }
        for width in [60, 80] {
            let r = HelpRenderer(specs: specs, width: width)
            var texts = [("help", r.overview()), ("--help", ShellMain.globalHelp(programName: "sxk", specs: specs, width: width))]
            for spec in specs { for chain in chains([spec]) { texts.append((chain.map(\.name).joined(separator: " "), r.page(for: chain))) } }
            for (name, text) in texts {
                for line in text.split(separator: "\n") {
                    XCTAssertLessThanOrEqual(TextWidth.width(String(line)), width, "\(name) at \(width): \(line)")
                }
            }
        }
    }
}
