import Foundation
import SXKSandbox
import XCTest
@testable import SXKAPI
@testable import SXKApp

/// Every `sxk __hold-connections` process on the machine, by pid (zombies waiting for a reaper are gone).
func connectionHolders() -> [pid_t] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    return entries.compactMap { name -> pid_t? in
        guard let pid = pid_t(name), let cmdline = procFile("/proc/\(name)/cmdline") else { return nil }
        let args = cmdline.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard args.count > 1, args[1] == KeptConnection.holderArgument else { return nil }
        let stat = String(decoding: procFile("/proc/\(name)/stat") ?? Data(), as: UTF8.self)
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        return state == "Z" ? nil : pid
    }
}

/// A /proc file's bytes (they report size 0, so read to the end).
func procFile(_ path: String) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return try? handle.readToEnd()
}

/// `--persist`: one-shots send through a holder process that keeps the connections open, and
/// fall back to a direct request, silently, whenever the holder cannot serve.
final class KeptConnectionTests: SandboxTestCase {
    private var workspaces: [Workspace] = []

    override func tearDown() {
        server.setLatency(milliseconds: 0)
        // Every holder a test started is stopped here, and must be gone: its process, not only its
        // socket (a stop removes the socket at once).
        for ws in workspaces {
            let pid = holderPID(ws)
            _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: ["SXK_PERSIST": "0"])
            XCTAssertTrue(waitUntil(5) { self.holderPID(ws) == nil && pid.map { !connectionHolders().contains($0) } ?? true },
                          "a holder was left running")
        }
        workspaces = []
        super.tearDown()
    }

    private func workspace() -> Workspace {
        let ws = Workspace()
        workspaces.append(ws)
        SXK.login("13800000001", in: ws, baseURL: url)
        return ws
    }

    private func socket(_ ws: Workspace) -> String { ws.profileDir + "/" + KeptConnection.socketName }

    /// The pid of the holder answering on the workspace's socket (from its peer credentials).
    private func holderPID(_ ws: Workspace) -> pid_t? {
        guard let fd = try? HolderSocket.connect(socket(ws)) else { return nil }
        defer { close(fd) }
        guard let pid = HolderSocket.peer(fd)?.pid, connectionHolders().contains(pid) else { return nil }
        return pid
    }

    private func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    private func persist(_ seconds: String = "30") -> [String: String] { ["SXK_PERSIST": seconds] }

    func testLaterOneShotsGoThroughTheKeptConnectionAndTheHolderWritesNothing() throws {
        let ws = workspace()
        let first = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(first.status, 0, first.summary)
        XCTAssertTrue(first.stderr.contains("kept connection, opened now"), first.summary)
        let pid = try XCTUnwrap(holderPID(ws), "no holder after the first one-shot")
        let files = Set(ws.allFiles())
        server.resetRequestLog()
        let second = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(second.status, 0, second.summary)
        XCTAssertTrue(second.stderr.contains("(http/1.1, kept connection)"), second.summary)
        XCTAssertTrue(second.stdout.contains("enableRegister"), second.summary)
        XCTAssertEqual(server.requestLog().count, 1)
        let timing = SXK.run(["-c", "timing on; get /api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(timing.stderr.contains("kept connection"), timing.summary)
        XCTAssertEqual(holderPID(ws), pid, "a second holder was started")
        // The holder keeps connections only: not a file more in the state, the socket aside.
        XCTAssertEqual(Set(ws.allFiles()), files)
        XCTAssertFalse(files.contains { $0.hasSuffix(KeptConnection.socketName) && !$0.hasPrefix(ws.profileDir) })
        // SXK_PERSIST=0 stops it, and its socket goes with it.
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist("0"))
        XCTAssertTrue(waitUntil(5) { !connectionHolders().contains(pid) }, "SXK_PERSIST=0 did not stop the holder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket(ws)))
    }

    /// Writes the workspace's startup file (sxkrc), 0600 as sxk requires.
    private func startupFile(_ ws: Workspace, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: ws.configHome + "/sxk", withIntermediateDirectories: true)
        let rc = ws.configHome + "/sxk/sxkrc"
        try text.write(toFile: rc, atomically: true, encoding: .utf8)
        chmod(rc, 0o600)
    }

    func testAPersistLineInTheStartupFileKeepsConnectionsAndTheVariableWins() throws {
        let ws = workspace()
        try startupFile(ws, "persist 30\n")
        // SXK_PERSIST=0 wins: nothing is started.
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist("0"))
        XCTAssertNil(holderPID(ws))
        // `--no-rc` skips the line, as it skips the whole file.
        let skipped = SXK.run(["--no-rc", "--trace", "get", "/api/app/config"], in: ws, baseURL: url)
        XCTAssertEqual(skipped.status, 0, skipped.summary)
        XCTAssertFalse(skipped.stderr.contains("kept connection"), skipped.summary)
        XCTAssertNil(holderPID(ws))
        let r = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("kept connection"), r.summary)
        XCTAssertNotNil(holderPID(ws))
    }

    func testAStaleSocketIsReplacedWithoutAWord() throws {
        let ws = workspace()
        // A socket file nobody listens on, as a holder killed with -9 leaves it.
        let fd = try HolderSocket.listen(socket(ws))
        close(fd)
        let plain = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url)
        let r = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout, plain.stdout)
        XCTAssertEqual(r.stderrLines.count, plain.stderrLines.count, r.summary)
        XCTAssertFalse(r.stderr.contains("kept") || r.stderr.contains("holder"), r.summary)
        XCTAssertNotNil(holderPID(ws), "no holder took the stale socket's place")
    }

    /// A fake holder on the workspace's socket answering every connection with `reply` (nil: close
    /// after reading the request, as a holder killed mid-request does).
    private func fakeHolder(_ ws: Workspace, reply: [UInt8]?) throws -> (stop: () -> Void, served: () -> Int) {
        try fakeHolder(ws, replies: reply.map { [$0] } ?? [])
    }

    /// The same with several frames, written in order (`delay` seconds after the request) before the
    /// connection is closed; after frames, the client's next one (its `go`) or its close is waited for,
    /// and then `afterGo` seconds.
    private func fakeHolder(_ ws: Workspace, replies: [[UInt8]], delay: Double = 0, afterGo: Double = 0) throws -> (stop: () -> Void, served: () -> Int) {
        let listener = try HolderSocket.listen(socket(ws))
        let count = Counter()
        let thread = Thread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                count.increment()
                let deadline = HolderSocket.now() + 5 + delay
                _ = try? HolderSocket.readFrame(client, deadline: deadline, limit: 1 << 24)
                if delay > 0 { usleep(useconds_t(delay * 1e6)) }
                for reply in replies { _ = try? HolderSocket.writeAll(client, reply, deadline: deadline) }
                if !replies.isEmpty { _ = try? HolderSocket.readFrame(client, deadline: deadline, limit: 16) }
                if afterGo > 0 { usleep(useconds_t(afterGo * 1e6)) }
                close(client)
            }
        }
        thread.start()
        let path = socket(ws)
        return ({ shutdown(listener, Int32(SHUT_RDWR)); close(listener); unlink(path) }, { count.value })
    }

    func testAHolderOfAnotherBuildIsNotUsedAndOnlyTheTraceSaysSo() throws {
        let ws = workspace()
        for reply in [HeldAnswer.refused("another build or environment").encoded(), Array("not this protocol".utf8)] {
            let fake = try fakeHolder(ws, reply: reply)
            defer { fake.stop() }
            server.resetRequestLog()
            let quiet = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
            XCTAssertEqual(quiet.status, 0, quiet.summary)
            XCTAssertTrue(quiet.stdout.contains("enableRegister"), quiet.summary)
            XCTAssertFalse(quiet.stderr.contains("kept"), quiet.summary)
            let traced = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
            XCTAssertTrue(traced.stderr.contains("kept connection not used"), traced.summary)
            XCTAssertTrue(traced.stderr.contains("(http/1.1, new connection)"), traced.summary)
            // Both asked the fake, both were answered directly.
            XCTAssertEqual(fake.served(), 2)
            XCTAssertEqual(server.requestLog().count, 2)
        }
        XCTAssertNil(holderPID(ws))
    }

    func testAHolderThatDiesMidRequestStillGetsTheRequestAnsweredDirectly() throws {
        let ws = workspace()
        let fake = try fakeHolder(ws, reply: nil)
        let r = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        fake.stop()
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stdout.contains("enableRegister"), r.summary)
        XCTAssertEqual(fake.served(), 1)

        // A real holder killed with -9 while the server holds its request.
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        let pid = try XCTUnwrap(holderPID(ws))
        server.setLatency(milliseconds: 1_500)
        server.resetRequestLog()
        let running = try LiveSXK(["get", "/api/yf-handset-app/userinfo"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(waitUntil(10) { self.server.requestLog().count >= 1 }, "the holder never sent the request")
        kill(pid, SIGKILL)
        let status = running.finish(timeout: 20)
        XCTAssertEqual(status, 0)
        let output = String(decoding: running.out.finish(), as: UTF8.self)
        XCTAssertTrue(output.contains("13800000001"), output)
        // The holder's copy and the direct one.
        XCTAssertEqual(server.requestLog().filter { $0.path == "/api/yf-handset-app/userinfo" }.count, 2)
        XCTAssertTrue(waitUntil(5) { !connectionHolders().contains(pid) })
        unlink(socket(ws))
    }

    private let setUser = ["post", "/api/app/v9/set-user", "userId:=1001", "accountType=scenic"]
    private func setUserRequests() -> Int { server.requestLog().filter { $0.path == "/api/app/v9/set-user" }.count }

    func testAPostTheHolderTookOnIsNotSentAgainWhenTheHolderDies() throws {
        let ws = workspace()
        // Took it on (its `sending` frame), then gone: the POST may have reached the server.
        var fake = try fakeHolder(ws, replies: [HeldAnswer.sending.encoded()])
        server.resetRequestLog()
        let post = SXK.run(["--trace"] + setUser, in: ws, baseURL: url, env: persist())
        XCTAssertEqual(post.status, 4, post.summary)
        XCTAssertTrue(post.stderr.contains("not sent again"), post.summary)
        XCTAssertEqual(setUserRequests(), 0, "the POST was sent again directly")
        // A GET in the same spot is safe to repeat: answered directly.
        let get = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(get.status, 0, get.summary)
        XCTAssertTrue(get.stdout.contains("enableRegister"), get.summary)
        XCTAssertEqual(fake.served(), 2)
        fake.stop()

        // Gone before taking it on: the holder never sent it, so it goes directly, once.
        fake = try fakeHolder(ws, reply: nil)
        server.resetRequestLog()
        let direct = SXK.run(setUser, in: ws, baseURL: url, env: persist())
        fake.stop()
        XCTAssertEqual(direct.status, 0, direct.summary)
        XCTAssertEqual(setUserRequests(), 1)
        XCTAssertNil(holderPID(ws))
    }

    /// A holder that takes the connection but never answers (stopped, stuck) is left after
    /// `KeptConnection.answerWait`, whatever the request's own time: the request goes directly, once,
    /// even a POST (the holder sends nothing before the client's `go`).
    func testAStuckHolderIsLeftQuicklyAndAPostGoesOnce() throws {
        let ws = workspace()
        let fake = try fakeHolder(ws, replies: [HeldAnswer.sending.encoded()], delay: KeptConnection.answerWait + 4)
        defer { fake.stop() }
        server.resetRequestLog()
        let started = Date()
        let post = SXK.run(["--timeout", "20", "--trace"] + setUser, in: ws, baseURL: url, env: persist())
        XCTAssertEqual(post.status, 0, post.summary)
        // Past the answer time there is room for a start and a direct request, short of the fake's delay.
        XCTAssertLessThan(Date().timeIntervalSince(started), KeptConnection.answerWait + 3, "waited past the holder's answer time")
        XCTAssertTrue(post.stderr.contains("kept connection not used (timed out)"), post.summary)
        XCTAssertEqual(setUserRequests(), 1)
        XCTAssertEqual(fake.served(), 1)
    }

    /// A holder whose listener queue is full (it stopped taking clients) is not waited for at all.
    func testAFullHolderQueueSendsDirectlyAtOnce() throws {
        let ws = workspace()
        let path = socket(ws)
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener); unlink(path) }
        _ = HolderSocket.withAddress(path) { bind(listener, $0, $1) }
        XCTAssertEqual(Glibc.listen(listener, 0), 0)
        var queued: [Int32] = []
        defer { for fd in queued { close(fd) } }
        while queued.count < 16, let fd = try? HolderSocket.connect(path) { queued.append(fd) }
        XCTAssertLessThan(queued.count, 16, "the listener's queue never filled")
        let started = Date()
        let running = try LiveSXK(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(running.finish(timeout: 10), 0, "the one-shot waited for the full holder")
        // Well under the first answer's wait (`KeptConnection.answerWait`): the connect itself failed at once.
        XCTAssertLessThan(Date().timeIntervalSince(started), KeptConnection.answerWait - 0.5)
        XCTAssertTrue(String(decoding: running.err.finish(), as: UTF8.self).contains("kept connection not used (the holder is not taking clients"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "a busy holder's socket was taken for a stale one")
        // It cannot be asked to stop: SXK_PERSIST=0 takes its name, so nothing sends through it.
        let stop = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist("0"))
        XCTAssertEqual(stop.status, 0, stop.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// A frame still arriving when its reader's deadline has passed (a one-shot suspended with Ctrl-Z
    /// while a large answer came) is read to its end, part by part, not taken for lost.
    func testAFrameArrivingPastTheDeadlineIsReadToItsEnd() throws {
        var pair: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { close(pair[0]); close(pair[1]) }
        let payload = [UInt8](repeating: 7, count: 1 << 20)
        let out = pair[1]
        let firstPart = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let writer = Thread {
            defer { done.signal() }
            var framed = FrameWriter()
            framed.blob(payload)
            var at = 0
            while at < framed.bytes.count {
                let n = framed.bytes.withUnsafeBytes { send(out, $0.baseAddress! + at, min(64 << 10, framed.bytes.count - at), Int32(MSG_NOSIGNAL)) }
                if n <= 0 { return }
                if at == 0 { firstPart.signal() }
                at += n
                usleep(30_000)
            }
        }
        writer.start()
        firstPart.wait()
        let read = try HolderSocket.readFrame(pair[0], deadline: HolderSocket.now() - 1, limit: 8 << 20, grace: HolderSocket.progressGrace)
        XCTAssertEqual(read?.count, payload.count)
        done.wait()
    }

    /// A holder refuses a request whose trusted files changed since it first used them (its connections
    /// were checked against the old ones): that request goes directly.
    func testAHolderIsNotUsedOnceTheTrustedFilesChange() throws {
        let ws = workspace()
        let ca = ws.root + "/ca.pem"
        try "not read over plain http\n".write(toFile: ca, atomically: false, encoding: .utf8)
        let first = SXK.run(["--cacert", ca, "--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(first.stderr.contains("kept connection, opened now"), first.summary)
        let kept = SXK.run(["--cacert", ca, "--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(kept.stderr.contains("(http/1.1, kept connection)"), kept.summary)
        try "another authority, same name\n".write(toFile: ca, atomically: false, encoding: .utf8)
        let changed = SXK.run(["--cacert", ca, "--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(changed.status, 0, changed.summary)
        XCTAssertTrue(changed.stderr.contains("holder refused: the trusted certificates changed"), changed.summary)
        XCTAssertTrue(changed.stderr.contains("(http/1.1, new connection)"), changed.summary)
    }

    /// The trusted files are judged by what the holder first checked under their names, whatever
    /// options a later request comes with (libcurl's CA cache and connections go by the names only);
    /// a change ends that holder, and the next one-shot starts one that reads the files as they are.
    func testAChangedTrustEndsTheHolderWhateverTheRequestsOptions() throws {
        let ws = workspace()
        let ca = ws.root + "/ca.pem"
        try "not read over plain http\n".write(toFile: ca, atomically: false, encoding: .utf8)
        _ = SXK.run(["--cacert", ca, "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        let pid = try XCTUnwrap(holderPID(ws))
        try "another authority, same name\n".write(toFile: ca, atomically: false, encoding: .utf8)
        // Other options make another transport in the holder: still the old files' holder.
        let other = SXK.run(["--cacert", ca, "--insecure-http", "--timeout", "9", "--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(other.status, 0, other.summary)
        XCTAssertTrue(other.stderr.contains("holder refused: the trusted certificates changed: the holder stops"), other.summary)
        XCTAssertTrue(waitUntil(5) { !connectionHolders().contains(pid) }, "the holder went on after its trust changed")
        let next = SXK.run(["--cacert", ca, "--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(next.stderr.contains("kept connection, opened now"), next.summary)
        XCTAssertNotEqual(holderPID(ws), pid)
    }

    /// A changed `/etc/hosts` (a name pointed at another server) ends the holder, whose connections
    /// and DNS cache lead where the name led before: that request goes directly, the next starts a
    /// new holder. Its time stamp is moved and put back; the file's content is not touched.
    func testAChangedHostsFileEndsTheHolder() throws {
        // Moving the time stamp of /etc/hosts needs its owner, root (as CI runs).
        guard getuid() == 0 else { throw XCTSkip("needs root to change the time stamp of /etc/hosts") }
        var st = stat()
        // A machine without /etc/hosts (a minimal container) has no time stamp to move.
        guard stat("/etc/hosts", &st) == 0 else { throw XCTSkip("no /etc/hosts on this machine") }
        let ws = workspace()
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        let pid = try XCTUnwrap(holderPID(ws))
        var times = [st.st_atim, timespec(tv_sec: st.st_mtim.tv_sec + 7, tv_nsec: st.st_mtim.tv_nsec)]
        XCTAssertEqual(utimensat(AT_FDCWD, "/etc/hosts", &times, 0), 0)
        var back = [st.st_atim, st.st_mtim]
        defer { _ = utimensat(AT_FDCWD, "/etc/hosts", &back, 0) }
        let moved = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(moved.status, 0, moved.summary)
        XCTAssertTrue(moved.stderr.contains("holder refused: the resolver's files changed"), moved.summary)
        XCTAssertTrue(moved.stderr.contains("(http/1.1, new connection)"), moved.summary)
        XCTAssertTrue(waitUntil(5) { !connectionHolders().contains(pid) }, "the holder went on after /etc/hosts changed")
        let next = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(next.stderr.contains("kept connection, opened now"), next.summary)
    }

    /// A holder that never answers costs a one-shot no more than its `--timeout`: the direct request
    /// gets the time left, not the whole time again.
    func testAStuckHolderAndAHungServerTakeTheTimeoutOnce() throws {
        let ws = workspace()
        let fake = try fakeHolder(ws, replies: [], delay: 30)
        defer { fake.stop() }
        server.injectFault(path: "/api/app/config", kind: .hang)
        defer { server.clearFaults() }
        let started = Date()
        let r = SXK.run(["--timeout", "4", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(r.status, 4, r.summary)
        XCTAssertTrue(r.stderr.contains("timed out after 4"), r.summary)
        XCTAssertLessThan(took, 4 + 1.5, "the holder's wait was added to the request's time")
    }

    /// A holder that never answers leaves a short request most of its time: it is sent directly and answered.
    func testAStuckHolderLeavesAShortTimeoutRoomToSendDirectly() throws {
        let ws = workspace()
        let fake = try fakeHolder(ws, replies: [], delay: 30)
        defer { fake.stop() }
        let r = SXK.run(["--timeout", "2", "--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stdout.contains("enableRegister"), r.summary)
    }

    /// A password, or another secret given for a request, never goes to the holder: its memory lives on.
    func testARequestCarryingAGivenSecretIsSentDirectly() throws {
        let ws = workspace()
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertNotNil(holderPID(ws))
        let r = SXK.run(["--trace", "get", "/api/app/config", "password=hunter22x"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("kept connection not used (the request carries a password"), r.summary)
        XCTAssertTrue(r.stderr.contains("new connection"), r.summary)
        // Typed into the path's query too.
        let query = SXK.run(["--trace", "get", "/api/app/config?password=hunter22x"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(query.stderr.contains("kept connection not used (the request carries a password"), query.summary)
        let login = SXK.run(["--trace", "login", "13800000001", "--password-stdin", "--accept-privacy"], in: ws, baseURL: url,
                            stdin: "sandbox123\n", env: persist())
        XCTAssertEqual(login.status, 0, login.summary)
        XCTAssertTrue(login.stderr.contains("the request carries a password"), login.summary)
        XCTAssertTrue(login.stderr.contains("kept connection)"), "the login's other calls still use the holder: \(login.summary)")
    }

    /// A variable naming a file relative to this folder (a TLS key log, host aliases) would name
    /// another in the holder's (`/`): such a one-shot sends directly and starts no holder. (Host
    /// aliases here: only read, so the test writes nothing into the folder it runs in.)
    func testARelativePathVariableKeepsTheRequestDirect() throws {
        let ws = workspace()
        let r = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist().merging(["HOSTALIASES": "aliases-not-here"]) { $1 })
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertTrue(r.stderr.contains("kept connection not used (HOSTALIASES is a relative path)"), r.summary)
        XCTAssertNil(holderPID(ws))
        XCTAssertNil(KeptConnection.relativePathVariable(["SSLKEYLOGFILE": "/tmp/k.log", "SSL_CERT_FILE": "rel.pem"]))
        XCTAssertEqual(KeptConnection.relativePathVariable(["SSLKEYLOGFILE": "keys.log"]), "SSLKEYLOGFILE")
        XCTAssertEqual(KeptConnection.relativePathVariable(["OPENSSL_MODULES": "/usr/lib:mods"]), "OPENSSL_MODULES")
    }

    /// A `persist` line with a comment after it works; one with a value that is no number of seconds
    /// is said once, and the one-shot sends directly.
    func testTheStartupFilesPersistLineTakesACommentAndSaysWhatIsWrong() throws {
        let ws = workspace()
        try startupFile(ws, "persist 30   # keep them\n")
        let kept = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url)
        XCTAssertTrue(kept.stderr.contains("kept connection"), kept.summary)
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist("0"))
        for bad in ["abc", "0x10", "-5", ""] {
            try startupFile(ws, "persist \(bad)\n")
            let r = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 0, r.summary)
            XCTAssertTrue(r.stderr.contains("sxkrc: sxkrc persist expects seconds from 0 to 86400, got '\(bad)'; no connection is kept"), r.summary)
            XCTAssertFalse(r.stderr.contains("kept connection,") || r.stderr.contains("kept connection)"), r.summary)
            XCTAssertNil(holderPID(ws))
        }
    }

    /// The trust a holder is given names the same files as a direct request's: a relative `--cacert` is
    /// made absolute in the folder sxk started in (the holder runs in `/`).
    func testRelativeTrustPathsAreMadeAbsolute() throws {
        let folder = FileManager.default.currentDirectoryPath
        let trust = TrustStore.resolve(caCert: "certs/ca.pem", environment: [:])
        XCTAssertEqual(trust.caFile, (folder == "/" ? "" : folder) + "/certs/ca.pem")
        XCTAssertEqual(TrustStore.resolve(caCert: nil, environment: ["SSL_CERT_FILE": "bundle.pem"]).caFile, (folder == "/" ? "" : folder) + "/bundle.pem")
        XCTAssertEqual(TrustStore.resolve(caCert: "/abs/ca.pem", environment: [:]).caFile, "/abs/ca.pem")
    }

    /// Every variable that changes what libcurl, OpenSSL or the resolver do is part of the identity:
    /// a holder started without the TLS key log never writes one for a client that has it, and the reverse.
    func testTheIdentityCoversTheVariablesThatChangeTLS() {
        let base = KeptConnection.identity(version: "1", environment: [:])
        for name in ["SSLKEYLOGFILE", "OPENSSL_CONF", "OPENSSL_MODULES", "SSL_CERT_FILE", "SSL_CERT_DIR", "https_proxy", "HOSTALIASES"] {
            XCTAssertNotEqual(KeptConnection.identity(version: "1", environment: [name: "/tmp/x"]), base, name)
        }
        XCTAssertEqual(KeptConnection.identity(version: "1", environment: ["TERM": "xterm"]), base)
    }

    /// An answer the direct path takes (a head under 64 KiB) comes through the holder too, however many fields it has.
    func testAnAnswerWithManyHeaderFieldsPassesThroughTheHolder() throws {
        let fields = HTTPHeaders((0..<12_000).map { _ in HTTPField(name: "a", value: "b") })
        let encoded = HeldAnswer.response(HTTPResponse(status: 200, headers: fields, body: Array("{}".utf8))).encoded()
        guard case .response(let response) = try HeldAnswer.decode(encoded) else { return XCTFail("not a response") }
        XCTAssertEqual(response.headers.fields.count, 12_000)
    }

    /// Any sxk of this user can stop a holder of another protocol version: a stop is read from any
    /// version, and `stopHolder` also sends the previous protocol's stop, which such a holder understands.
    func testAHolderOfTheOtherProtocolVersionCanBeStopped() throws {
        var future = HeldRequest(kind: .stop, identity: "another build", request: HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1/")!),
                                 caFile: nil, caDirectory: nil, allowPlainHTTPOffLoopback: false, totalTimeout: nil, maxBodyBytes: 0).encoded()
        withUnsafeBytes(of: UInt32(99).littleEndian) { future.replaceSubrange(4..<8, with: $0) }
        XCTAssertEqual(HeldRequest.decode(future)?.kind, .stop)
        // A holder that reads only version 2's stop (as yesterday's build does): closes on anything else.
        let ws = workspace()
        let path = socket(ws)
        let listener = try HolderSocket.listen(path)
        let asked = Counter()
        let thread = Thread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                if let frame = try? HolderSocket.readFrame(client, deadline: HolderSocket.now() + 5, limit: 1 << 16), frame.count > 8,
                   Array(frame[4..<8]) == [2, 0, 0, 0], frame[8] == HeldRequest.Kind.stop.rawValue {
                    asked.increment()
                    _ = try? HolderSocket.writeAll(client, HeldAnswer.refused("stopping").encoded(), deadline: HolderSocket.now() + 5)
                }
                close(client)
            }
        }
        thread.start()
        defer { shutdown(listener, Int32(SHUT_RDWR)); close(listener); unlink(path) }
        XCTAssertTrue(KeptConnectionTransport.stopHolder(socketPath: path, identity: "this build"))
        XCTAssertEqual(asked.value, 1)
    }

    /// A holder that takes the stop and says nothing (stopped with SIGSTOP, hung) loses its socket's
    /// name: `SXK_PERSIST=0` ends the wait of every later one-shot, not only its own.
    func testASilentHolderLosesItsNameWhenAskedToStop() throws {
        let ws = workspace()
        let path = socket(ws)
        let listener = try HolderSocket.listen(path)
        defer { close(listener); unlink(path) }
        let started = Date()
        XCTAssertFalse(KeptConnectionTransport.stopHolder(socketPath: path, identity: "this build"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 3.5, "asked every version in turn")
        var st = stat()
        XCTAssertNotEqual(lstat(path, &st), 0, "the silent holder's socket is still there")
    }

    /// A GET the holder took on and then lost goes again directly only in the time it has left: with
    /// none left it fails as timed out, instead of waiting its whole time again.
    func testAGetLostAfterItsTimeIsNotSentAgain() throws {
        let ws = workspace()
        // Takes the request on (reads the `go`), then says nothing until the request's time is over.
        let fake = try fakeHolder(ws, replies: [HeldAnswer.sending.encoded()], afterGo: 2.5)
        defer { fake.stop() }
        server.resetRequestLog()
        let started = Date()
        let r = SXK.run(["--timeout", "2", "--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(r.status, 4, r.summary)
        XCTAssertTrue(r.stderr.contains("GET sent again directly"), r.summary)
        XCTAssertLessThan(Date().timeIntervalSince(started), 6, "the GET was given its whole time again")
        XCTAssertEqual(server.requestLog().count, 0, "sent again with no time left")
    }

    /// A holder refuses only before it has read a `go`: a refusal that comes after the client sent one (a
    /// holder that gave up waiting for it) means the request was not sent, so a POST goes directly, once.
    func testARefusalAfterTheGoSendsThePostDirectly() throws {
        let ws = workspace()
        let fake = try fakeHolder(ws, replies: [HeldAnswer.sending.encoded(), HeldAnswer.refused("no go in time").encoded()])
        defer { fake.stop() }
        server.resetRequestLog()
        let post = SXK.run(setUser, in: ws, baseURL: url, env: persist())
        XCTAssertEqual(post.status, 0, post.summary)
        XCTAssertEqual(setUserRequests(), 1)
    }

    /// A real holder, and a one-shot's POST (set-user) it has sent and the server holds for 1.5 s.
    private func postOnTheWire(_ ws: Workspace, _ flags: [String] = [], latency: Int = 1_500) throws -> (holder: pid_t, running: LiveSXK) {
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        let pid = try XCTUnwrap(holderPID(ws))
        server.setLatency(milliseconds: latency)
        server.resetRequestLog()
        let running = try LiveSXK(flags + setUser, in: ws, baseURL: url, env: persist())
        XCTAssertTrue(waitUntil(10) { self.setUserRequests() >= 1 }, "the holder never sent the request")
        return (pid, running)
    }

    func testAPostIsSentOnceWhenARealHolderIsKilledMidRequest() throws {
        let ws = workspace()
        let (pid, running) = try postOnTheWire(ws)
        kill(pid, SIGKILL)
        XCTAssertEqual(running.finish(timeout: 20), 4)
        XCTAssertTrue(String(decoding: running.err.finish(), as: UTF8.self).contains("not sent again"))
        // Past the server's delay: a resend would have arrived by now.
        usleep(1_800_000)
        XCTAssertEqual(setUserRequests(), 1, "the POST reached the server twice")
        XCTAssertTrue(waitUntil(5) { !connectionHolders().contains(pid) })
        unlink(socket(ws))
    }

    /// libcurl is loaded beside the start only by a one-shot that sends directly: never for the
    /// REPL, a script, a command without the server, or one that goes through a holder.
    func testOnlyAOneShotThatSendsDirectlyLoadsLibcurlEarly() throws {
        let config = NSTemporaryDirectory() + "sxk-early-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        var env: [String: String] = ["XDG_CONFIG_HOME": config]
        func early(_ arguments: [String]) -> Bool { SXKApplication.oneShotWillSend(arguments, environment: env) }
        XCTAssertTrue(early(["get", "/api/app/config"]))
        XCTAssertTrue(early(["--base-url", "https://127.0.0.1:1", "--timeout", "5", "--trace", "orders", "--json"]))
        XCTAssertTrue(early(["--state-dir=/tmp/x", "--", "post", "/api/x"]))
        XCTAssertFalse(early([]))
        XCTAssertFalse(early(["--trace"]))
        XCTAssertFalse(early(["version"]))
        XCTAssertFalse(early(["--profile", "get"]))
        XCTAssertFalse(early(["-c", "get /api/app/config"]))
        XCTAssertFalse(early(["--persist", "30", "get", "/api/app/config"]))
        XCTAssertFalse(early(["--persist=30", "get", "/api/app/config"]))
        XCTAssertFalse(early(["--persist", "soon", "get", "/api/app/config"]), "a usage error sends nothing")
        // 0 stops a holder and sends directly.
        XCTAssertTrue(early(["--persist", "0", "get", "/api/app/config"]))
        XCTAssertTrue(early(["--persist=0", "get", "/api/app/config"]))
        env["SXK_PERSIST"] = "30"
        XCTAssertFalse(early(["get", "/api/app/config"]))
        XCTAssertTrue(early(["--persist", "0", "get", "/api/app/config"]), "the flag wins over the variable")
        env["SXK_PERSIST"] = "0"
        XCTAssertTrue(early(["get", "/api/app/config"]))
        XCTAssertFalse(early(["--persist", "30", "get", "/api/app/config"]))
        env["SXK_PERSIST"] = ""
        XCTAssertTrue(early(["get", "/api/app/config"]))
        try FileManager.default.createDirectory(atPath: config + "/sxk", withIntermediateDirectories: true)
        try "persist 30\n".write(toFile: config + "/sxk/sxkrc", atomically: true, encoding: .utf8)
        XCTAssertFalse(early(["get", "/api/app/config"]))
        env["SXK_PERSIST"] = "0"
        XCTAssertTrue(early(["get", "/api/app/config"]), "the variable wins over the startup file")
        env["SXK_PERSIST"] = ""
        try "persist 30\n".write(toFile: config + "/sxk/sxkrc", atomically: true, encoding: .utf8)
        XCTAssertTrue(early(["--no-rc", "get", "/api/app/config"]), "--no-rc skips the startup file")
        try "persist 0\n".write(toFile: config + "/sxk/sxkrc", atomically: true, encoding: .utf8)
        XCTAssertTrue(early(["get", "/api/app/config"]))
    }

    /// The early load's guess agrees with what each one-shot really does: it loads libcurl beside its start
    /// exactly when the sandbox then sees a request from it (commands that send without validating
    /// first, as login, compare and context diff, included).
    func testTheEarlyLoadIsChosenForTheOneShotsThatSend() throws {
        let ws = Workspace()
        SXK.login("13800000004", in: ws, baseURL: url, account: "1")
        let cases: [[String]] = [
            ["get", "/api/app/config"], ["config"], ["orders"], ["stats"], ["profile"], ["store"],
            ["login", "13800000004", "--password-stdin", "--accept-privacy", "--account", "1"],
            ["switch-account", "2"], ["switch-account", "1"], ["switch-account", "-"], ["compare", "--as", "role:photographer,role:scenicAdmin", "--", "orders"],
            ["home"], ["home", "--offline"], ["context", "diff"], ["context"], ["whoami"], ["accounts"], ["keys"],
            ["explain", "dialog"], ["boot"], ["timing"], ["env"],
        ]
        for words in cases {
            server.resetRequestLog()
            let r = SXK.run(words, in: ws, baseURL: url, stdin: words.contains("--password-stdin") ? "sandbox123\n" : "")
            XCTAssertEqual(r.status, 0, "\(words): \(r.summary)")
            let sent = !server.requestLog().isEmpty
            XCTAssertEqual(SXKApplication.oneShotWillSend(["--base-url", url.absoluteString] + words, environment: [:]), sent,
                           "\(words.joined(separator: " ")): \(sent ? "sends" : "sends nothing"), the early load says otherwise")
        }
    }

    /// A one-shot that ends before its first request (here a usage error) while libcurl is still
    /// loading on the second thread exits cleanly: with `exit`, whose handlers raced the libraries'
    /// constructors, it crashed about one run in thirty (the process now ends with `_exit`).
    func testAOneShotThatEndsBeforeItsRequestExitsCleanlyWhileLibcurlLoads() throws {
        let ws = workspace()
        for _ in 0..<40 {
            let r = SXK.run(["orders", "--limt", "3"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 2, r.summary)
            XCTAssertEqual(r.stderrLines.count, 1, r.summary)
            if r.status != 2 { break }
        }
    }

    /// A one-shot that sends directly starts the shell's reader and signal threads before libcurl's load
    /// (`ShellThreads.startEarly`), before the shell blocks the signals on its own thread: Ctrl-C and SIGTERM
    /// during its request still end it at once, with 130 and 143. A smoke test of that path: the handler
    /// routes the byte from whichever thread the signal lands on.
    func testSignalsEndADirectOneShotWhoseThreadsStartedBeforeTheLoad() throws {
        let ws = workspace()
        let words = ["get", "/api/yf-handset-app/userinfo"]
        XCTAssertTrue(SXKApplication.oneShotWillSend(["--base-url", url.absoluteString, "--state-dir", ws.stateDir] + words,
                                                     environment: ws.environment), "the one-shot would not start its threads early")
        server.setLatency(milliseconds: 3_000)
        defer { server.setLatency(milliseconds: 0) }
        for (sig, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            server.resetRequestLog()
            let running = try LiveSXK(words, in: ws, baseURL: url)
            XCTAssertTrue(waitUntil(10) { self.server.requestLog().count >= 1 }, "the request was never sent")
            let signalled = Date()
            kill(running.pid, sig)
            XCTAssertEqual(running.finish(timeout: 10), status, "signal \(sig)")
            XCTAssertLessThan(Date().timeIntervalSince(signalled), 2.5, "signal \(sig) waited for the answer")
            XCTAssertEqual(String(decoding: running.out.finish(), as: UTF8.self), "", "an ended one-shot printed its answer")
        }
    }

    /// While a one-shot's request waits, only two of its threads take the signals sxk routes: the main
    /// thread, which starts libcurl's load and then only waits, and the shell's reader. libcurl's load,
    /// warm-up and engine threads block every signal, though the load is started on the main thread.
    func testOnlyTheMainThreadAndTheReaderTakeSignalsDuringARequest() throws {
        #if !os(Linux)
        throw XCTSkip("reads each thread's mask from /proc, which only Linux has")
        #endif
        let ws = workspace()
        server.setLatency(milliseconds: 2_000)
        defer { server.setLatency(milliseconds: 0) }
        server.resetRequestLog()
        let running = try LiveSXK(["get", "/api/yf-handset-app/userinfo"], in: ws, baseURL: url)
        XCTAssertTrue(waitUntil(10) { self.server.requestLog().count >= 1 }, "the request was never sent")
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(running.pid)/task")) ?? []
        var takers: [String] = []
        for tid in tasks {
            let status = String(decoding: procFile("/proc/\(running.pid)/task/\(tid)/status") ?? Data(), as: UTF8.self)
            let field = { (name: String) in
                status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
            }
            guard let blocked = field("SigBlk").flatMap({ UInt64($0, radix: 16) }) else { continue }
            if blocked & (1 << UInt64(SIGINT - 1)) == 0 { takers.append(tid == "\(running.pid)" ? "main" : field("Name") ?? tid) }
        }
        kill(running.pid, SIGINT)
        XCTAssertEqual(running.finish(timeout: 10), 130)
        XCTAssertGreaterThan(tasks.count, 4, "the one-shot's threads were not seen")
        XCTAssertEqual(takers.sorted(), ["main", "sxk-reader"], "threads that take SIGINT")
    }

    func testCtrlCInTheOneShotCancelsItsTransferInTheHolder() throws {
        let ws = workspace()
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertNotNil(holderPID(ws))
        server.setLatency(milliseconds: 4_000)
        server.resetRequestLog()
        let running = try LiveSXK(["get", "/api/yf-handset-app/userinfo"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(waitUntil(10) { self.server.requestLog().count >= 1 }, "the holder never sent the request")
        let interrupted = Date()
        kill(running.pid, SIGINT)
        XCTAssertEqual(running.finish(timeout: 10), 130)
        XCTAssertLessThan(Date().timeIntervalSince(interrupted), 2.5, "Ctrl-C waited for the answer")
        // Once the server would have answered: a transfer that ran on would have handed its connection
        // back to the holder's pool; a cancelled one closed it, so the next request opens a new one.
        usleep(4_500_000)
        server.setLatency(milliseconds: 0)
        let next = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertTrue(next.stderr.contains("kept connection, opened now"), next.summary)
    }

    /// The holder's threads: a client that connects and sends nothing keeps one of them, and two one-shots
    /// at once are still both served, side by side, through the holder.
    func testASilentClientHoldsOneWorkerAndTwoOneShotsAreServedSideBySide() throws {
        let ws = workspace()
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        let pid = try XCTUnwrap(holderPID(ws))
        let silent = try HolderSocket.connect(socket(ws))
        defer { close(silent) }
        // Each answer is held long enough for the second process to start while the first waits.
        server.setLatency(milliseconds: 2_500)
        server.resetRequestLog()
        let started = Date()
        let one = try LiveSXK(["--trace", "get", "/api/yf-handset-app/userinfo"], in: ws, baseURL: url, env: persist())
        let two = try LiveSXK(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertEqual(one.finish(timeout: 15), 0)
        XCTAssertEqual(two.finish(timeout: 15), 0)
        server.setLatency(milliseconds: 0)
        // Well under the silent client's 10 s and under two latencies one after the other.
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        for run in [one, two] {
            XCTAssertTrue(String(decoding: run.err.finish(), as: UTF8.self).contains("kept connection"), "not sent through the holder")
        }
        let log = server.requestLog()
        XCTAssertEqual(log.count, 2, "\(log.map(\.path))")
        if log.count == 2 { XCTAssertTrue(log[0].overlaps(log[1]), "the two requests were not in flight together") }
        XCTAssertEqual(holderPID(ws), pid, "a second holder was started")
    }

    func testAnIdleHolderExitsByItselfAndTakesItsSocket() throws {
        let ws = workspace()
        // Idle for 3 s: time enough to find it before it goes, on a loaded machine too.
        let r = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist("3"))
        XCTAssertEqual(r.status, 0, r.summary)
        let pid = try XCTUnwrap(holderPID(ws))
        XCTAssertTrue(waitUntil(10) { !connectionHolders().contains(pid) }, "the holder outlived its 3 s of idleness")
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket(ws)))
    }

    /// A socket path too long for a socket address is bound through the folder's descriptor; the
    /// holder is given the path itself, and removes the socket when it goes.
    func testAnIdleHolderOnALongSocketPathTakesItsSocket() throws {
        let ws = Workspace()
        workspaces.append(ws)
        ws.stateDir = ws.root + "/" + String(repeating: "s", count: 90)
        try FileManager.default.createDirectory(atPath: ws.stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        SXK.login("13800000001", in: ws, baseURL: url)
        XCTAssertGreaterThanOrEqual(socket(ws).utf8.count, 108, "the path fits a socket address: \(socket(ws))")
        let r = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: persist("3"))
        XCTAssertEqual(r.status, 0, r.summary)
        let pid = try XCTUnwrap(holderPID(ws), "no holder answers on the long path")
        XCTAssertTrue(waitUntil(10) { !connectionHolders().contains(pid) }, "the holder outlived its 3 s of idleness")
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket(ws)), "the holder left its socket behind")
    }

    /// `SXK_PERSIST=0` while the holder has a POST on the wire: the holder stops taking clients at
    /// once, answers the POST it took on, then exits; the POST reaches the server once.
    func testStoppingTheHolderLetsTheRequestItTookOnFinish() throws {
        let ws = workspace()
        // The POST is held long enough for a whole process to stop the holder meanwhile.
        let (pid, running) = try postOnTheWire(ws, ["--trace"], latency: 5_000)
        server.setLatency(milliseconds: 0)
        let stop = SXK.run(["whoami"], in: ws, baseURL: url, env: persist("0"))
        XCTAssertEqual(stop.status, 0, stop.summary)
        // No new client once stopped: the name is gone while the POST is still out.
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket(ws)), "the stopped holder still takes clients")
        XCTAssertTrue(connectionHolders().contains(pid), "the holder ended with a request on the wire")
        XCTAssertEqual(running.finish(timeout: 20), 0)
        XCTAssertTrue(String(decoding: running.err.finish(), as: UTF8.self).contains("kept connection"), "not answered through the holder")
        XCTAssertTrue(waitUntil(5) { !connectionHolders().contains(pid) }, "the stopped holder did not exit")
        XCTAssertEqual(setUserRequests(), 1, "the POST reached the server twice")
    }

    /// One-shots the holder refuses (another environment: a different `no_proxy`) do not keep it
    /// alive: it exits once it has served nothing for its idle time, however often they come.
    func testClientsTheHolderRefusesDoNotKeepItAlive() throws {
        let ws = workspace()
        let r = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist("3"))
        XCTAssertEqual(r.status, 0, r.summary)
        let pid = try XCTUnwrap(holderPID(ws))
        let other = persist("3").merging(["no_proxy": "example.invalid"]) { $1 }
        // Refused clients come for longer than the holder's 3 s of idleness; it goes all the same.
        let until = Date().addingTimeInterval(10)
        var refused = 0
        while Date() < until && connectionHolders().contains(pid) {
            let run = SXK.run(["--trace", "get", "/api/app/config"], in: ws, baseURL: url, env: other)
            XCTAssertEqual(run.status, 0, run.summary)
            if run.stderr.contains("holder refused") { refused += 1 }
            usleep(200_000)
        }
        XCTAssertGreaterThan(refused, 0, "no one-shot was refused by the holder")
        XCTAssertFalse(connectionHolders().contains(pid), "refused clients kept the holder alive past its idle time")
    }

    private static let python = "/usr/bin/python3", setpriv = "/usr/bin/setpriv"

    /// A folder anyone may write in, for a test that acts as another user (uid 65534 through setpriv).
    private func folderForAnotherUser(_ prefix: String) throws -> String {
        // Acting as another uid needs root (to switch with setpriv) and a python3 that user can run.
        guard getuid() == 0 else { throw XCTSkip("needs root to act as another user") }
        guard FileManager.default.isExecutableFile(atPath: Self.python), FileManager.default.isExecutableFile(atPath: Self.setpriv) else {
            throw XCTSkip("needs /usr/bin/python3 and setpriv to act as another user")
        }
        let open = NSTemporaryDirectory() + prefix + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        chmod(open, 0o777)
        return open
    }

    func testOnlyTheSameUserIsServed() throws {
        let open = try folderForAnotherUser("sxk-peer-")
        defer { try? FileManager.default.removeItem(atPath: open) }
        let python = Self.python, setpriv = Self.setpriv
        let ws = workspace()
        _ = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: persist())
        XCTAssertNotNil(holderPID(ws))
        // The state folder is 0700; a second name for the socket in an open folder lets another user try.
        XCTAssertEqual(link(socket(ws), open + "/s"), 0, String(cString: strerror(errno)))
        chmod(open + "/s", 0o777)
        // Connects and waits for a byte: the holder closes at once on a stranger, and waits for the request of its own user.
        let probe = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\ns.settimeout(3)\n" +
            "try:\n  print('closed' if s.recv(1)==b'' else 'data')\nexcept socket.timeout:\n  print('waiting')\n"
        let stranger = SXK.runProcessAt(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", probe, open + "/s"], env: [:])
        XCTAssertEqual(stranger.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "closed", stranger.summary)
        let same = SXK.runProcessAt(python, ["-c", probe, open + "/s"], env: [:])
        XCTAssertEqual(same.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "waiting", same.summary)
    }

    /// `SXK_PERSIST=0` sends its stop (whose frame names the proxies of the environment) only to a
    /// listener of this user: another user's socket at the path hears nothing.
    func testAStopIsNotSentToAnotherUsersListener() throws {
        let open = try folderForAnotherUser("sxk-stop-")
        defer { try? FileManager.default.removeItem(atPath: open) }
        let python = Self.python, setpriv = Self.setpriv
        let ws = workspace()
        // Listens, and reports how many bytes the first client sent in 3 s.
        let listener = "import socket,sys,os\ns=socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(4)\n" +
            "open(sys.argv[1]+'.ready','w').close()\ns.settimeout(8)\nc,_=s.accept()\nc.settimeout(3)\nn=0\n" +
            "try:\n  while True:\n    b=c.recv(65536)\n    if not b: break\n    n+=len(b)\nexcept Exception:\n  pass\nprint(n)\n"
        let socketInOpen = open + "/l.sock"
        let stranger = DispatchQueue.global()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var heard = ""
        stranger.async {
            heard = SXK.runProcessAt(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", listener, socketInOpen], env: [:]).stdout
            done.signal()
        }
        XCTAssertTrue(waitUntil(5) { FileManager.default.fileExists(atPath: socketInOpen + ".ready") })
        XCTAssertEqual(rename(socketInOpen, socket(ws)), 0, String(cString: strerror(errno)))
        let r = SXK.run(["get", "/api/app/config"], in: ws, baseURL: url, env: ["SXK_PERSIST": "0", "https_proxy": "http://u:pr0xyPw@127.0.0.1:9"])
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(done.wait(timeout: .now() + 15), .success)
        XCTAssertEqual(heard.trimmingCharacters(in: .whitespacesAndNewlines), "0", "another user's listener was sent a stop frame")
        unlink(socket(ws))
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}
