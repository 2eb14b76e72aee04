import Foundation
import SXKSandbox
import SXKTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Where the built `sxk` executable is: next to the test bundle (SwiftPM puts products and the
/// `.xctest` in the same folder), or `SXK_BIN` when set.
enum SXKBinary {
    static let path: String = {
        let fm = FileManager.default
        if let explicit = ProcessInfo.processInfo.environment["SXK_BIN"], fm.isExecutableFile(atPath: explicit) {
            return explicit
        }
        var candidates: [URL] = []
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        let argv0 = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        candidates.append(argv0.deletingLastPathComponent())
        candidates.append(argv0.deletingLastPathComponent().deletingLastPathComponent())
        let root = RepositoryRoot.url()
        candidates.append(root.appendingPathComponent(".build/debug"))
        for dir in candidates {
            let p = dir.appendingPathComponent("sxk").path
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: p, isDirectory: &isDir), !isDir.boolValue, fm.isExecutableFile(atPath: p) { return p }
        }
        return root.appendingPathComponent(".build/debug/sxk").path
    }()
}

/// What one run of `sxk` produced.
struct RunResult {
    var status: Int32
    var stdoutData: Data
    var stderrData: Data
    var timedOut: Bool
    var elapsed: TimeInterval
    /// Ended by a signal (status is then the signal number), not by exit().
    var uncaughtSignal = false
    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stderr: String { String(decoding: stderrData, as: UTF8.self) }
    /// Non-empty stderr lines.
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    var errorLines: [String] { stderrLines.filter { $0.hasPrefix("error:") } }
    var summary: String { "exit \(status)\(uncaughtSignal ? " (signal)" : "")\(timedOut ? " (timed out)" : "") after \(String(format: "%.2f", elapsed)) s\n--- stdout\n\(stdout.prefix(3000))\n--- stderr\n\(stderr.prefix(3000))" }

    /// stdout parsed as one JSON document with Foundation.
    func json() throws -> Any { try JSONSerialization.jsonObject(with: stdoutData, options: [.fragmentsAllowed]) }
}

/// A private folder tree per test: HOME, XDG dirs and the `--state-dir` root, removed at the end.
final class Workspace {
    let root: String
    var home: String { root + "/home" }
    var configHome: String { root + "/config" }
    var stateHome: String { root + "/xdg-state" }
    /// The `--state-dir` root.
    var stateDir: String
    /// The last `--base-url` `SXK.run` passed; its profile is named from host and port.
    var baseURL: URL?
    /// The default profile of that URL (`127.0.0.1-PORT`), or `test` when none was given.
    var profile: String { baseURL.map { "\($0.host ?? "")-\($0.port ?? 80)" } ?? "test" }
    var profileDir: String { stateDir + "/" + profile }
    var tokenFile: String { profileDir + "/token" }
    var defaultsFile: String { profileDir + "/defaults.json" }
    var historyFile: String { profileDir + "/history" }

    init(createStateDir: Bool = true) {
        let base = NSTemporaryDirectory() + "sxk-e2e-" + UUID().uuidString.prefix(12)
        root = base
        stateDir = base + "/state"
        let fm = FileManager.default
        for dir in [base, base + "/home", base + "/config", base + "/xdg-state"] {
            try? fm.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if createStateDir {
            try? fm.createDirectory(atPath: stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var environment: [String: String] {
        [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "XDG_CONFIG_HOME": configHome,
            "XDG_STATE_HOME": stateHome,
            "XDG_CACHE_HOME": root + "/cache",
            "XDG_DATA_HOME": root + "/data",
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            "TERM": "dumb",
        ]
    }

    /// Every regular file (and symlink/FIFO) below the workspace root, recursively.
    func allFiles(under dir: String? = nil) -> [String] {
        let start = dir ?? root
        guard let e = FileManager.default.enumerator(atPath: start) else { return [] }
        var out: [String] = []
        while let rel = e.nextObject() as? String {
            let p = start + "/" + rel
            var st = stat()
            if lstat(p, &st) == 0, (st.st_mode & S_IFMT) != S_IFDIR { out.append(p) }
        }
        return out.sorted()
    }

    func allDirectories(under dir: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [dir] }
        var out: [String] = [dir]
        while let rel = e.nextObject() as? String {
            let p = dir + "/" + rel
            var st = stat()
            if lstat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { out.append(p) }
        }
        return out.sorted()
    }

    func read(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Sets one key of the profile's defaults.json as another program or a hand edit would (the file
    /// written anew, mode 0600 as sxk keeps it).
    func setStored(_ key: String, _ value: Any) throws {
        var stored = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(read(defaultsFile))) as? [String: Any])
        stored[key] = value
        try JSONSerialization.data(withJSONObject: stored).write(to: URL(fileURLWithPath: defaultsFile))
        XCTAssertEqual(chmod(defaultsFile, 0o600), 0)
    }

    /// The formal token as stored in the token file.
    func token() -> String? {
        guard let data = read(tokenFile) else { return nil }
        let t = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }

    func defaultsObject() throws -> [String: Any] {
        let data = try XCTUnwrap(read(defaultsFile), "no defaults.json at \(defaultsFile)")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], "defaults.json is not an object")
    }
}

