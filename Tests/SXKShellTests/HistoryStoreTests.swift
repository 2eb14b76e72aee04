import Foundation
import XCTest
@testable import SXKShell

final class HistoryStoreTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "sxk-hist-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func mode(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! Int
    }

    func testFilterRules() {
        let specs = Builtins.merged(with: Fixtures.specs)
        XCTAssertTrue(HistoryStore.shouldPersist("orders --all", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist(" orders --all", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("login 13800000001", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("version; login", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("help login", specs: specs))
        // A pipe or a redirection is the shell's: the command before it is what is checked.
        XCTAssertTrue(HistoryStore.shouldPersist("version | cat", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("version > /tmp/out", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("help version | head -1", specs: specs))
        // Looked through: `let NAME =` and aliases.
        let aliases = AliasTable()
        XCTAssertNoThrow(try aliases.define("li", as: "login 13800000001", isCommand: { _ in true }))
        XCTAssertFalse(HistoryStore.shouldPersist("let x = login 13800000001", specs: specs, aliases: aliases))
        XCTAssertFalse(HistoryStore.shouldPersist("li --password-stdin", specs: specs, aliases: aliases))
        XCTAssertFalse(HistoryStore.shouldPersist("version; let y = li", specs: specs, aliases: aliases))
        XCTAssertTrue(HistoryStore.shouldPersist("let x = orders .total", specs: specs, aliases: aliases))
        XCTAssertNoThrow(try aliases.define("orders", as: "login 13800000001", isCommand: { _ in true }))
        XCTAssertFalse(HistoryStore.shouldPersist("orders --all", specs: specs, aliases: aliases))
        XCTAssertTrue(HistoryStore.shouldPersist("\\orders --all", specs: specs, aliases: aliases), "an escaped word is no alias")
        // A password typed as a word, in a raw call or inside a let.
        XCTAssertFalse(HistoryStore.shouldPersist("post /api/app/v9/login username=13800000001 password=sandbox123", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("let t = post /api/app/v9/login '{\"username\":\"1\",\"pwd\":\"x\"}' .token", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("get /api/x keyword=password", specs: specs), "only the key names a secret")
    }

    /// A line the parser rejects as an unknown command (a password typed after a failed `login`)
    /// stays out of the file; so does one whose command word is only known once variables expand.
    func testUnknownCommandLinesStayOut() {
        let specs = Builtins.merged(with: Fixtures.specs)
        XCTAssertFalse(HistoryStore.shouldPersist("sandbox123", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("orders --all; sandbox123", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("pa$word", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("\\li", specs: specs), "an escaped word is no alias, so unknown")
        XCTAssertTrue(HistoryStore.shouldPersist("o --all; version", specs: specs), "a command's short name is known")
        XCTAssertTrue(HistoryStore.shouldPersist("let x = $y .total", specs: specs), "what follows let = need not be a command")
        XCTAssertTrue(HistoryStore.shouldPersist("let x = .total", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("let x = orders --all .total", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("let x = sandbox123", specs: specs), "runs as an unknown command")
        let aliases = AliasTable()
        XCTAssertNoThrow(try aliases.define("so", as: "orders --role storeAdmin", isCommand: { _ in true }))
        XCTAssertTrue(HistoryStore.shouldPersist("so --all", specs: specs, aliases: aliases))
    }

    /// A line the parser rejects for its words (a usage error, perhaps a password typed in the
    /// wrong place) stays out, and names are secret by the one rule: any name ending in a secret word.
    func testUsageErrorsAndEverySecretFamilyStayOut() {
        let specs = Builtins.merged(with: Fixtures.specs)
        XCTAssertFalse(HistoryStore.shouldPersist("orders Shadow!pass-7Q", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("orders --no-such-flag", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("orders --all", specs: specs))
        for line in [#"post /api/x '{"oldPassword":"OLD-1","newPassword":"NEW-2"}'"#, "get /api/x refresh_token=RT-3333",
                     "get /api/x X-Api-Key=AK-QUERY", "get /api/x pass_word=x", "get /api/x client-secret=y",
                     #"post /api/x '{"a":[{"sessionId":"s"}]}'"#,
                     // A secret pair after the first of a path's own query, or under an encoded name.
                     "get '/api/x?a=1&refresh_token=RT-4444'", "get '/api/x?pass%77ord=PW-5555'",
                     // A URL inside a body or a value is no typed query: the body's own rule applies.
                     #"post /api/x '{"cb":"https://h/x?y=1","password":"PW-6666"}'"#, "post /api/x 'password=https://h/?q=PW-7777'",
                     // A path or URL value of a JSON word with a secret pair in its own query.
                     #"post /api/x '{"u":"/y?token=TK-8888"}'"#,
                     // The same as the value of an item of another name, and behind `name:=`.
                     "post /api/x u=/y?token=TK-10", "post /api/x 'cb=https://h/y?a=1&token=TK-11'", #"post /api/x 'data:={"u":"/y?token=TK-12"}'"#] {
            XCTAssertFalse(HistoryStore.shouldPersist(line, specs: specs), line)
        }
        XCTAssertTrue(HistoryStore.shouldPersist("get /api/x passport=E1 tokenCount=2", specs: specs))
        // A `?` in a value is no query: the same rule as what the line shows back (`Redaction.maskWord`).
        XCTAssertTrue(HistoryStore.shouldPersist("get /api/x keyword=a?password=b", specs: specs))
    }

    /// Every item `get`/`post` take names its value: a header (`X-Password:…`) and a raw JSON field
    /// (`password:=…`) are secret by their name as a `k=v` field is; the first separator decides.
    func testSecretHeadersAndJSONFieldsStayOut() {
        let specs = Builtins.merged(with: Fixtures.specs)
        for line in ["get /api/x X-Password:hunter22", "get /api/x token:abcdef0123456789", #"post /api/x password:="sandbox123""#,
                     "get /api/x Authorization:Bearer-x", "get /api/x pin:=1234"] {
            XCTAssertFalse(HistoryStore.shouldPersist(line, specs: specs), line)
        }
        XCTAssertTrue(HistoryStore.shouldPersist("get /api/x X-Trace:on q=a:b page:=2", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("get /api/x q=token:x", specs: specs), "the value of a plain field")
        // A path is no header: its `:` names nothing, and a query's secret after it still counts.
        XCTAssertFalse(HistoryStore.shouldPersist("get /api/x:y?password=hunter9", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("get /api/session:list", specs: specs))
    }

    /// Secret names match in any case, as a `k=v` word or a JSON member at any depth.
    func testSecretNamesMatchInAnyCase() {
        let specs = Builtins.merged(with: Fixtures.specs)
        for line in ["get /api/x Token=abc", "get /api/x PASSWORD=sandbox123", "get /api/x accesstoken=t",
                     "get /api/x Access_Token=t", #"get /api/x '{"a":{"PassWord":"x"}}'"#, #"get /api/x '[{"TOKEN":"x"}]'"#] {
            XCTAssertFalse(HistoryStore.shouldPersist(line, specs: specs), line)
        }
        XCTAssertTrue(HistoryStore.shouldPersist("get /api/x Tokens=abc", specs: specs), "only whole names")
        XCTAssertTrue(HistoryStore.shouldPersist(#"get /api/x '{"name":"password"}'"#, specs: specs), "a value is no name")
    }

    /// `alias x='get … password=…'` carries the secret in its body: the definition stays out, and so
    /// does any line that expands to it.
    func testAliasBodiesAreChecked() throws {
        let specs = Builtins.merged(with: Fixtures.specs)
        XCTAssertFalse(HistoryStore.shouldPersist("alias x='get /api/app/v9/login password=sandbox123'", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("alias x='get /api/x Token=abc'", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist("alias li='login 13800000001'", specs: specs))
        XCTAssertFalse(HistoryStore.shouldPersist(#"alias x="get /api/x '{\"pwd\":\"1\"}'""#, specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("alias so='orders --role storeAdmin'", specs: specs))
        XCTAssertTrue(HistoryStore.shouldPersist("alias", specs: specs))
        let aliases = AliasTable()
        try aliases.define("x", as: "get /api/x PassWord=sandbox123", isCommand: { _ in true })
        try aliases.define("y", as: "x", isCommand: { _ in true })
        XCTAssertFalse(HistoryStore.shouldPersist("x", specs: specs, aliases: aliases))
        XCTAssertFalse(HistoryStore.shouldPersist("version; y --all", specs: specs, aliases: aliases))
        XCTAssertFalse(HistoryStore.shouldPersist("let v = y", specs: specs, aliases: aliases))
    }

    /// The command `watch` or `compare` runs is read as they run it, its alias expanded: a working
    /// line is kept, one whose alias hides a secret or is refused there stays out.
    func testTheCommandAPassingCommandRunsIsReadThroughItsAlias() throws {
        let compare = CommandSpec("compare", summary: "compare",
                                  arguments: [ArgumentSpec("COMMAND", kind: .choice(["get", "orders"]), summary: "request"),
                                              ArgumentSpec("ARGS", optional: true, variadic: true, summary: "its words")],
                                  flags: [FlagSpec("as", value: .string, valueName: "IDS", summary: "identities")]).passingCommand()
        let specs = Builtins.merged(with: Fixtures.specs + [compare])
        let aliases = AliasTable()
        try aliases.define("two", as: "orders --all", isCommand: { _ in true })
        try aliases.define("secret", as: "get /api/x PassWord=sandbox123", isCommand: { _ in true })
        try aliases.define("flags", as: "--as role:a orders", isCommand: { _ in true })
        XCTAssertTrue(HistoryStore.shouldPersist("compare --as role:a two", specs: specs, aliases: aliases))
        XCTAssertTrue(HistoryStore.shouldPersist("compare --as role:a -- two", specs: specs, aliases: aliases))
        XCTAssertFalse(HistoryStore.shouldPersist("compare --as role:a secret", specs: specs, aliases: aliases))
        XCTAssertFalse(HistoryStore.shouldPersist("compare flags", specs: specs, aliases: aliases))
        XCTAssertFalse(HistoryStore.shouldPersist("compare --as role:a nothing", specs: specs, aliases: aliases))
        // A flag's value made by a variable is not checked before the line runs: the alias is read.
        let watch = CommandSpec("watch", summary: "watch",
                                arguments: [ArgumentSpec("COMMAND", summary: "command"), ArgumentSpec("ARGS", optional: true, variadic: true, summary: "its words")],
                                flags: [FlagSpec("interval", short: "n", value: .double, valueName: "S", summary: "seconds"),
                                        FlagSpec("differences", short: "d", summary: "marks")]).passingCommand()
        let withWatch = Builtins.merged(with: Fixtures.specs + [watch])
        for line in ["watch -n $n secret", "watch --interval=$n secret", "watch -dn $n secret", "watch -n$n secret"] {
            XCTAssertFalse(HistoryStore.shouldPersist(line, specs: withWatch, aliases: aliases), line)
        }
        XCTAssertTrue(HistoryStore.shouldPersist("watch -dn $n two", specs: withWatch, aliases: aliases))
    }

    func testTwoSaversMergeAndFilterUnderUmaskZero() throws {
        let path = dir + "/profile/history"
        let old = umask(0)
        defer { umask(old) }

        let a = HistoryStore(path: path)
        let b = HistoryStore(path: path)
        a.load()
        b.load()
        a.add("orders --all", persist: true)
        a.add(" secret", persist: false)
        b.add("scenic 西湖景区", persist: true)
        a.add("login 13800000001", persist: false)
        try a.save()
        try b.save()
        b.add("stats daily", persist: true)
        try b.save()

        XCTAssertEqual(HistoryStore.read(path: path), ["orders --all", "scenic 西湖景区", "stats daily"])
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertEqual(try mode(dir + "/profile"), 0o700)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("_HiStOrY_V2_\n"))
        XCTAssertTrue(text.contains("orders\\040--all"))
        XCTAssertFalse(text.contains("secret"))
        XCTAssertFalse(text.contains("login"))
        // Recall within the session still has every line.
        XCTAssertEqual(a.entries, ["orders --all", " secret", "login 13800000001"])
        // No temp files left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir + "/profile").filter { $0.contains("tmp") }
        XCTAssertEqual(leftovers, [])
        // A new session loads the merged file.
        let c = HistoryStore(path: path)
        c.load()
        XCTAssertEqual(c.entries, ["orders --all", "scenic 西湖景区", "stats daily"])
    }

    /// A line found to be a usage error once it ran is kept out of the file, not out of recall.
    func testTheLastLineCanBeKeptOutOfTheFile() throws {
        let path = dir + "/profile/history"
        let a = HistoryStore(path: path)
        a.add("orders --limit 0", persist: true)
        a.keepLastOutOfFile()
        a.add("version", persist: true)
        try a.save()
        a.keepLastOutOfFile()  // already saved: nothing to take back
        XCTAssertEqual(HistoryStore.read(path: path), ["version"])
        XCTAssertEqual(a.entries, ["orders --limit 0", "version"])
    }

    /// A history file past 16 MB is neither read (seconds and a gigabyte at every start) nor replaced
    /// by one session's lines.
    func testAHugeHistoryFileIsNeitherReadNorReplaced() throws {
        let path = dir + "/profile/history"
        try FileManager.default.createDirectory(atPath: dir + "/profile", withIntermediateDirectories: true)
        let big = "_HiStOrY_V2_\n" + String(repeating: "x", count: HistoryStore.maxFileBytes) + "\n"
        try big.write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(path, 0o600), 0)
        let a = HistoryStore(path: path)
        a.load()
        XCTAssertEqual(a.entries, [])
        XCTAssertTrue(a.refusal?.contains("larger than 16 MB") == true, "\(String(describing: a.refusal))")
        a.add("version", persist: true)
        XCTAssertThrowsError(try a.save()) { XCTAssertTrue("\($0)".contains("larger than 16 MB"), "\($0)") }
        // A link where the file was is refused, and said, not silently replaced.
        let linked = dir + "/profile/linked"
        XCTAssertEqual(symlink(path, linked), 0)
        let b = HistoryStore(path: linked)
        b.load()
        XCTAssertTrue(b.refusal?.contains("not a regular file of this user") == true, "\(String(describing: b.refusal))")
        XCTAssertNil({ let c = HistoryStore(path: dir + "/profile/none"); c.load(); return c.refusal }())
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, big.utf8.count)
    }

    /// A `history.lock` another process holds does not keep a shell from ending: the save gives up
    /// after a bounded wait with one line.
    func testAHeldLockIsWaitedForABoundedTime() throws {
        let path = dir + "/profile/history"
        try FileManager.default.createDirectory(atPath: dir + "/profile", withIntermediateDirectories: true)
        let holder = open(path + ".lock", O_RDWR | O_CREAT, 0o600)
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        defer { close(holder) }
        let a = HistoryStore(path: path)
        a.add("version", persist: true)
        let started = Date()
        XCTAssertThrowsError(try a.save()) { XCTAssertTrue("\($0)".contains("held by another process"), "\($0)") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
        _ = flock(holder, LOCK_UN)
        try a.save()
        XCTAssertEqual(HistoryStore.read(path: path), ["version"])
    }

    /// A planted `history.lock` symlink is not followed (it made sxk create its target) and a
    /// symlinked history file is not read; the save fails with one line and writes nothing.
    func testPlantedLockSymlinkIsNotFollowed() throws {
        let path = dir + "/profile/history"
        try FileManager.default.createDirectory(atPath: dir + "/profile", withIntermediateDirectories: true)
        let elsewhere = dir + "/elsewhere"
        XCTAssertEqual(symlink(elsewhere, path + ".lock"), 0)
        let store = HistoryStore(path: path)
        store.add("orders --all", persist: true)
        XCTAssertThrowsError(try store.save()) { error in
            XCTAssertEqual("\(error)", "cannot save history: refusing \(path).lock: it is a symbolic link")
        }
        var st = stat()
        XCTAssertNotEqual(lstat(elsewhere, &st), 0, "the lock symlink was followed")
        XCTAssertNotEqual(lstat(path, &st), 0)

        unlink(path + ".lock")
        let secret = dir + "/secret"
        try "_HiStOrY_V2_\nsecret\\040line\n".write(toFile: secret, atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(secret, path), 0)
        XCTAssertEqual(HistoryStore.read(path: path), [], "a symlinked history file was read")
        try store.save()
        XCTAssertEqual(HistoryStore.read(path: path), ["orders --all"], "the save replaced the link with a file")
        XCTAssertEqual(try String(contentsOfFile: secret, encoding: .utf8), "_HiStOrY_V2_\nsecret\\040line\n")
    }

    func testNothingToSaveLeavesNoFile() throws {
        let path = dir + "/history"
        let s = HistoryStore(path: path)
        s.add(" hidden", persist: false)
        try s.save()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// The state files' rule: a history file others could have written is not read (its lines
    /// could be planted); one they could only read is made private.
    func testALooseHistoryFileIsRefusedOrTightened() throws {
        let path = dir + "/history"
        let s = HistoryStore(path: path)
        s.add("orders --all", persist: true)
        try s.save()
        chmod(path, 0o644)
        XCTAssertEqual(HistoryStore.read(path: path), ["orders --all"])
        XCTAssertEqual(try mode(path), 0o600)
        chmod(path, 0o666)
        XCTAssertEqual(HistoryStore.read(path: path), [])
        XCTAssertEqual(try mode(path), 0o666, "refused, left for the next save to replace")
    }
}

/// History lines with where they ran: stored in libedit's own file, stripped for recall.
final class HistoryContextTests: XCTestCase {
    var dir: String!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "sxk-histctx-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    let storeAdmin = HistoryContext(profile: "test", environment: "test", role: "storeAdmin", scenicId: "1", scenicName: "西湖 景区", storeId: "101", time: 1_700_000_000)

    func testContextRoundTripsAndRecallSeesTheCommandOnly() throws {
        let path = dir + "/history"
        let a = HistoryStore(path: path)
        a.load()
        a.add("orders --keyword '#1'", persist: true, context: storeAdmin)
        a.add("version", persist: true)
        try a.save()

        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("_HiStOrY_V2_\n"), text)
        // Recall (what LibeditLineReader enters into the editor) and `read` give the command alone.
        XCTAssertEqual(HistoryStore.read(path: path), ["orders --keyword '#1'", "version"])
        let entries = HistoryStore.readEntries(path: path)
        XCTAssertEqual(entries.map(\.context), [storeAdmin, nil])
        let b = HistoryStore(path: path)
        b.load()
        XCTAssertEqual(b.entries, ["orders --keyword '#1'", "version"])
        XCTAssertEqual(b.records.first?.context?.label, "test storeAdmin@西湖 景区/101")
        // The stored line is a command followed by a comment, so an older sxk recalling it runs the same words.
        let stored = HistoryStore.readStored(path: path, limit: 10)[0]
        XCTAssertEqual(try Tokenizer.split(stored), [["orders", "--keyword", "#1"]])
    }

    func testTwoShellsWithContextsMergeAndOldLinesStay() throws {
        let path = dir + "/history"
        // A file written before contexts existed.
        let old = HistoryStore(path: path)
        old.add("whoami", persist: true)
        try old.save()
        let a = HistoryStore(path: path), b = HistoryStore(path: path)
        a.load()
        b.load()
        var photographer = storeAdmin
        photographer.role = "photographer"
        photographer.storeId = nil
        a.add("orders", persist: true, context: storeAdmin)
        b.add("stats", persist: true, context: photographer)
        a.add(" hidden", persist: false, context: storeAdmin)
        try a.save()
        try b.save()
        let entries = HistoryStore.readEntries(path: path)
        XCTAssertEqual(entries.map(\.line), ["whoami", "orders", "stats"])
        XCTAssertEqual(entries.map { $0.context?.role }, [nil, "storeAdmin", "photographer"])
        XCTAssertTrue(entries[1].context!.sameScope(as: storeAdmin))
        XCTAssertFalse(entries[2].context!.sameScope(as: storeAdmin))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o600)
    }

    func testALineThatOnlyLooksLikeAContextStaysWhole() {
        let line = "post /x '{\"a\":1}'\t#@sxk not json"
        XCTAssertEqual(HistoryEntry(stored: line), HistoryEntry(line: line))
        XCTAssertEqual(HistoryEntry(stored: "plain"), HistoryEntry(line: "plain"))
    }

    /// A relative history path (HOME set to a relative folder) makes its folders from the working directory.
    func testARelativeFolderIsMadeFromTheWorkingDirectory() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sxk-rel-\(getpid())").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let before = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(base))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(before) }
        try HistoryStore.makeDirectory("home/.config/sxk")
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: base + "/home/.config/sxk", isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}

/// `history` lists a recalled line with each secret-carrying word masked by the filter's own rule.
final class HistoryListingTests: XCTestCase {
    func testEveryWordTheFilterCallsSecretIsMaskedInTheListing() {
        let token = "sxk_29ea0a4e6a0b11f2a9c3"
        XCTAssertEqual(Shell.shownLine("get /api/app/config X-Api-Key:abcdef123 a=1", secrets: []), "get /api/app/config 'X-Api-Key:***' a=1")
        XCTAssertEqual(Shell.shownLine("post /x password=hunter2", secrets: []), "post /x 'password=***'")
        XCTAssertEqual(Shell.shownLine("post /x '{\"pwd\":\"s3cret\"}'", secrets: []), "post /x '{\"pwd\":\"***\"}'")
        // A path value with a secret pair in its query: masked in place, as the filter keeps it out.
        XCTAssertEqual(Shell.shownLine("post /x '{\"u\":\"/y?a=1&token=TK-8888\"}'", secrets: []), "post /x '{\"u\":\"/y?a=1&token=***\"}'")
        XCTAssertEqual(Shell.shownLine("post /x cb=/y?token=TK-10", secrets: []), "post /x 'cb=/y?token=***'")
        XCTAssertEqual(Shell.shownLine("post /x 'data:={\"u\":\"/y?token=TK-12\"}'", secrets: []), "post /x 'data:={\"u\":\"/y?token=***\"}'")
        // A value that is neither a path nor JSON stays as typed, whatever it holds.
        XCTAssertEqual(Shell.shownLine("orders --keyword keyword=a?b", secrets: []), "orders --keyword keyword=a?b")
        // The live token, however it was quoted apart, shows no part of itself.
        let split = "get /x q='sxk_29ea0a'\"4e6a0b11f2a9c3\""
        let shown = Shell.shownLine(split, secrets: [token])
        XCTAssertFalse(shown.contains("sxk_29ea0a"), shown)
        XCTAssertEqual(Shell.shownLine("orders --limit 5", secrets: [token]), "orders --limit 5")
    }
    /// A password typed where login or switch-account takes none is masked whole in the listing (the
    /// line is in this shell's memory only): the usage error did not echo it either. A flag's value and
    /// the words it has a place for stay as typed.
    func testWordsAPasswordReadingCommandHasNoPlaceForAreMasked() {
        let login = CommandSpec("login", summary: "log in", arguments: [ArgumentSpec("PHONE", optional: true, summary: "phone", typedInPlace: .phone)],
                                flags: [FlagSpec("account", value: .string, valueName: "ID", summary: "account"), FlagSpec("password-stdin", summary: "stdin")],
                                neverInHistory: true)
        let switchAccount = CommandSpec("switch-account", summary: "switch",
                                        arguments: [ArgumentSpec("ACCOUNT", optional: true, summary: "account", typedInPlace: .account)],
                                        neverInHistory: true)
        let specs = [login, switchAccount]
        // A word where the phone or the account goes that cannot be one: a password typed in its place.
        XCTAssertEqual(Shell.shownLine("login hunter2secret", secrets: [], specs: specs), "login '***'")
        XCTAssertEqual(Shell.shownLine("login 1234", secrets: [], specs: specs), "login '***'", "a PIN is not a phone mistyped")
        XCTAssertEqual(Shell.shownLine("login 138-0000-0001", secrets: [], specs: specs), "login 138-0000-0001")
        XCTAssertEqual(Shell.shownLine("switch-account hunter2secret", secrets: [], specs: specs), "switch-account '***'")
        XCTAssertEqual(Shell.shownLine(#"switch-account "Pa$$w0rd""#, secrets: [], specs: specs), "switch-account '***'")
        XCTAssertEqual(Shell.shownLine("switch-account My$ecret", secrets: [], specs: specs), "switch-account '***'")
        for shown in ["switch-account 2", "switch-account 4001:store", "switch-account -", "switch-account $a", "login ${phone}"] {
            XCTAssertEqual(Shell.shownLine(shown, secrets: [], specs: specs), shown)
        }
        XCTAssertEqual(Shell.shownLine("login 13800000001 Secr3tPw", secrets: [], specs: specs), "login 13800000001 '***'")
        XCTAssertEqual(Shell.shownLine("login --account 2 13800000001 Secr3tPw --password-stdin", secrets: [], specs: specs),
                       "login --account 2 13800000001 '***' --password-stdin")
        XCTAssertEqual(Shell.shownLine("login 13800000001; orders a b", secrets: [], specs: specs), "login 13800000001; orders a b")
        XCTAssertEqual(Shell.shownLine("login -- 13800000001 pw2", secrets: [], specs: specs), "login -- 13800000001 '***'")
    }
}
