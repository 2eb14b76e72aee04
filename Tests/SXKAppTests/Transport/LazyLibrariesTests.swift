import Foundation
import XCTest

/// libedit and libjq are loaded when first used, not at start (docs/architecture.md, "Libraries are
/// loaded when first needed"): glibc's loader says which libraries it maps (`LD_DEBUG=files`). And
/// since they are not linked, a machine without one still runs everything else; what needs it says
/// why in one line. That is tried by hiding the library in a private mount namespace.
final class LazyLibrariesTests: XCTestCase {
    /// What the two libraries bring: libedit with libtinfo, libbsd and libmd; libjq with libonig.
    private static let editLibraries = ["libedit.so", "libtinfo.so", "libbsd.so", "libmd.so"]
    private static let jqLibraries = ["libjq.so", "libonig.so"]

    private func loadedLibraries(_ result: RunResult) -> [String] {
        result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let r = line.range(of: "file=") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != " " && $0 != "\t" })
        }
    }

    /// The libraries of `names` mapped, each once by its file name (the loader names a library more than once).
    private func loads(_ result: RunResult, _ names: [String]) -> [String] {
        let files = Set(loadedLibraries(result).map { $0.split(separator: "/").last.map(String.init) ?? $0 })
        return files.filter { file in names.contains { file.hasPrefix($0) } }.sorted()
    }

    /// The history file of the sandbox's profile (the one `SXK.run` with `SharedSandbox.url` uses).
    private func writeHistory(_ ws: Workspace, _ lines: [String]) throws {
        ws.baseURL = SharedSandbox.url
        try FileManager.default.createDirectory(atPath: ws.profileDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let text = "_HiStOrY_V2_\n" + lines.map { $0 + "\n" }.joined()
        XCTAssertTrue(FileManager.default.createFile(atPath: ws.historyFile, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
    }

    func testAOneShotMapsNeitherLibraryAndEachLoadsWhenItsWorkComes() throws {
        let ws = Workspace()
        for args in [["version"], ["config", "--json"]] {
            let run = SXK.run(args, in: ws, baseURL: args == ["version"] ? nil : SharedSandbox.url, env: ["LD_DEBUG": "files"])
            XCTAssertEqual(run.status, 0, run.summary)
            XCTAssertFalse(loadedLibraries(run).isEmpty, "LD_DEBUG gave no file lines: \(run.stderr.prefix(500))")
            XCTAssertEqual(loads(run, Self.editLibraries + Self.jqLibraries), [], "\(args) mapped them at start")
        }

        // `--jq` maps libjq (and its regex library), and the answer is jq's.
        let jq = SXK.run(["config", "--jq", ".latestVersion"], in: ws, baseURL: SharedSandbox.url, env: ["LD_DEBUG": "files"])
        XCTAssertEqual(jq.status, 0, jq.summary)
        XCTAssertEqual(jq.stdout, "3.2.0\n")
        XCTAssertEqual(loads(jq, Self.jqLibraries), ["libjq.so.1", "libonig.so.5"])
        XCTAssertEqual(loads(jq, Self.editLibraries), [])

        // Reading the history file maps libedit, and only then.
        try writeHistory(ws, ["whoami", "orders --json"])
        let history = SXK.run(["history"], in: ws, baseURL: SharedSandbox.url, env: ["LD_DEBUG": "files"])
        XCTAssertEqual(history.status, 0, history.summary)
        XCTAssertTrue(history.stdout.contains("whoami") && history.stdout.contains("orders --json"), history.stdout)
        XCTAssertEqual(loads(history, ["libedit.so"]), ["libedit.so.2"])
        XCTAssertEqual(loads(history, Self.jqLibraries), [])
    }

    /// sxk links FoundationEssentials, not Foundation (docs/architecture.md, "What sxk links"): Foundation
    /// brings CoreFoundation, whose set-up runs at every start, and ICU. A debug build links the Swift
    /// libraries dynamically, so the loader's list shows which; one `import Foundation` in a product
    /// source is enough to bring them back.
    func testNeitherProgramLoadsFoundationOrICU() throws {
        let ws = Workspace()
        let sandbox = (SXKBinary.path as NSString).deletingLastPathComponent + "/sxk-sandbox"
        for run in [SXK.run(["version"], in: ws, baseURL: nil, env: ["LD_DEBUG": "files"]),
                    SXK.run(["orders", "--page-size", "2"], in: ws, baseURL: SharedSandbox.url, env: ["LD_DEBUG": "files", "TZ": "Europe/Berlin"]),
                    runProgram(sandbox, ["--help"], env: ["LD_DEBUG": "files"])] {
            let files = loadedLibraries(run).map { $0.split(separator: "/").last.map(String.init) ?? $0 }
            XCTAssertFalse(files.isEmpty, "LD_DEBUG gave no file lines: \(run.stderr.prefix(500))")
            let foundation = files.filter { $0.hasPrefix("libFoundation") || $0.hasPrefix("lib_FoundationICU") || $0.hasPrefix("libicu") }
            XCTAssertTrue(foundation.allSatisfy { $0.hasPrefix("libFoundationEssentials.so") }, "\(foundation)")
        }
    }

    private func runProgram(_ path: String, _ args: [String], env: [String: String]) -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = args
        process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let started = Date()
        do { try process.run() } catch { return RunResult(status: -1, stdoutData: Data(), stderrData: Data("\(error)".utf8), timedOut: false, elapsed: 0) }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdoutData: outData, stderrData: errData, timedOut: false,
                         elapsed: Date().timeIntervalSince(started))
    }

    /// The file the loader maps for `soname` (`ldconfig -p`), or nil.
    private static func libraryPath(_ soname: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/sbin/ldconfig")
        process.arguments = ["-p"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix(soname + " ") && line.contains("x86-64") {
            if let r = line.range(of: "=> ") { return String(line[r.upperBound...]) }
        }
        return nil
    }

    /// Runs sxk with `soname`'s file replaced by an empty one, in a mount namespace of its own (the
    /// rest of the machine sees the library as before). Needs root and `unshare`.
    private func withoutLibrary(_ soname: String) throws -> [String] {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            throw XCTSkip("hiding a library needs root and util-linux's unshare (a private mount namespace)")
        }
        guard let path = Self.libraryPath(soname) else { throw XCTSkip("ldconfig does not list \(soname)") }
        let probe = SXK.runProcess([], executable: "/bin/true", env: [:], stdin: Data(), timeout: 10,
                                   wrapper: ["/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount --bind /dev/null \"$0\" && exec \"$@\"", path])
        guard probe.status == 0 else { throw XCTSkip("no mount namespace here: \(probe.stderr.prefix(200))") }
        return ["/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount --bind /dev/null \"$0\" && exec \"$@\"", path]
    }

    func testWithoutLibjqTheJQOptionFailsInOneLineAndTheRestRuns() throws {
        let wrapper = try withoutLibrary("libjq.so.1")
        let ws = Workspace()
        let jq = SXK.run(["config", "--jq", ".latestVersion"], in: ws, baseURL: SharedSandbox.url, wrapper: wrapper)
        XCTAssertEqual(jq.status, 1, jq.summary)
        XCTAssertEqual(jq.stdout, "")
        let lines = jq.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, jq.stderr)
        XCTAssertTrue(jq.stderr.contains("--jq: libjq could not be loaded") && jq.stderr.contains("install libjq: apt-get install libjq1"), jq.stderr)

        let plain = SXK.run(["config", "--json"], in: ws, baseURL: SharedSandbox.url, wrapper: wrapper)
        XCTAssertEqual(plain.status, 0, plain.summary)
        XCTAssertTrue(plain.stdout.contains("\"latestVersion\""), plain.stdout)
    }

    func testWithoutLibeditHistoryIsSaidUnreadAndTheFileIsKept() throws {
        let wrapper = try withoutLibrary("libedit.so.2")
        let ws = Workspace()
        try writeHistory(ws, ["whoami"])
        let before = ws.read(ws.historyFile)

        let history = SXK.run(["history"], in: ws, baseURL: SharedSandbox.url, wrapper: wrapper)
        XCTAssertEqual(history.status, 0, history.summary)
        XCTAssertEqual(history.stdout, "")
        XCTAssertTrue(history.stderr.contains("the history file is not read: libedit could not be loaded")
                      && history.stderr.contains("install libedit: apt-get install libedit2"), history.stderr)

        // A script runs as ever, and what it types is not written over the file it could not read.
        let script = SXK.run(["-c", "version; history"], in: ws, baseURL: SharedSandbox.url, wrapper: wrapper)
        XCTAssertEqual(script.status, 0, script.summary)
        XCTAssertTrue(script.stdout.hasPrefix("sxk "), script.stdout)
        XCTAssertEqual(ws.read(ws.historyFile), before)
    }
}