func modeOf(_ path: String) -> mode_t? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return st.st_mode & 0o7777
}

/// The file's inode number, nil when it is missing (an atomic replacement gives a new one).
func inodeOf(_ path: String) -> UInt64? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return UInt64(st.st_ino)
}

/// Runs the real `sxk` binary.
enum SXK {
    static let password = "sandbox123"

    /// `sxk --base-url URL --state-dir DIR ARGS…`, stdin fed from `stdin` then closed, killed at `timeout`.
    @discardableResult
    static func run(
        _ args: [String], in ws: Workspace, baseURL: URL?, stdin: String = "", env extra: [String: String] = [:],
        timeout: TimeInterval = 30, umask000: Bool = false, globalFirst: Bool = true, wrapper: [String] = []
    ) -> RunResult {
        var full: [String] = []
        if let baseURL {
            full += ["--base-url", baseURL.absoluteString]
            ws.baseURL = baseURL
        }
        full += ["--state-dir", ws.stateDir]
        full = globalFirst ? full + args : args + full
        var env = ws.environment
        for (k, v) in extra { env[k] = v }
        return runProcess(full, env: env, stdin: Data(stdin.utf8), timeout: timeout, umask000: umask000, wrapper: wrapper)
    }

    /// `wrapper` (e.g. `["/usr/bin/prlimit", "--fsize=2048", "--"]`) runs sxk through another program.
    static func runProcess(
        _ args: [String], executable: String = SXKBinary.path, env: [String: String], stdin: Data, timeout: TimeInterval,
        umask000: Bool = false, wrapper: [String] = []
    ) -> RunResult {
        let process = Process()
        if let tool = wrapper.first {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = Array(wrapper.dropFirst()) + [executable] + args
        } else if umask000 {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask 000; exec \"$0\" \"$@\"", executable] + args
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = args
        }
        process.environment = env
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        process.standardInput = inPipe
        process.standardOutput = outPipe
        process.standardError = errPipe
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        let out = PipeDrain(outPipe.fileHandleForReading)
        let err = PipeDrain(errPipe.fileHandleForReading)
        let started = Date()
        do { try process.run() } catch {
            return RunResult(status: -1, stdoutData: Data(), stderrData: Data("cannot start \(executable): \(error)".utf8), timedOut: false, elapsed: 0)
        }
        let writer = inPipe.fileHandleForWriting
        DispatchQueue.global().async {
            if !stdin.isEmpty { try? writer.write(contentsOf: stdin) }
            try? writer.close()
        }
        var timedOut = false
        if done.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            done.wait()
        }
        let elapsed = Date().timeIntervalSince(started)
        return RunResult(status: process.terminationStatus, stdoutData: out.finish(), stderrData: err.finish(), timedOut: timedOut, elapsed: elapsed,
                         uncaughtSignal: process.terminationReason == .uncaughtSignal)
    }

    /// Logs in non-interactively (one-shot `login … --password-stdin --accept-privacy`).
    @discardableResult
    static func login(_ phone: String, in ws: Workspace, baseURL: URL, account: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        var args = ["login", phone, "--password-stdin", "--accept-privacy"]
        if let account { args += ["--account", account] }
        let r = run(args, in: ws, baseURL: baseURL, stdin: password + "\n")
        XCTAssertEqual(r.status, 0, "login \(phone) failed: \(r.summary)", file: file, line: line)
        return r
    }
}

/// Reads a pipe to its end on a background thread.
final class PipeDrain: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let finished = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            finished.signal()
        }
    }

    /// What arrived so far (without waiting for the end).
    var snapshot: Data { lock.withLock { data } }

    func finish(timeout: TimeInterval = 10) -> Data {
        _ = finished.wait(timeout: .now() + timeout)
        return lock.withLock { data }
    }
}

/// A running `sxk` kept alive with an open stdin, for /proc checks and two-shell tests.
final class LiveSXK {
    let process = Process()
    private let input = Pipe()
    let out: PipeDrain
    let err: PipeDrain
    private let done = DispatchSemaphore(value: 0)
    /// Kept as long as the process may run: a workspace removed under a running sxk is made again by it, and left behind.
    private let workspace: Workspace

