import Foundation
import SXKSandbox
import XCTest

/// Bad bodies, timeouts, cross-origin redirects.
final class NetworkFaultTests: SandboxTestCase {
    /// server/bad data → 1; transport → 4 (README.md, Exit codes). A cut-off body is a transport failure.
    static let expectedExit: [SandboxFaultKind: Set<Int32>] = [
        .malformed: [1], .empty: [1], .html502: [1], .status500: [1], .truncated: [1, 4],
        .oversized: [1], .deepNesting: [1], .notHTTP: [1],
    ]

    private func checkFault(_ kind: SandboxFaultKind, path: String, command: String, ws: Workspace, file: StaticString = #filePath, line: UInt = #line) {
        server.injectFault(path: path, kind: kind)
        let r = SXK.run(["--keep-going", "-c", "\(command); whoami --json; orders --limit 2 --json"], in: ws, baseURL: url, timeout: 30)
        let label = "\(kind) on \(command)"
        XCTAssertFalse(r.timedOut, "\(label): hung", file: file, line: line)
        XCTAssertTrue(Self.expectedExit[kind]!.contains(r.status), "\(label): \(r.summary)", file: file, line: line)
        XCTAssertEqual(r.errorLines.count, 1, "\(label): want one error line: \(r.summary)", file: file, line: line)
        let message = r.errorLines.first ?? ""
        XCTAssertTrue(message.contains(path), "\(label): error does not name the endpoint: \(message)", file: file, line: line)
        if kind == .notHTTP {
            XCTAssertTrue(message.contains("the answer could not be read as HTTP"), "\(label): \(message)", file: file, line: line)
        } else if kind != .truncated {
            let status = kind == .html502 ? "502" : kind == .status500 ? "500" : "200"
            if kind == .status500 {
                XCTAssertTrue(message.contains("500") || message.contains("100500"), "\(label): no status: \(message)", file: file, line: line)
            } else {
                XCTAssertTrue(message.contains(status), "\(label): error does not name HTTP \(status): \(message)", file: file, line: line)
            }
        }
        XCTAssertLessThanOrEqual(message.count, 400, "\(label): error line too long", file: file, line: line)
        // Session unchanged: the next commands in the same run worked.
        let tail = r.stdout.split(separator: "\n").suffix(2)
        XCTAssertEqual(tail.count, 2, "\(label): later commands printed nothing: \(r.summary)", file: file, line: line)
        if tail.count == 2 {
            let who = (try? JSONSerialization.jsonObject(with: Data(tail.first!.utf8))) as? [String: Any]
            XCTAssertNotEqual(who?["phase"] as? String ?? "loggedOut", "loggedOut", "\(label): session changed: \(r.summary)", file: file, line: line)
            XCTAssertEqual(who?["userId"] as? Int, 1001, "\(label): account changed: \(r.summary)", file: file, line: line)
            let page = (try? JSONSerialization.jsonObject(with: Data(tail.last!.utf8))) as? [String: Any]
            XCTAssertEqual((page?["list"] as? [Any])?.count, 2, "\(label): \(r.summary)", file: file, line: line)
        }
        XCTAssertNotNil(ws.token(), "\(label): token lost", file: file, line: line)
        XCTAssertEqual(server.pendingFaults.count, 0, "\(label): fault not consumed", file: file, line: line)
    }

    func testBadBodiesOnConfig() {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        for kind in [SandboxFaultKind.malformed, .empty, .truncated, .html502, .status500] {
            checkFault(kind, path: "/api/app/config", command: "config --json", ws: ws)
        }
    }

    func testBadBodiesOnOrders() {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        for kind in [SandboxFaultKind.malformed, .empty, .truncated, .html502, .status500, .notHTTP] {
            checkFault(kind, path: "/api/yf-handset-app/photog/order/listv2", command: "orders --json", ws: ws)
        }
    }

    /// After a restart the first server command validates the session; a bad body there must not log out.
    func testBadBodiesOnFirstCommandAfterRestart() {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        for kind in [SandboxFaultKind.malformed, .empty, .html502, .status500] {
            server.injectFault(path: "/api/yf-handset-app/photog/order/listv2", kind: kind)
            let r = SXK.run(["-c", "whoami --json; orders --limit 2 --json"], in: ws, baseURL: url)
            XCTAssertEqual(r.status, 1, "\(kind): \(r.summary)")
            XCTAssertEqual(r.errorLines.count, 1, "\(kind): \(r.summary)")
            XCTAssertTrue(r.errorLines.first?.contains("/api/yf-handset-app/photog/order/listv2") ?? false, "\(kind): \(r.summary)")
            XCTAssertNotNil(ws.token(), "\(kind): logged out by a bad body")
            let next = SXK.run(["orders", "--limit", "1", "--json"], in: ws, baseURL: url)
            XCTAssertEqual(next.status, 0, "\(kind): next run failed: \(next.summary)")
        }
    }

    /// Hostile sizes: 100,000 nested `[` and a 48 MiB body (past the 32 MiB read limit) each
    /// give one error line with endpoint and status; the session and the next commands are unaffected.
    func testDeepNestingAndOversizedBodies() {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        for kind in [SandboxFaultKind.deepNesting, .oversized] {
            checkFault(kind, path: "/api/app/config", command: "config --json", ws: ws)
            checkFault(kind, path: "/api/yf-handset-app/photog/order/listv2", command: "orders --json", ws: ws)
        }
        server.injectFault(path: "/api/app/config", kind: .deepNesting)
        let deep = SXK.run(["config"], in: ws, baseURL: url)
        XCTAssertTrue(deep.errorLines.first?.contains("nest") ?? false, "the line does not say why: \(deep.summary)")
        server.injectFault(path: "/api/app/config", kind: .oversized)
        let big = SXK.run(["config"], in: ws, baseURL: url)
        XCTAssertTrue(big.errorLines.first?.contains("32 MiB") ?? false, "the line does not say why: \(big.summary)")
    }

