import Foundation
import SXKSandbox
import XCTest

/// libcurl is loaded on the first request, not at start (docs/architecture.md, "libcurl is loaded
/// when first needed"): glibc's loader says which libraries it maps (`LD_DEBUG=files`).
final class LazyLibcurlTests: XCTestCase {
    private func loadedLibraries(_ result: RunResult) -> [String] {
        result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let r = line.range(of: "file=") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != " " && $0 != "\t" })
        }
    }

    func testAStartThatSendsNothingDoesNotLoadLibcurlAndARequestDoes() throws {
        let ws = Workspace()
        let version = SXK.run(["version"], in: ws, baseURL: nil, env: ["LD_DEBUG": "files"])
        XCTAssertEqual(version.status, 0, version.summary)
        let atStart = loadedLibraries(version)
        XCTAssertFalse(atStart.isEmpty, "LD_DEBUG gave no file lines: \(version.stderr.prefix(500))")
        XCTAssertFalse(atStart.contains { $0.hasPrefix("libcurl") || $0.hasPrefix("libgnutls") || $0.hasPrefix("libldap") },
                       "loaded at start: \(atStart)")

        let request = SXK.run(["config", "--json"], in: ws, baseURL: SharedSandbox.url, env: ["LD_DEBUG": "files"])
        XCTAssertEqual(request.status, 0, request.summary)
        XCTAssertTrue(loadedLibraries(request).contains { $0.hasPrefix("libcurl.so") }, "\(loadedLibraries(request))")
    }

    /// Loading libcurl does not initialise GnuTLS, which Debian's libcurl pulls in (librtmp, libldap)
    /// and sxk never calls: GnuTLS logs its initialisation when asked to, and says nothing here.
    func testLoadingLibcurlLeavesGnuTLSUninitialised() throws {
        let ws = Workspace()
        let request = SXK.run(["config", "--json"], in: ws, baseURL: SharedSandbox.url,
                              env: ["GNUTLS_DEBUG_LEVEL": "3", "LD_DEBUG": "files"])
        XCTAssertEqual(request.status, 0, request.summary)
        // GnuTLS is loaded (else this test would prove nothing) …
        XCTAssertTrue(loadedLibraries(request).contains { $0.hasPrefix("libgnutls") }, "\(loadedLibraries(request))")
        // … and, initialised, it would log that it was.
        XCTAssertFalse(request.stderr.contains("gnutls["), String(request.stderr.prefix(300)))
    }

    /// libcurl is opened with lazy binding (CCurl): the functions of the libraries it pulls in are bound
    /// when first called, so Kerberos, which a request over http never calls, has only its data bound
    /// (about 30 symbols, against some 660 bound up front). libcurl itself is linked with BIND_NOW and
    /// still has every import bound at load — its OpenSSL functions too, though plain http calls none —
    /// so a libcurl missing a symbol still fails at the load, as one error, not in mid-request.
    func testLoadingLibcurlBindsLazilyExceptWhatAsksToBeBoundAtLoad() throws {
        let ws = Workspace()
        let request = SXK.run(["config", "--json"], in: ws, baseURL: SharedSandbox.url, env: ["LD_DEBUG": "bindings"])
        XCTAssertEqual(request.status, 0, request.summary)
        func bindings(from library: String) -> [Substring] {
            request.stderr.split(separator: "\n").filter { line in
                guard let r = line.range(of: "binding file ") else { return false }
                let file = line[r.upperBound...].prefix { $0 != " " }
                return file.hasSuffix("/" + library)
            }
        }
        let kerberos = bindings(from: "libkrb5.so.3")
        XCTAssertFalse(kerberos.isEmpty, "LD_DEBUG gave no binding of libkrb5: \(request.stderr.prefix(300))")
        XCTAssertLessThan(kerberos.count, 200, "Kerberos's functions were bound at load")
        XCTAssertTrue(bindings(from: "libcurl.so.4").contains { $0.contains("`SSL_CTX_new'") },
                      "libcurl's imports were not bound at load")
    }

    /// A one-shot that sends loads libcurl on a thread it starts before the program's task, and that thread
    /// goes on to run the transfers (`CurlEngine.startLoading`): no thread is started for them once the
    /// load is done. Seen from /proc while the request waits on a slow sandbox: one `sxk.curl` thread,
    /// made before every thread but the main one and the shell's two (the task's pool, the TLS warm-up).
    /// Thread ids are compared as offsets from the process id, modulo `pid_max`, so ids that wrap around
    /// mid-process still order as they were made.
    func testTheThreadThatLoadsLibcurlRunsTheTransfers() throws {
        let (server, url) = try startSandbox(SandboxConfig(latencyMs: 1_500))
        defer { server.stop() }
        let live = try LiveSXK(["config", "--json"], in: Workspace(), baseURL: url)
        func threads() -> [(id: Int, name: String)] {
            let dir = "/proc/\(live.pid)/task"
            return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).compactMap { tid in
                guard let id = Int(tid), let data = FileManager.default.contents(atPath: "\(dir)/\(tid)/comm") else { return nil }
                return (id, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        // The request is in flight once the sandbox has it: it answers 1.5 s later.
        let deadline = Date().addingTimeInterval(10)
        while server.requestLog().isEmpty, Date() < deadline { usleep(5_000) }
        XCTAssertFalse(server.requestLog().isEmpty, "the request never reached the sandbox")
        let seen = threads()
        let pid = Int(live.pid)
        let limit = Int(String(decoding: FileManager.default.contents(atPath: "/proc/sys/kernel/pid_max") ?? Data(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 4_194_304
        func made(_ id: Int) -> Int { ((id - pid) % limit + limit) % limit }
        let engine = seen.filter { $0.name == "sxk.curl" }
        let later = seen.filter { $0.id != pid && !["sxk.curl", "sxk-reader", "sxk-signals"].contains($0.name) }
        XCTAssertEqual(engine.count, 1, "threads: \(seen)")
        XCTAssertFalse(later.isEmpty, "no thread of the task's pool: \(seen)")
        if let engine = engine.first {
            XCTAssertTrue(later.allSatisfy { made($0.id) > made(engine.id) }, "the transfers run on a thread started after the task's: \(seen)")
        }
        XCTAssertEqual(live.finish(), 0, String(decoding: live.err.finish(), as: UTF8.self))
    }

    /// libcurl's thread blocks every signal but a fault's whichever thread makes it: the loading thread of
    /// a one-shot, or the thread a script's first request starts (`sxk_curl_start_thread`), whose maker's
    /// mask (a pool thread's) leaves SIGPIPE and SIGPROF open. Read from /proc while the request waits.
    func testLibcurlsThreadBlocksEverySignalButFaultsInAOneShotAndAScript() throws {
        let (server, url) = try startSandbox(SandboxConfig(latencyMs: 1_500))
        defer { server.stop() }
        for args in [["config", "--json"], ["-c", "config --json"]] {
            let before = server.requestLog().count
            let live = try LiveSXK(args, in: Workspace(), baseURL: url)
            let deadline = Date().addingTimeInterval(10)
            while server.requestLog().count == before, Date() < deadline { usleep(5_000) }
            let dir = "/proc/\(live.pid)/task"
            var blocked: UInt64?
            for tid in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
                guard let comm = FileManager.default.contents(atPath: "\(dir)/\(tid)/comm"),
                      String(decoding: comm, as: UTF8.self).hasPrefix("sxk.curl"),
                      let status = FileManager.default.contents(atPath: "\(dir)/\(tid)/status") else { continue }
                let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
                blocked = line.flatMap { UInt64($0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
            }
            let mask = try XCTUnwrap(blocked, "\(args): no sxk.curl thread while the request waited")
            func isBlocked(_ signal: Int32) -> Bool { mask & (1 << UInt64(signal - 1)) != 0 }
            for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGPIPE, SIGPROF, SIGCHLD] {
                XCTAssertTrue(isBlocked(signal), "\(args): signal \(signal) reaches libcurl's thread (SigBlk \(String(mask, radix: 16)))")
            }
            for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE] {
                XCTAssertFalse(isBlocked(signal), "\(args): fault \(signal) is blocked on libcurl's thread")
            }
            XCTAssertEqual(live.finish(), 0, String(decoding: live.err.finish(), as: UTF8.self))
        }
    }
}
