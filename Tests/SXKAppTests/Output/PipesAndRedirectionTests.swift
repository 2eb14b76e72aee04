import Foundation
import XCTest

/// `CMD … | SHELL COMMAND`, `CMD … > FILE` and `>> FILE` in `-c` text and scripts: what the pipe or
/// file gets is the output for a non-terminal; targets that are not regular files are refused.
final class PipesAndRedirectionTests: SandboxTestCase {
    func testPipeAndRedirectInCommandText() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let csv = ws.root + "/orders.csv", count = ws.root + "/count.txt"
        let text = """
            orders --limit 3 --ndjson | wc -l > '\(count)'
            orders --limit 2 --csv > '\(csv)'; orders --limit 1 --csv >> '\(csv)'
            version | tr a-z A-Z; version
            """
        let r = SXK.run(["-c", text], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(try String(contentsOfFile: count, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), "3")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 5, "header and 2 rows, then header and 1 row appended: \(lines)")
        XCTAssertEqual(lines.first, lines[3])
        XCTAssertTrue(lines[0].hasPrefix("orderNo,"), "\(lines)")
        // `;` after the shell command ends it: the next `version` is sxk's, in order.
        XCTAssertTrue(r.stdout.hasPrefix("SXK "), r.summary)
        XCTAssertTrue(r.stdout.contains("\nsxk "), r.summary)
        XCTAssertFalse(r.stdout.contains("orderNo"), "nothing redirected reaches stdout: \(r.summary)")

        // A script runs the same way.
        let script = ws.root + "/script.sxk"
        try "orders --limit 2 --ndjson | wc -l > '\(count)'\n".write(toFile: script, atomically: true, encoding: .utf8)
        let s = SXK.run([script], in: ws, baseURL: url)
        XCTAssertEqual(s.status, 0, s.summary)
        XCTAssertEqual(try String(contentsOfFile: count, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), "2")
    }

    /// Quoted `|`, `>` and `;` are text: in sxk's words, and inside the shell command's own quotes.
    func testQuotedOperatorsAreText() throws {
        let ws = Workspace()
        SXK.login("13800000001", in: ws, baseURL: url)
        let r = SXK.run(["-c", "orders --limit 2 --jq '.list[] | .orderNo' | sed 's/;/x/; s/^SX/>>/'"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, r.summary)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix(">>2") }, r.summary)
    }

    /// The status is the command's when it fails (nothing is left running), else the shell command's.
    func testStatusOfAPipe() throws {
        let ws = Workspace()
        XCTAssertEqual(SXK.run(["-c", "version | exit 3"], in: ws, baseURL: url).status, 3)
        let failed = SXK.run(["-c", "orders | cat"], in: ws, baseURL: url)
        XCTAssertEqual(failed.status, 3, "not logged in: \(failed.summary)")
        let empty = SXK.run(["-c", "version |"], in: ws, baseURL: url)
        XCTAssertEqual(empty.status, 2, empty.summary)
        XCTAssertEqual(empty.errorLines.count, 1, empty.summary)
        let twice = SXK.run(["-c", "version > a > b"], in: ws, baseURL: url)
        XCTAssertEqual(twice.status, 2, twice.summary)
        let noName = SXK.run(["-c", "version >"], in: ws, baseURL: url)
        XCTAssertEqual(noName.status, 2, noName.summary)
        XCTAssertTrue(noName.stderr.contains("needs a file name"), noName.summary)
    }

    /// A directory, a FIFO, a device other than /dev/null and a symlink to a FIFO are refused at once
    /// (exit 2, one error line, nothing written and nothing blocked); a symlink to a regular file is
    /// written through.
    func testRedirectRefusesTargetsThatAreNotRegularFiles() throws {
        let ws = Workspace()
        let fifo = ws.root + "/fifo", link = ws.root + "/link-to-fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
        for target in [ws.root, fifo, link, "/dev/full", "/dev/zero"] {
            let r = SXK.run(["-c", "version > '\(target)'"], in: ws, baseURL: url, timeout: 10)
            XCTAssertFalse(r.timedOut, "blocked on \(target)")
            XCTAssertEqual(r.status, 2, "\(target): \(r.summary)")
            XCTAssertEqual(r.errorLines.count, 1, r.summary)
            XCTAssertTrue(r.stderr.contains("refusing to write \(target): it is a"), r.summary)
        }
        let file = ws.root + "/real.txt", fileLink = ws.root + "/link-to-file"
        try "old\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: fileLink, withDestinationPath: file)
        XCTAssertEqual(SXK.run(["-c", "version > '\(fileLink)'"], in: ws, baseURL: url).status, 0)
        XCTAssertTrue(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("sxk "))
    }

    /// `> /dev/null` and `>> /dev/null` throw the output away, as in sh, and the line goes on.
    func testRedirectToDevNullDiscards() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "config --json >/dev/null; version >> /dev/null; version"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.errorLines, [], r.summary)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 1, "only the last version is printed: \(r.summary)")
        XCTAssertTrue(r.stdout.hasPrefix("sxk "), r.summary)
    }

    /// The shell command gets stdin, stdout and stderr only: a descriptor sxk inherited without
    /// close-on-exec (7 here) does not reach it.
    func testPipeChildGetsOnlyTheStandardDescriptors() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "version | cat > /dev/null && ls /proc/$$/fd"], in: ws, baseURL: url,
                        wrapper: ["/bin/sh", "-c", "exec 7</dev/null; exec \"$@\"", "sh"])
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout.split(separator: "\n"), ["0", "1", "2"], r.summary)
    }

    /// The shell command starts with no signal blocked and SIGPIPE at its default (sxk ignores it
    /// for itself): `| head` ends a pipeline as it does in sh. The shell `exec`s grep, so grep reads
    /// the shell's own masks: dash blocks every signal around each fork, so reading the shell's
    /// status from a forked child would sometimes see that window instead.
    func testPipeChildGetsDefaultSignals() throws {
        let ws = Workspace()
        let r = SXK.run(["-c", "version | cat > /dev/null && exec grep -E '^Sig(Blk|Ign)' /proc/self/status"], in: ws, baseURL: url)
        XCTAssertEqual(r.status, 0, r.summary)
        var masks: [String: UInt64] = [:]
        for line in r.stdout.split(separator: "\n") {
            let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { masks[parts[0]] = UInt64(parts[1], radix: 16) }
        }
        XCTAssertEqual(masks["SigBlk"], 0, r.summary)
        XCTAssertEqual((masks["SigIgn"] ?? 1) & (1 << (UInt64(SIGPIPE) - 1)), 0, "SIGPIPE ignored in the child: \(r.summary)")
    }
}
