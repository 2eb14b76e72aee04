import XCTest
@testable import SXKShell

final class InvocationTests: XCTestCase {
    func parse(_ args: [String], env: [String: String] = [:], tty: Bool = true) throws -> Invocation {
        try Invocation.parse(args, environment: env, stdinIsTerminal: tty) { ["orders", "version", "help"].contains($0) }
    }

    func testModes() throws {
        XCTAssertEqual(try parse([]).mode, .repl)
        XCTAssertEqual(try parse([], tty: false).mode, .stdin)
        XCTAssertEqual(try parse(["-c", "version; orders"]).mode, .commands("version; orders"))
        XCTAssertEqual(try parse(["--json", "orders", "--role", "x"]).mode, .oneShot(["orders", "--role", "x"]))
        XCTAssertEqual(try parse(["script.sxk"]).mode, .script("script.sxk"))
        XCTAssertEqual(try parse(["--", "orders"]).mode, .oneShot(["orders"]))
        XCTAssertEqual(try parse(["-"]).mode, .stdin, "`-` reads the commands from standard input, as sh does")
        XCTAssertThrowsError(try parse(["-", "x"]))
    }

    /// Parsing reads the same list help and completion print: every declared option is taken (a
    /// switch alone, refusing `=VALUE`; any other with its value), its short name too, and a name
    /// the list lacks is refused with the nearest declared one.
    func testEveryDeclaredOptionIsReadFromTheDeclaration() throws {
        for flag in GlobalOptions.flags {
            let sample: String
            switch flag.value {
            case nil:
                XCTAssertNoThrow(try parse(["--" + flag.name, "version"]), flag.name)
                XCTAssertThrowsError(try parse(["--\(flag.name)=1", "version"]), flag.name) {
                    XCTAssertEqual("\($0)", "option '--\(flag.name)' takes no value")
                }
                if let short = flag.short { XCTAssertNoThrow(try parse(["-\(short)", "version"]), flag.name) }
                continue
            case .choice(let values)?: sample = values[0]
            case .double?, .int?: sample = "5"
            default: sample = "/tmp/x"
            }
            XCTAssertNoThrow(try parse(["--" + flag.name, sample, "version"]), flag.name)
            XCTAssertNoThrow(try parse(["--\(flag.name)=\(sample)", "version"]), flag.name)
            XCTAssertThrowsError(try parse(["--" + flag.name]), flag.name) {
                XCTAssertEqual("\($0)", "missing value for '--\(flag.name)'")
            }
        }
        XCTAssertThrowsError(try parse(["--jsn", "version"])) { XCTAssertTrue("\($0)".contains("--json"), "\($0)") }
    }

    func testOptionsAndEnvironment() throws {
        let env = ["SXK_ENV": "test", "SXK_BASE_URL": "http://127.0.0.1:1", "SXK_PROFILE": "p", "SXK_STATE_DIR": "/s", "NO_COLOR": "1"]
        var o = try parse(["version"], env: env).options
        XCTAssertEqual(o.env, "test")
        XCTAssertEqual(o.baseURL, "http://127.0.0.1:1")
        XCTAssertEqual(o.profile, "p")
        XCTAssertEqual(o.stateDir, "/s")
        XCTAssertTrue(o.noColor)
        // An empty NO_COLOR is unset (no-color.org).
        XCTAssertFalse(try parse(["version"], env: ["NO_COLOR": ""]).options.noColor)
        o = try parse(["--env", "release", "--base-url=http://x", "--profile", "q", "--state-dir", "/t", "--json", "--trace",
                       "--timeout", "2.5", "--insecure-http", "--keep-going", "--no-color", "version"], env: env).options
        XCTAssertEqual(o.env, "release")
        XCTAssertEqual(o.baseURL, "http://x")
        XCTAssertEqual(o.profile, "q")
        XCTAssertEqual(o.stateDir, "/t")
        XCTAssertEqual(o.timeout, 2.5)
        XCTAssertTrue(o.json && o.trace && o.insecureHTTP && o.keepGoing && o.noColor)
        XCTAssertTrue(try parse(["--sandbox", "version"], env: env).options.sandbox, "SXK_BASE_URL is a default --sandbox overrides")
        // --env on the command line beats SXK_BASE_URL; --base-url beats both.
        XCTAssertNil(try parse(["--env", "release", "version"], env: env).options.baseURL)
        XCTAssertEqual(try parse(["--base-url", "http://y", "--env", "release", "version"], env: env).options.baseURL, "http://y")
        XCTAssertTrue(try parse(["--version"]).options.version)
        XCTAssertTrue(try parse(["-h"]).options.help)
    }

