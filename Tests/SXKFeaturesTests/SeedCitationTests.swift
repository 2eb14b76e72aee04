import Foundation
import XCTest
import SXKTestSupport

/// Every `seed 000 §N` and `seed 001 NAME` that the code, the docs and sxk's output cite names a
/// section of the copies in docs/seeds/, so a maintainer can read what a rule rests on.
final class SeedCitationTests: XCTestCase {
    func testEverySeedCitationNamesASectionOfTheCopies() throws {
        let seed000 = try String(contentsOf: RepositoryRoot.file("docs/seeds/seed-000.txt"), encoding: .utf8)
        let seed001 = try String(contentsOf: RepositoryRoot.file("docs/seeds/seed-001.txt"), encoding: .utf8)
        // `## 4. …` and `### 4.2 …`.
        let sections = Set(seed000.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("#") else { return nil }
            let number = line.drop { $0 == "#" || $0 == " " }.prefix { $0.isNumber || $0 == "." }
            return number.isEmpty ? nil : String(number.hasSuffix(".") ? number.dropLast() : number)
        })
        let headings = Set(seed001.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertTrue(sections.isSuperset(of: ["1", "4.2", "7.2"]), "\(sections.sorted())")

        var cited = 0
        for file in try citingFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            let name = file.path.replacingOccurrences(of: RepositoryRoot.url().path + "/", with: "")
            for range in ranges(of: "seed 000 ", in: text) {
                // The citation runs on over `§`, digits, dots, ranges and lists: `§4.2–4.4`, `§1, §7.2`.
                let tail = text[range.upperBound...].prefix { "§0123456789.–, ".contains($0) }
                for part in tail.split(whereSeparator: { $0 == "," || $0 == "§" || $0 == " " || $0 == "–" }) {
                    let number = part.hasSuffix(".") ? String(part.dropLast()) : String(part)
                    guard !number.isEmpty else { continue }
                    cited += 1
                    XCTAssertTrue(sections.contains(number), "\(name): seed 000 §\(number) is no section of docs/seeds/seed-000.txt")
                }
            }
            for range in ranges(of: "seed 001 ", in: text) {
                let rest = text[range.upperBound...]
                // A name the seed uses (`seed 001 \`AccountContextLoader\``) is in its text.
                if rest.hasPrefix("`"), let end = rest.dropFirst().firstIndex(of: "`") {
                    let name = rest[rest.index(after: rest.startIndex)..<end]
                    cited += 1
                    XCTAssertTrue(seed001.contains(name), "\(name): seed 001 names no \(name)")
                    continue
                }
                let heading = rest.prefix { $0.unicodeScalars.allSatisfy { $0.properties.isIdeographic } }
                guard !heading.isEmpty else { continue }
                cited += 1
                XCTAssertTrue(headings.contains(String(heading)), "\(name): seed 001 \(heading) is no heading of docs/seeds/seed-001.txt")
            }
        }
        XCTAssertGreaterThan(cited, 100, "the citations were not found")
    }

    private func citingFiles() throws -> [URL] {
        var files = [RepositoryRoot.file("README.md")]
        for folder in ["Sources", "docs"] {
            let walker = FileManager.default.enumerator(at: RepositoryRoot.file(folder), includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                if ["swift", "md"].contains(url.pathExtension) { files.append(url) }
            }
        }
        return files
    }

    private func ranges(of needle: String, in text: String) -> [Range<String.Index>] {
        var out: [Range<String.Index>] = []
        var start = text.startIndex
        while let found = text.range(of: needle, range: start..<text.endIndex) {
            out.append(found)
            start = found.upperBound
        }
        return out
    }
}
