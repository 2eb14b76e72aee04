import Foundation
import SXKSandbox
import SXKShell
import SXKTestSupport
import XCTest
@testable import SXKApp

/// Files derived from the command specs and data files stay in step with them.
final class GeneratedArtifactsTests: XCTestCase {
    static let root = RepositoryRoot.url()

    func testCommittedCompletionScriptsMatchTheSpecs() throws {
        let specs = Builtins.merged(with: CommandCatalog.all)
        for shell in CompletionScript.Shell.allCases {
            let path = Self.root.appendingPathComponent("completions").appendingPathComponent(shell.fileName)
            let committed = try String(contentsOf: path, encoding: .utf8)
            XCTAssertEqual(committed, CompletionScript.generate(for: shell, specs: specs),
                           "completions/\(shell.fileName) differs from the specs — run `make completions`")
        }
    }

    func testCommittedManPageMatchesTheSpecs() throws {
        let committed = try String(contentsOf: Self.root.appendingPathComponent("man/sxk.1"), encoding: .utf8)
        XCTAssertEqual(committed, Manual.page, "man/sxk.1 differs from the specs — run `make completions`")
        // The page documents every visible command and global option, and stays ASCII for groff.
        for spec in Builtins.merged(with: CommandCatalog.all) where !spec.isHidden {
            XCTAssertTrue(committed.contains(".SS \"\(ManPage.text(spec.name))\""), "no section for \(spec.name)")
        }
        for flag in GlobalOptions.flags {
            XCTAssertTrue(committed.contains("\\fB\\-\\-" + ManPage.text(flag.name) + "\\fR"), "no entry for --\(flag.name)")
        }
        XCTAssertTrue(committed.unicodeScalars.allSatisfy(\.isASCII), "non-ASCII character in man/sxk.1")
        XCTAssertFalse(committed.split(separator: "\n").contains { $0.hasPrefix("'") || $0.hasPrefix(" ") }, "a line starts with ' or a space")
    }

    /// An option the man page's DESCRIPTION names is a global option (`sxk --json config`), or the
    /// paragraph says it is a command's: `sxk --raw config` is an unknown option.
    func testManPageDescriptionSaysWhichOutputFlagsAreTheCommands() throws {
        let global = Set(GlobalOptions.flags.map(\.name))
        for case .paragraph(let text) in Manual.prose.description {
            var rest = Substring(text)
            var named: [String] = []
            while let start = rest.range(of: "`--") {
                let name = rest[start.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
                named.append(String(name))
                rest = rest[start.upperBound...]
            }
            for name in named where !global.contains(name) {
                XCTAssertTrue(text.contains("not global options but options of the commands"), "--\(name) reads as global: \(text)")
            }
        }
        XCTAssertFalse(GlobalOptions.flags.contains { $0.name == "raw" || $0.name == "ndjson" })
    }

    /// README.md's command table is the specs' (`CommandTable`), between its markers.
    /// Every `SXK_…` variable the sources read is in the man page's ENVIRONMENT (and every state
    /// file name in its FILES): a new one cannot go undocumented.
    func testManPageNamesEveryVariableAndStateFile() throws {
        let manual = Manual.page
        let environment = try XCTUnwrap(manual.range(of: ".SH \"ENVIRONMENT\"")).upperBound
        let files = try XCTUnwrap(manual.range(of: ".SH \"FILES\"")).upperBound
        let envSection = String(manual[environment..<files]), fileSection = String(manual[files...])
        var names = Set<String>()
        let sources = Self.root.appendingPathComponent("Sources")
        for case let path as String in FileManager.default.enumerator(atPath: sources.path)! where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            var rest = text[...]
            while let start = rest.range(of: "\"SXK_") {
                let name = rest[rest.index(after: start.lowerBound)...].prefix { $0 == "_" || $0.isUppercase || $0.isNumber }
                names.insert(String(name))
                rest = rest[start.upperBound...]
            }
        }
        // The curl command's placeholder for the token, set by whoever runs it, is not read by sxk.
        names.remove("SXK_TOKEN")
        XCTAssertTrue(names.contains("SXK_PERSIST"), "\(names)")
        for name in names.sorted() { XCTAssertTrue(envSection.contains(name), "\(name) missing from ENVIRONMENT") }
        for name in ["token", "defaults.json", "history", "history.lock", "accounts.json", "backend.json", "stores.json",
                     "sandbox-tokens.json", ".lock", "connections.sock", "sxkrc", "display"] {
            XCTAssertTrue(fileSection.contains(ManPage.text("/" + name) + "\\fR"), "\(name) missing from FILES")
        }
    }