    func testUsageErrors() {
        XCTAssertThrowsError(try parse(["--jsno"])) { XCTAssertEqual("\($0)", "unknown option '--jsno' (did you mean '--json'?)") }
        XCTAssertThrowsError(try parse(["--env"])) { XCTAssertEqual("\($0)", "missing value for '--env'") }
        XCTAssertThrowsError(try parse(["--timeout", "-1"])) { XCTAssertTrue($0 is UsageError) }
        // Seconds are decimal numbers, as everywhere a number is typed: not hexadecimal, `inf` or `nan`.
        for flag in ["--timeout", "--persist"] {
            for word in ["0x10", "0x1p3", "inf", "nan"] {
                XCTAssertThrowsError(try parse([flag, word, "version"]), "\(flag) \(word)") { XCTAssertTrue($0 is UsageError) }
            }
        }
        XCTAssertEqual(try parse(["--timeout", "1e1", "version"]).options.timeout, 10)
        // 0 stops the connection holder: only as written, never by a sign or an underflow.
        for word in ["-0", "+0", "1e-400", "+5"] {
            XCTAssertThrowsError(try parse(["--persist", word, "version"]), word) { XCTAssertTrue($0 is UsageError) }
        }
        XCTAssertEqual(try parse(["--persist", "0.0", "version"]).options.persist, 0)
        XCTAssertEqual(try parse(["--persist", "0e5", "version"]).options.persist, 0)
        XCTAssertEqual(try parse(["--persist", "1e3", "version"]).options.persist, 1000)
        XCTAssertThrowsError(try parse(["--json=1"])) { XCTAssertTrue($0 is UsageError) }
        XCTAssertThrowsError(try parse(["-c", "x", "extra"])) { XCTAssertTrue($0 is UsageError) }
        XCTAssertThrowsError(try parse(["a.sxk", "extra"])) { XCTAssertTrue($0 is UsageError) }
        // Two backends on one command line, or an empty profile name: refused, not one silently ignored.
        XCTAssertThrowsError(try parse(["--sandbox", "--base-url", "http://x", "version"])) { XCTAssertTrue("\($0)".hasPrefix("--sandbox starts its own backend")) }
        XCTAssertThrowsError(try parse(["--env", "release", "--sandbox", "version"])) { XCTAssertTrue($0 is UsageError) }
        XCTAssertNoThrow(try parse(["--env", "sandbox", "--sandbox", "version"]))
        XCTAssertThrowsError(try parse(["--profile", "", "version"])) { XCTAssertEqual("\($0)", "--profile needs a name") }
        // An empty state folder or CA file (an unset variable in a script) is not the default one.
        XCTAssertThrowsError(try parse(["--state-dir", "", "version"])) { XCTAssertEqual("\($0)", "--state-dir needs a folder") }
        XCTAssertThrowsError(try parse(["--state-dir=", "version"])) { XCTAssertEqual("\($0)", "--state-dir needs a folder") }
        XCTAssertThrowsError(try parse(["--cacert", "", "version"])) { XCTAssertEqual("\($0)", "--cacert needs a file") }
        // `--har=~/x.har` reaches sxk unexpanded; its `~/` is the home folder, as a FILE's is.
        if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty {
            XCTAssertEqual(try parse(["--har=~/x.har", "version"]).options.harFile, home + "/x.har")
            XCTAssertEqual(try parse(["version"], env: ["SXK_STATE_DIR": "~/st"]).options.stateDir, home + "/st")
        }
    }

    func testDefaultHistoryPath() {
        var o = GlobalOptions()
        XCTAssertEqual(StatePaths.historyFile(options: o, environment: ["HOME": "/h"]), "/h/.local/state/sxk/default/history")
        o.env = "test"
        XCTAssertEqual(StatePaths.historyFile(options: o, environment: ["XDG_STATE_HOME": "/x"]), "/x/sxk/test/history")
        o.stateDir = "/d"
        XCTAssertEqual(StatePaths.historyFile(options: o, environment: [:]), "/d/history")
    }
}
