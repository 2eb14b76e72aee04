import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// State folders someone else could have written, refused by the real binary before it reads or
/// creates anything in them, with one line saying why.
final class ForeignStateTests: XCTestCase {
    private func run(_ ws: Workspace) -> RunResult {
        SXK.run(["--profile", "p", "whoami"], in: ws, baseURL: nil)
    }

    /// The profile `p` as a run that stored something leaves it (a run that only shows makes none).
    private func makeProfile(_ ws: Workspace) {
        XCTAssertEqual(mkdir(ws.stateDir + "/p", 0o700), 0)
        XCTAssertEqual(run(ws).status, 0)
    }

    func testStateFolderWritableByOthersIsRefused() throws {
        let ws = Workspace()
        makeProfile(ws)
        XCTAssertEqual(chmod(ws.stateDir + "/p", 0o777), 0)
        let r = run(ws)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.stderrLines, ["error: refusing state folder \(ws.stateDir)/p: others can write it (mode 777); fix with: chmod go-w \(ws.stateDir)/p"], r.summary)
        XCTAssertEqual(modeOf(ws.stateDir + "/p"), 0o777, "a refused folder is left as it was")
    }

    /// Needs chown, so it runs as root (CI and the dev machines do); the owner is compared with the
    /// effective uid, so root is refused a folder owned by `nobody` too.
    func testStateFolderOwnedByAnotherUserIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to chown a folder to another uid") }
        let ws = Workspace()
        makeProfile(ws)
        XCTAssertEqual(chown(ws.stateDir + "/p", 65534, 65534), 0)
        let r = run(ws)
        XCTAssertEqual(r.status, 1, r.summary)
        XCTAssertEqual(r.stderrLines, ["error: refusing state folder \(ws.stateDir)/p: it is owned by uid 65534, not by you (uid 0)"], r.summary)
        XCTAssertEqual(chown(ws.stateDir, 65534, 65534), 0)
        let root = SXK.run(["--profile", "q", "whoami"], in: ws, baseURL: nil)
        XCTAssertEqual(root.stderrLines, ["error: refusing state folder \(ws.stateDir): it is owned by uid 65534, not by you (uid 0)"], root.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ws.stateDir + "/q"), "a profile was created in a refused folder")
    }
}