    func testReadmeCommandTableMatchesTheSpecs() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let committed = try XCTUnwrap(CommandTable.current(in: readme), "README.md has no \(CommandTable.begin) … \(CommandTable.end) block")
        XCTAssertEqual(committed, Manual.commandTable, "README.md's command table differs from the specs — run `make completions`")
        for spec in Builtins.merged(with: CommandCatalog.all) where !spec.isHidden {
            XCTAssertTrue(committed.contains("| `\(spec.name)"), "no row for \(spec.name)")
        }
    }

    func testBinaryPrintsTheCommittedManPage() throws {
        let ws = Workspace()
        let r = SXK.run(["man"], in: ws, baseURL: nil)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout, Manual.page)
    }

    /// `make test` installs groff-base, so the page is always rendered; without groff this fails.
    func testManPageRendersWithoutGroffWarnings() throws {
        let groff = "/usr/bin/groff"
        guard FileManager.default.isExecutableFile(atPath: groff) else {
            return XCTFail("groff is not installed: run `make test`, which installs groff-base")
        }
        let r = SXK.runProcess(["-man", "-Tutf8", "-ww", "-z", Self.root.appendingPathComponent("man/sxk.1").path],
                               executable: groff, env: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], stdin: Data(), timeout: 30)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stderr, "", "groff warnings:\n\(r.stderr)")
        let text = SXK.runProcess(["-man", "-Tutf8", Self.root.appendingPathComponent("man/sxk.1").path],
                                  executable: groff, env: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], stdin: Data(), timeout: 30)
        XCTAssertTrue(text.stdout.contains("\u{00A7}1"), "non-ASCII text did not render back")
    }

    /// `make install` = release build + `install-files`; the copy step is checked here with the debug
    /// binaries (a release build would take minutes on this machine).
    func testMakeInstallFilesPutsEverythingUnderPrefix() throws {
        let make = "/usr/bin/make"
        // `make test` itself runs under make, so this skips only when the suite is run without it.
        guard FileManager.default.isExecutableFile(atPath: make) else { throw XCTSkip("make is not installed") }
        let ws = Workspace()
        let prefix = ws.root + "/prefix"
        let bin = URL(fileURLWithPath: SXKBinary.path).deletingLastPathComponent().path
        let r = SXK.runProcess(["-s", "-C", Self.root.path, "install-files", "PREFIX=" + prefix, "BIN_DIR=" + bin],
                               executable: make, env: ["PATH": "/usr/bin:/bin"], stdin: Data(), timeout: 60)
        XCTAssertEqual(r.status, 0, r.summary)
        let expected: [(String, mode_t)] = [
            ("bin/sxk", 0o755), ("bin/sxk-sandbox", 0o755), ("share/man/man1/sxk.1", 0o644),
            ("share/bash-completion/completions/sxk", 0o644), ("share/zsh/site-functions/_sxk", 0o644),
            ("share/fish/vendor_completions.d/sxk.fish", 0o644),
        ]
        for (path, mode) in expected {
            XCTAssertEqual(modeOf(prefix + "/" + path), mode, path)
        }
        XCTAssertEqual(ws.read(prefix + "/share/man/man1/sxk.1"), ws.read(Self.root.appendingPathComponent("man/sxk.1").path))
        let version = SXK.runProcess(["--version"], executable: prefix + "/bin/sxk", env: ws.environment, stdin: Data(), timeout: 30)
        XCTAssertEqual(version.stdout, "sxk \(SXKApplication.version)\n", version.summary)
    }

    /// The committed scripts load in their shells: `bash -n`, `zsh -n` and `fish -n`, plus a real
    /// `complete -C` in fish with the built binary on PATH. `make test` installs zsh and fish, so a
    /// missing shell is a failure.
    func testCompletionScriptsAreValidInTheirShells() throws {
        let ws = Workspace()
        let scripts = Self.root.appendingPathComponent("completions")
        let bash = SXK.runProcess(["-n", scripts.appendingPathComponent("sxk.bash").path], executable: "/bin/bash",
                                  env: ws.environment, stdin: Data(), timeout: 30)
        XCTAssertEqual(bash.status, 0, bash.summary)
        for (shell, file) in [("/usr/bin/zsh", "_sxk"), ("/usr/bin/fish", "sxk.fish")] {
            guard FileManager.default.isExecutableFile(atPath: shell) else {
                XCTFail("\(shell) is not installed: run `make test`, which installs zsh and fish")
                continue
            }
            let r = SXK.runProcess(["-n", scripts.appendingPathComponent(file).path], executable: shell,
                                   env: ws.environment, stdin: Data(), timeout: 30)
            XCTAssertEqual(r.status, 0, "\(shell): \(r.summary)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") {
            var env = ws.environment
            env["PATH"] = URL(fileURLWithPath: SXKBinary.path).deletingLastPathComponent().path + ":/usr/bin:/bin"
            let script = "source \(scripts.appendingPathComponent("sxk.fish").path); complete -C 'sxk ord'; complete -C 'sxk orders --ro'"
            let r = SXK.runProcess(["-c", script], executable: "/usr/bin/fish", env: env, stdin: Data(), timeout: 30)
            XCTAssertTrue(r.stdout.contains("orders\t"), r.summary)
            XCTAssertTrue(r.stdout.contains("--role\t"), r.summary)
        }
    }

    /// The bash script as bash runs it: values at their position, and words bash splits at ':' and '='
    /// (`role:p`, `--status=com`) completed whole.
    func testTheBashScriptCompletesInBash() throws {
        let ws = Workspace()
        var env = ws.environment
        env["PATH"] = URL(fileURLWithPath: SXKBinary.path).deletingLastPathComponent().path + ":/usr/bin:/bin"
        let script = Self.root.appendingPathComponent("completions/sxk.bash").path
        let driver = """
        source '\(script)'
        # As bash gives them: the line, and its words split at spaces, ':' and '='.
        t() { COMP_LINE="$1"; COMP_POINT=${#1}; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _sxk; echo "${COMPREPLY[*]}"; }
        t 'sxk compare --as role:p' sxk compare --as role : p
        t 'sxk orders --status=com' sxk orders --status = com
        t 'sxk set format ' sxk set format ''
        t 'sxk trace on ' sxk trace on ''
        t 'sxk --env r' sxk --env r
        t 'sxk trace ' sxk trace ''
        t 'sxk --base-url example.com completion ' sxk --base-url example.com completion ''
        t 'sxk --base-url http://127.0.0.1:9 ord' sxk --base-url http : //127.0.0.1 : 9 ord
        t 'sxk let x = ord' sxk let x = ord
        t 'sxk orders --status= ' sxk orders --status = ''
        """
        // A setting completion never uses, set wrongly, does not leave Tab with nothing.
        env["SXK_PERSIST"] = "bad"
        let r = SXK.runProcess(["-c", driver], executable: "/bin/bash", env: env, stdin: Data(), timeout: 30)
        XCTAssertEqual(r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                       ["photographer", "completed", "table json ndjson csv tsv", "", "release", "on off", "bash zsh fish", "orders", "orders", "", ""], r.summary)
    }

    /// File names with spaces and quotes complete as one word each: bash's own file completion
    /// for a path (`-o filenames`), and sxk's values escaped (`har save` completes through sxk).
    func testTheBashScriptKeepsFileNamesWhole() throws {
        let ws = Workspace()
        var env = ws.environment
        env["PATH"] = URL(fileURLWithPath: SXKBinary.path).deletingLastPathComponent().path + ":/usr/bin:/bin"
        let dir = ws.root + "/files"
        try FileManager.default.createDirectory(atPath: dir + "/dir with space", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/quo'te.json", contents: Data()))
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/a\"b c.json", contents: Data()))
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/dir with space/in side.har", contents: Data()))
        try FileManager.default.createDirectory(atPath: ws.home + "/files", withIntermediateDirectories: true)
        let script = Self.root.appendingPathComponent("completions/sxk.bash").path
        let driver = """
        source '\(script)'
        cd '\(dir)'
        t() { COMP_LINE="$1"; COMP_POINT=${#1}; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _sxk; printf '%s|' "${#COMPREPLY[@]}"; printf '%s\\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\\n' '|'; echo; }
        t 'sxk import-defaults ' sxk import-defaults ''
        t 'sxk --state-dir d' sxk --state-dir d
        t 'sxk har save q' sxk har save q
        t 'sxk har save d' sxk har save d
        t 'sxk har save dir\\ with\\ space/' sxk har save 'dir\\ with\\ space/'
        t 'sxk har save ~/' sxk har save '~/'
        t "sxk har save 'dir with space/i" sxk har save "'dir with space/i"
        t "sxk har save 'quo" sxk har save "'quo"
        t 'sxk har save "quo' sxk har save '"quo'
        t 'sxk har save "a\\"b' sxk har save '"a\\"b'
        """
        let r = SXK.runProcess(["-c", driver], executable: "/bin/bash", env: env, stdin: Data(), timeout: 30)
        XCTAssertEqual(r.stdout.split(separator: "\n").map(String.init),
                       ["3|a\"b c.json|dir with space|quo'te.json|", "1|dir with space|", "1|quo\\'te.json|", "1|dir\\ with\\ space/|",
                        "1|dir\\ with\\ space/in\\ side.har|", "1|~/files/|", "1|dir with space/in side.har|",
                        "1|quo'\\''te.json|", "1|quo'te.json|", "1|a\\\"b c.json|"], r.summary)
    }

    func testEverySpecParsesItsOwnExamples() throws {
        let specs = Builtins.merged(with: CommandCatalog.all)
        let parser = CommandParser(specs: specs)
        for spec in CommandCatalog.all {
            for example in spec.examples where !example.contains("|") && !example.contains("$") && !example.hasPrefix("echo") {
                let words = try Tokenizer.split(example).first ?? []
                XCTAssertNoThrow(try parser.parse(words), "example of \(spec.name) does not parse: \(example)")
            }
        }
    }

    func testMenuCatalogCoversEveryPermissionTheSandboxServes() {
        let catalog = MenuCatalogResource.catalog
        XCTAssertFalse(catalog.entries.isEmpty, "menu-catalog.json did not parse")
        for permission in SandboxCatalog.permissions {
            XCTAssertNotNil(catalog.entry(uri: permission.uri), "no menu for \(permission.uri)")
        }
    }
}
