import Foundation
import SXKShell
import SXKTestSupport
import XCTest
@testable import SXKApp

/// Seeded fuzz of what a typed line goes through — the tokenizer (strict and the
/// completion's lenient mode), the parser with the app's real command table, completion at any
/// cursor and the history filter. Corpus: every command, subcommand and flag of the table (with
/// sample values) plus the help examples and quoting cases; then byte mutations.
final class CommandLineFuzzTests: XCTestCase {
    static let specs = Builtins.merged(with: CommandCatalog.all)

    /// Valid lines: every command path with its arguments and each of its flags, and the help examples
    /// (those meant for the outer shell, with pipes or redirections, left out).
    static let specLines: [String] = {
        func sample(_ kind: ValueKind) -> String {
            switch kind {
            case .string: return "'西湖 景区'"
            case .int: return "5"
            case .double: return "1.5"
            case .date: return "2026-11-01"
            case .path: return "/tmp/x.json"
            case .choice(let choices): return choices.first.map(Tokenizer.quote) ?? "x"
            case .provider: return "1"
            }
        }
        var lines: [String] = []
        func walk(_ spec: CommandSpec, prefix: [String], inherited: [FlagSpec]) {
            let path = prefix + [spec.name]
            let args = spec.arguments.filter { !$0.isOptional || $0.isVariadic }.map { sample($0.kind) }
            let flags = spec.flags + inherited
            lines.append((path + args).joined(separator: " "))
            for flag in flags {
                let value = flag.value.map { " " + sample($0) } ?? ""
                lines.append((path + args).joined(separator: " ") + " --\(flag.name)\(value)")
                if let short = flag.short { lines.append((path + ["-\(short)"] + args).joined(separator: " ") + (flag.value.map { " " + sample($0) } ?? "")) }
                if let kind = flag.value { lines.append((path + args).joined(separator: " ") + " --\(flag.name)=\(sample(kind))") }
            }
            lines.append(path.joined(separator: " ") + " --help")
            // `let NAME = COMMAND… PATH` is read by the shell before the parser sees a command.
            lines += spec.examples.filter { !$0.contains("|") && !$0.contains(">") && !$0.hasPrefix("let ") }
            for sub in spec.subcommands { walk(sub, prefix: path, inherited: flags) }
        }
        for spec in specs { walk(spec, prefix: [], inherited: []) }
        return lines
    }()

    /// The fuzz corpus: the spec lines plus quoting, separators, comments and near misses.
    static let corpus: [String] = {
        specLines + [
            "scenic '西湖 景区'", #"post /x "{\"a\": [1, 2], \"b\": \"c d\"}""#, "get /api/x k=v 'a b=c d'", "help stats daily",
            "orders --status=2 --limit 3; whoami # a note", "history 5", "exit 3", "orders -- --not-a-flag", #"a\ b 'it'\''s' "x\"y""#,
            "login 13800000001 --accept-privacy", "  store   101  ", "stats daily -h", "scenic 灵\t", "orders --all --page-size 5 --ndjson",
        ]
    }()

    /// Completion values for every provider, with spaces, quotes and Chinese in them.
    struct Values: CompletionValueProvider {
        static let all = ["西湖景区", "灵隐寺", "101", "断桥 摄影店", "it's", "a\"b", "photographer", "scenicAdmin", "/api/app/store/all", "test"]
        func completions(for provider: String, prefix: String) -> [CompletionCandidate] {
            Self.all.filter { $0.hasPrefix(prefix) }.map { CompletionCandidate($0, description: provider) }
        }
    }

    func testCorpusLinesParse() {
        let parser = CommandParser(specs: Self.specs)
        for line in Self.specLines {
            do {
                for words in try Tokenizer.split(line) { _ = try parser.parse(words) }
            } catch {
                XCTFail("corpus line does not parse: \(line.debugDescription): \(error)")
            }
        }
    }

    func testMutatedLinesNeverCrashAndKeepTheInvariants() {
        let run = FuzzRun("command-line fuzz", fast: 5_000, long: 40_000)
        print(run.replay)
        let specs = Self.specs
        let parser = CommandParser(specs: specs)
        let engine = CompletionEngine(specs: specs)
        let names = Set(specs.flatMap { [$0.name] + $0.aliases })
        let corpus = Self.corpus.map { Array($0.utf8) }
        var rng = SplitMix64(seed: run.seed)
        let mutator = Mutator(dictionary: ["--", "--help", "-h", "=", ";", "#", "\\\n", "'", "\"", "$", "`", "--json", "-c", "\t", "\r\n"] + Array(names),
                              maxRun: run.maxRun)
        let watchdog = FuzzWatchdog(run: run)
        defer { watchdog.stop() }
        var stats: [String: Int] = [:]
        var failures = 0
        for index in 0..<run.cases {
            let bytes = rng.chance(5) ? rng.pick(corpus) : mutator.mutate(rng.pick(corpus), corpus: corpus, rng: &rng)
            let line = String(decoding: bytes, as: UTF8.self)
            let cursor = Self.scalarBoundary(in: line, near: rng.below(line.utf8.count + 1))
            watchdog.begin("case \(index)", input: { line })
            var problems: [String] = []
            Self.check(line, cursor: cursor, parser: parser, engine: engine, specs: specs, stats: &stats, problems: &problems)
            // Any text at all, as one word, survives quoting (not only words the tokenizer produced).
            let scalars = Array(line.unicodeScalars)
            let from = rng.below(scalars.count + 1)
            var word = ""
            word.unicodeScalars.append(contentsOf: scalars[from..<min(scalars.count, from + rng.below(40))])
            if (try? Tokenizer.split("x " + Tokenizer.quote(word) + " y")) != [["x", word, "y"]] {
                problems.append("quote round trip failed for \(word.debugDescription) via \(Tokenizer.quote(word).debugDescription)")
            }
            let took = watchdog.end()
            if took > run.caseDeadline { problems.append("took \(String(format: "%.2f", took)) s (\(line.utf8.count) bytes)") }
            if !problems.isEmpty {
                failures += 1
                if failures <= 5 {
                    XCTFail("case \(index): \(problems.joined(separator: "; "))\n\(run.replay)\nline: \(String(line.prefix(300)).debugDescription)")
                }
            }
        }
        print("command-line fuzz over \(run.cases) cases: \(stats.sorted { $0.key < $1.key })")
        XCTAssertEqual(failures, 0, run.replay)
        XCTAssertGreaterThan(stats["run"] ?? 0, run.cases / 20, "too few mutated lines still parse: mutations too coarse")
        XCTAssertGreaterThan(stats["usage error"] ?? 0, run.cases / 20)
    }