    init(_ args: [String], in ws: Workspace, baseURL: URL, env extra: [String: String] = [:]) throws {
        workspace = ws
        var full: [String] = ["--base-url", baseURL.absoluteString, "--state-dir", ws.stateDir]
        ws.baseURL = baseURL
        full += args
        process.executableURL = URL(fileURLWithPath: SXKBinary.path)
        process.arguments = full
        process.environment = ws.environment.merging(extra) { $1 }
        let o = Pipe(), e = Pipe()
        process.standardInput = input
        process.standardOutput = o
        process.standardError = e
        out = PipeDrain(o.fileHandleForReading)
        err = PipeDrain(e.fileHandleForReading)
        let sem = done
        process.terminationHandler = { _ in sem.signal() }
        try process.run()
    }

    var pid: pid_t { process.processIdentifier }

    func send(_ text: String) { try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8)) }

    /// Polls stdout until `predicate` holds or the deadline passes.
    func waitForStdout(timeout: TimeInterval = 15, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(String(decoding: out.snapshot, as: UTF8.self)) { return true }
            if !process.isRunning { break }
            usleep(20_000)
        }
        if !process.isRunning { _ = out.finish(timeout: 2); _ = err.finish(timeout: 2) }
        return predicate(String(decoding: out.snapshot, as: UTF8.self))
    }

    /// Closes stdin and waits for the exit; kills at the deadline.
    @discardableResult
    func finish(timeout: TimeInterval = 15) -> Int32 {
        try? input.fileHandleForWriting.close()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            kill(pid, SIGKILL)
            done.wait()
            return -9
        }
        return process.terminationStatus
    }

    func kill9() {
        kill(pid, SIGKILL)
        done.wait()
    }
}

/// One sandbox per spelling shared by the tests that do not need faults, expiry or a stopped server;
/// `url` is the one the running test's spelling asks for (`SpellingUnderTest`).
enum SharedSandbox {
    private static let servers: [SandboxSpelling: SandboxServer] = Dictionary(uniqueKeysWithValues: SandboxSpelling.allCases.map { spelling in
        let s = SandboxServer(config: SandboxConfig(spelling: spelling))
        _ = try? s.start()
        return (spelling, s)
    })
    static var server: SandboxServer { servers[SpellingUnderTest.current]! }
    static var url: URL { server.baseURL! }
}

/// Base of the end-to-end classes that inject faults or read the request log: each subclass gets
/// a sandbox of its own per spelling (started on first use, kept for the run), cleared before every
/// test. camelCase only unless the class overrides `spellings`.
class SandboxTestCase: BothSpellingsTestCase {
    override class var spellings: [SandboxSpelling] { [.camel] }
    private static let servers = SandboxPerClass()
    var server: SandboxServer { Self.servers.server(for: type(of: self), spelling: SpellingUnderTest.current) }
    var url: URL { server.baseURL! }

    override func setUp() {
        super.setUp()
        server.clearFaults()
        server.resetRequestLog()
    }
}

/// One sandbox per test class and spelling, so one class's faults and log never meet another's.
private final class SandboxPerClass: @unchecked Sendable {
    private struct Key: Hashable {
        let type: ObjectIdentifier
        let spelling: SandboxSpelling
    }
    private let lock = NSLock()
    private var servers: [Key: SandboxServer] = [:]

    func server(for type: AnyClass, spelling: SandboxSpelling) -> SandboxServer {
        lock.withLock {
            let key = Key(type: ObjectIdentifier(type), spelling: spelling)
            if let server = servers[key] { return server }
            let made = SandboxServer(config: SandboxConfig(spelling: spelling))
            _ = try? made.start()
            servers[key] = made
            return made
        }
    }
}

/// A sandbox of its own for one test, in the running test's spelling unless `spelling` says otherwise.
func startSandbox(_ config: SandboxConfig = SandboxConfig(), spelling: SandboxSpelling? = nil) throws -> (SandboxServer, URL) {
    var config = config
    config.spelling = spelling ?? SpellingUnderTest.current
    let server = SandboxServer(config: config)
    let url = try server.start()
    return (server, url)
}

/// Contract requests only (the log never holds control requests).
func paths(_ log: [SandboxRequestRecord]) -> [String] { log.map(\.path) }

let longTestsEnabled = ProcessInfo.processInfo.environment["SXK_LONG_TESTS"] == "1"

/// A member of `--json` / `--ndjson` / `--raw` output, which keeps the payload as received: under the
/// camelCase name, or under its snake_case spelling with numbers as strings (the snake pass's sandbox).
extension Dictionary where Key == String, Value == Any {
    func wire(_ camelName: String) -> Any? {
        if let value = self[camelName] { return value }
        var snake = ""
        for character in camelName {
            if character.isUppercase { snake += "_" + character.lowercased() } else { snake.append(character) }
        }
        return self[snake]
    }

    func wireInt(_ camelName: String) -> Int? {
        let value = wire(camelName)
        return (value as? Int) ?? (value as? String).flatMap { Int($0) }
    }
}