    /// A 10 MiB answer that is valid JSON is read and used like a small one.
    func testTenMegabyteValidBodyIsDecoded() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let plain = SXK.run(["orders", "--limit", "2", "--json"], in: ws, baseURL: url)
        XCTAssertEqual(plain.status, 0, plain.summary)
        server.injectFault(path: "/api/yf-handset-app/photog/order/listv2", kind: .huge)
        let r = SXK.run(["-c", "orders --limit 2 --json; whoami --json"], in: ws, baseURL: url, timeout: 60)
        print("orders with a 10 MiB body: exit \(r.status) after \(String(format: "%.2f", r.elapsed)) s")
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stderr, "", r.summary)
        XCTAssertEqual(r.stdout.split(separator: "\n").first.map(String.init), plain.stdout.split(separator: "\n").first.map(String.init),
                       "the padded answer did not give the same orders")
        XCTAssertEqual(server.pendingFaults.count, 0)
    }

    func testTimeoutAgainstHangingServer() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        server.injectFault(path: "/api/app/config", kind: .hang)
        let started = Date()
        let r = SXK.run(["--timeout", "1", "config"], in: ws, baseURL: url, timeout: 15)
        let measured = Date().timeIntervalSince(started)
        print("sxk --timeout 1 against a hanging server: exit \(r.status) after \(String(format: "%.3f", measured)) s (process run time)")
        XCTAssertFalse(r.timedOut, r.summary)
        XCTAssertEqual(r.status, 4, r.summary)
        XCTAssertEqual(r.errorLines.count, 1, r.summary)
        XCTAssertTrue(r.errorLines.first?.contains("/api/app/config") ?? false, r.summary)
        XCTAssertGreaterThanOrEqual(r.elapsed, 0.8, "timed out too early")
        XCTAssertLessThanOrEqual(r.elapsed, 2.5, "timeout overshoot")
        server.clearFaults()
    }

    func testCrossOriginRedirectNeverCarriesToken() throws {
        let (other, otherURL) = try startSandbox()
        defer { other.stop() }
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let token = try XCTUnwrap(ws.token())
        let target = otherURL.appendingPathComponent("api/app/config").absoluteString
        server.injectFault(path: "/api/app/config", kind: .redirect, location: target)
        server.injectFault(path: "/api/yf-handset-app/photog/order/listv2", kind: .redirect,
                           location: otherURL.appendingPathComponent("api/yf-handset-app/photog/order/listv2").absoluteString)
        let r = SXK.run(["--keep-going", "-c", "config --json; orders --limit 1 --json"], in: ws, baseURL: url, timeout: 20)
        XCTAssertFalse(r.timedOut, r.summary)
        XCTAssertNotEqual(r.status, 0, "a cross-origin redirect was followed silently: \(r.summary)")
        for record in other.requestLog() {
            XCTAssertNotEqual(record.header("token"), token, "B received A's token on \(record.path)")
            for (name, value) in record.headers { XCTAssertFalse(value.contains(token), "B received A's token in header \(name)") }
            XCTAssertFalse(record.rawQuery.contains(token) || record.body.contains(token), "B received the token in query/body")
        }
        XCTAssertFalse(r.stderr.contains(token) || r.stdout.contains(token))
    }
}

extension NetworkFaultTests {
    /// A same-origin redirect loop stops after the redirects followed and says it is one (exit 1),
    /// rather than reading the last redirect as the answer.
    func testARedirectLoopIsSaidAsOne() throws {
        let ws = Workspace()
        let config = url.appendingPathComponent("api/app/config").absoluteString
        server.injectFault(SandboxFault(path: "/api/app/config", kind: .redirect, count: 50, location: config))
        let r = SXK.run(["config"], in: ws, baseURL: url, timeout: 20)
        server.clearFaults()
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.errorLines, ["error: GET /api/app/config: still redirected after 10 redirects (a redirect loop?)"], r.summary)
        XCTAssertEqual(server.requestLog().filter { $0.path == "/api/app/config" }.count, 11)
    }
}

extension NetworkFaultTests {
    /// `home` shows what the app would do whatever its calls got, and its exit status says what they
    /// got: 1 for an error answer, 4 for none, 0 when every call was answered.
    func testHomesStatusSaysWhatItsCallsGot() {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        XCTAssertEqual(SXK.run(["home"], in: ws, baseURL: url).status, 0)
        server.injectFault(path: "/api/yf-handset-app/role-permission", kind: .status500)
        let failed = SXK.run(["home"], in: ws, baseURL: url)
        XCTAssertEqual(failed.status, 1, failed.summary)
        XCTAssertTrue(failed.stdout.contains("call failed: stored permissions kept"), failed.summary)
        // Said on stderr too, once.
        XCTAssertEqual(failed.stderrLines.filter { $0.contains("role-permission") }.count, 1, failed.summary)
        XCTAssertTrue(failed.stderrLines.contains { $0.hasPrefix("warning: the app's call #1 failed: GET /api/yf-handset-app/role-permission: ") }, failed.summary)
        server.clearFaults()
        // No answer before the timeout.
        server.injectFault(path: "/api/yf-handset-app/role-permission", kind: .hang)
        let closed = SXK.run(["--timeout", "1", "home"], in: ws, baseURL: url)
        server.clearFaults()
        XCTAssertEqual(closed.status, 4, closed.summary)
        XCTAssertTrue(closed.stderrLines.contains { $0.hasPrefix("warning: the app's call #1 failed: GET /api/yf-handset-app/role-permission: ") }, closed.summary)
    }
}