    /// A pasted megabyte-long word costs linear time: the "did you mean" search skips names that
    /// cannot be close (it computed a full edit distance against every name: seconds per line).
    func testHugeUnknownWordIsRejectedQuickly() {
        let parser = CommandParser(specs: Self.specs)
        for word in ["scenix" + String(repeating: "x", count: 300_000), "orders --" + String(repeating: "西", count: 300_000)] {
            let started = Date()
            XCTAssertThrowsError(try parser.parse(try Tokenizer.split(word)[0])) { XCTAssertTrue($0 is UsageError) }
            XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, String(word.prefix(12)))
        }
    }

    /// The invariants for one line; appends what is wrong.
    static func check(_ line: String, cursor: Int, parser: CommandParser, engine: CompletionEngine, specs: [CommandSpec],
                      stats: inout [String: Int], problems: inout [String]) {
        let length = line.utf8.count
        // Strict split: words, or a UsageError.
        var commands: [[String]]?
        do { commands = try Tokenizer.split(line) } catch is UsageError { stats["split error", default: 0] += 1 } catch {
            problems.append("split threw \(type(of: error)): \(error)")
        }
        // Lenient tokenizing (completion) never fails; positions are in bounds and in order; where the
        // strict split succeeds, both agree.
        do {
            let tokens = try Tokenizer.tokenize(line, lenient: true)
            var previous = 0
            for token in tokens.joined() {
                if token.start < previous || token.start > token.end || token.end > length {
                    problems.append("token \(token.text.debugDescription) at \(token.start)..<\(token.end) out of order or bounds (line \(length) bytes)")
                    break
                }
                previous = token.start
            }
            // A line with an unquoted `|`, `>` or `>>` is read differently on purpose: strict mode makes
            // them operators, lenient mode (what completion sees of a line being typed) keeps them words.
            let operators = (try? Tokenizer.tokenize(line, lenient: false))?.joined().contains { $0.output != nil } ?? false
            if let commands, !operators, tokens.map({ $0.map(\.text) }) != commands { problems.append("lenient and strict tokenizing disagree") }
        } catch {
            problems.append("lenient tokenize threw: \(error)")
        }
        for words in commands ?? [] {
            // Re-quoting the words gives them back exactly.
            let requoted = words.map(Tokenizer.quote).joined(separator: " ")
            if (try? Tokenizer.split(requoted)) != [words] { problems.append("quote round trip failed for \(words) via \(requoted.debugDescription)") }
            // Parsing: a result or a UsageError, the same every time, consistent with the words.
            do {
                let result = try parser.parse(words)
                if (try? parser.parse(words)) != result { problems.append("parse is not deterministic for \(words)") }
                switch result {
                case .run(let command):
                    stats["run", default: 0] += 1
                    if !specs.contains(command.spec) || !command.spec.matches(words[0]) { problems.append("ran \(command.spec.name) for \(words[0])") }
                    if command.positionals.contains(where: { !words.contains($0) }) { problems.append("positional not among the words: \(command.positionals)") }
                    for (name, values) in command.options {
                        for value in values where !words.contains(value) && !words.contains(where: { $0.hasPrefix("--\(name)=") && $0.hasSuffix(value) })
                            && !words.contains(where: { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.hasSuffix(value) }) {
                            problems.append("option --\(name) value \(value.debugDescription) not among the words")
                        }
                    }
                case .help(let chain):
                    stats["help", default: 0] += 1
                    if chain.first?.matches(words[0]) != true { problems.append("help for \(chain.first?.name ?? "nothing") from \(words[0])") }
                }
            } catch let error as UsageError {
                stats["usage error", default: 0] += 1
                if error.description.isEmpty { problems.append("empty usage error") }
            } catch {
                problems.append("parse threw \(type(of: error)): \(error)")
            }
        }
        // Completion at the cursor: in-bounds replacement range, never a crash.
        let completion = engine.complete(line: line, cursor: cursor, provider: Values())
        if completion.replaceStart < 0 || completion.replaceStart > completion.replaceEnd || completion.replaceEnd > cursor {
            problems.append("completion range \(completion.replaceStart)..<\(completion.replaceEnd) for cursor \(cursor)")
        }
        stats[completion.candidates.isEmpty ? "no candidates" : "candidates", default: 0] += 1
        _ = HistoryStore.shouldPersist(line, specs: specs)
    }

    /// The nearest UTF-8 offset at or before `offset` that starts a scalar (where a cursor can be).
    static func scalarBoundary(in line: String, near offset: Int) -> Int {
        var best = 0
        var position = 0
        for scalar in line.unicodeScalars {
            if position > offset { break }
            best = position
            position += String(scalar).utf8.count
        }
        return position <= offset ? position : best
    }
}
