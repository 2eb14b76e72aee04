import Foundation
import SXKSandbox
import XCTest

/// Each `--base-url` (and `env use URL`) keeps its own profile, named from host and port, so a
/// session on one backend is never sent to, or expired by, another.
final class ProfilePerBackendTests: XCTestCase {
    var url: URL { SharedSandbox.url }
    var other: SandboxServer!
    var otherURL: URL!

    override func setUpWithError() throws {
        other = SandboxServer(config: SandboxConfig())
        otherURL = try other.start()
    }

    override func tearDown() {
        other?.stop()
    }

    private func whoami(_ ws: Workspace, _ baseURL: URL) throws -> [String: Any] {
        let r = SXK.run(["whoami", "--json"], in: ws, baseURL: baseURL)
        XCTAssertEqual(r.status, 0, r.summary)
        return try XCTUnwrap(try r.json() as? [String: Any], r.summary)
    }

    func testTwoBaseURLsKeepTwoProfiles() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let first = "127.0.0.1-\(url.port!)", second = "127.0.0.1-\(otherURL.port!)"
        XCTAssertTrue(FileManager.default.fileExists(atPath: ws.stateDir + "/\(first)/token"), "\(ws.allFiles(under: ws.stateDir))")

        other.resetRequestLog()
        XCTAssertEqual(try whoami(ws, otherURL)["phase"] as? String, "loggedOut", "the other backend saw the first one's session")
        let orders = SXK.run(["orders"], in: ws, baseURL: otherURL)
        XCTAssertEqual(orders.status, 3, orders.summary)
        XCTAssertEqual(other.requestLog().count, 0, "a request went to the other backend")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/\(second)/token"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/custom"), "the shared profile is gone")

        // Logging in on the second backend leaves the first one's session as it was.
        SXK.login("13800000002", in: ws, baseURL: otherURL)
        XCTAssertEqual(try whoami(ws, url)["userId"] as? Int, 1001)
        XCTAssertEqual(try whoami(ws, otherURL)["userId"] as? Int, 2001)
        XCTAssertNotEqual(ws.read(ws.stateDir + "/\(first)/token"), ws.read(ws.stateDir + "/\(second)/token"))
    }

    /// `env use URL` switches to that URL's profile, and `env` names it.
    func testEnvUseURLSwitchesToThatBackendsProfile() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let r = SXK.run(["-c", "env use \(otherURL.absoluteString); env --json; whoami --json"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let objects = r.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(objects.count, 2, r.summary)
        XCTAssertEqual(objects.first?["profile"] as? String, "127.0.0.1-\(otherURL.port!)", r.summary)
        XCTAssertEqual(objects.last?["phase"] as? String, "loggedOut", r.summary)
    }
}
