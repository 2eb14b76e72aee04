import Foundation
import XCTest
@testable import SXKSession

final class StatePathsTests: XCTestCase {
    func testResolutionOrder() throws {
        let env = ["HOME": "/home/u", "XDG_STATE_HOME": "/xdg/state", "XDG_CONFIG_HOME": "/xdg/config", "SXK_STATE_DIR": "/sxkstate"]
        var p = try StatePaths.resolve(stateDir: "/opt/s/", profile: nil, envName: "test", environment: env)
        XCTAssertEqual(p.root, "/opt/s")
        XCTAssertEqual(p.profileDir, "/opt/s/test")
        XCTAssertEqual(p.tokenFile, "/opt/s/test/token")
        XCTAssertEqual(p.defaultsFile, "/opt/s/test/defaults.json")
        XCTAssertEqual(p.historyFile, "/opt/s/test/history")
        XCTAssertEqual(p.lockFile, "/opt/s/test/.lock")
        XCTAssertEqual(p.configDir, "/xdg/config/sxk")
        p = try StatePaths.resolve(stateDir: nil, profile: "work", envName: "test", environment: env)
        XCTAssertEqual(p.profileDir, "/sxkstate/work")
        p = try StatePaths.resolve(stateDir: nil, profile: nil, envName: "release", environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/xdg/state"])
        XCTAssertEqual(p.profileDir, "/xdg/state/sxk/release")
        p = try StatePaths.resolve(stateDir: nil, profile: nil, envName: "sandbox", environment: ["HOME": "/home/u", "XDG_STATE_HOME": ""])
        XCTAssertEqual(p.profileDir, "/home/u/.local/state/sxk/sandbox")
        XCTAssertEqual(p.configDir, "/home/u/.config/sxk")
        p = try StatePaths.resolve(stateDir: nil, profile: nil, envName: "test", environment: ["HOME": "/h", "SXK_PROFILE": "alt"])
        XCTAssertEqual(p.profile, "alt")
    }

    func testProfileNamesValidated() {
        // The last two: a combining mark after `/` or `..` makes one Character, but the path still splits there.
        // Then what a listing would not show as it is: a C1 control, a bidi override, a zero-width space,
        // a no-break space and U+FFFD (an argument byte that was not UTF-8).
        for bad in ["", "a/b", "..", ".", "x..y", "../etc", "-rf", "a\nb", "a/\u{301}b", "x..\u{301}",
                    "x\u{9B}y", "x\u{202E}y", "x\u{200B}y", "a\u{A0}b", "p\u{FFFD}", " ", "a ", " a"] {
            XCTAssertThrowsError(try StatePaths.validateProfileName(bad), bad) { error in
                XCTAssertEqual(error as? SessionError, .invalidProfileName(bad))
            }
        }
        // Names earlier versions made stay usable: a space, ASCII punctuation.
        for good in ["test", "release", "sandbox", "测试-1", "a.b_c", "ops@shop+2", "café", "ग्राहक", "127.0.0.1-8080", "a b", "a:b", "x!y", "a=b"] {
            XCTAssertNoThrow(try StatePaths.validateProfileName(good), good)
        }
    }

    /// A backend given by URL gets a profile from host and port that is always one safe path component.
    func testDefaultProfileOfABaseURLIsHostAndPort() throws {
        func profile(_ text: String) throws -> String {
            StatePaths.defaultProfile(environmentName: "custom", customURL: URL(string: text))
        }
        XCTAssertEqual(try profile("http://127.0.0.1:8080"), "127.0.0.1-8080")
        XCTAssertEqual(try profile("http://127.0.0.1:8081/prefix/"), "127.0.0.1-8081")
        XCTAssertEqual(try profile("https://API.Example.com"), "api.example.com-443")
        XCTAssertEqual(try profile("http://localhost"), "localhost-80")
        XCTAssertEqual(try profile("http://[::1]:9000"), "__1-9000")
        XCTAssertEqual(StatePaths.defaultProfile(environmentName: "test", customURL: nil), "test")
        XCTAssertEqual(StatePaths.defaultProfile(environmentName: "release", customURL: nil), "release")
        // Each `.` right after a `.` becomes `_`, left to right.
        XCTAssertEqual(try profile("http://a..b:1"), "a._b-1")
        XCTAssertEqual(try profile("http://a...b:1"), "a._.b-1")
        XCTAssertEqual(try profile("http://a....b:1"), "a._._b-1")
        for text in ["http://127.0.0.1:8080", "http://[::1]:9000", "https://a-b_c.example:1", "http://%2e%2e:1", "http://-x:2",
                     "http://a...b:1", "http://...:1"] {
            let name = try profile(text)
            XCTAssertNoThrow(try StatePaths.validateProfileName(name), "\(text) → \(name)")
            XCTAssertFalse(name.contains("/") || name.contains(".."), name)
        }
    }
}
