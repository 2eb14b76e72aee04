import SXKFeatures
import SXKShell

extension Commands {
    // context diff needs a token, not a validation (that would save over the state it compares).
    enum Context: AppCommand {
        static let spec = CommandSpec(
            "context", summary: "the session (as whoami); context diff: the stored state beside the server now",
            flags: tableOutput,
            subcommands: [
                CommandSpec(
                    "diff", summary: "stored keys beside fresh userinfo, role-permission and store list; what the next start would do",
                    discussion: "Read-only: the calls are made with the session's token but nothing is saved and no context changes, so an imported device state stays as imported. A rejected token is an answer: the diff says so and what the next start does, exit 0 (as home); a call that got no answer ends it, exit 4; 3 without a token. A location detail call that fails leaves the dialog undecided and, as in home, exits 4 when it got no answer and 1 when it got an error answer.",
                    flags: tableOutput
                ),
            ],
            examples: ["context diff", "context diff --json"]
        )

        static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool { words.first == "diff" }
        static func showsSession(_ command: ParsedCommand) -> Bool { command.subcommand == nil }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            command.subcommand == "diff" ? try await app.contextDiff(command) : try app.whoami(command)
        }
    }
}

extension AppCommands {
    /// `context diff`: needs a token, not a validation first (that would save over the state it compares).
    fileprivate func contextDiff(_ command: ParsedCommand) async throws -> CommandOutput {
        let s = services
        let network = try s.network()
        let diff = try await ContextDiffFeature(account: network.account, commerce: network.commerce, operation: network.operation,
                                                guard: s.sessionGuard, catalog: s.menuCatalog, clock: s.clock).diff()
        var out = CommandOutput(data: diff.json)
        // A replayed call that failed (the location detail) is the run's status, as it is `home`'s.
        out.status = diff.home.failureStatus
        out.warnings += diff.home.failureLines
        let columns = [
            OutputColumn("key", "KEY", priority: 90),
            OutputColumn("stored", "STORED", priority: 70),
            OutputColumn("server", "SERVER NOW", priority: 70),
            OutputColumn("same", "MATCH", priority: 80, cuttable: false) { $0.objectValue?["same"] == .bool(true) ? "same" : "DIFFERS" },
        ]
        if let why = diff.whyNoRows {
            out.line(why)
            // No server side to compare (a rejected token is an answer): `--csv` prints the header and
            // no row, as for any empty list, whatever the server said.
            out.rows = OutputTable(columns: columns, rows: [])
        } else {
            // Where the terminal would cut a side of a difference, the rows print as records whose values
            // wrap instead: a cut to the same prefix on both sides would hide the very difference shown.
            // Rows that are the same may be cut.
            out.readWhole = true
            out.blocks.append(.table(OutputTable(columns: columns, rows: diff.rows.map(\.json),
                                                 mustShowWhole: { $0.objectValue?["same"] != .bool(true) })))
        }
        out.line("")
        if diff.home.sessionExpired {
            out.line("the server rejected the token: at its next start the app would clear the login state and show the login page  \(Rules.sessionExpiry.marker)")
        }
        out.line("at the app's next start (the home replayed with these answers, \(diff.home.changes.count) key\(diff.home.changes.count == 1 ? "" : "s") written):")
        for step in diff.nextStart { out.line("   " + step.line) }
        out.line(diff.calls.isEmpty ? "no call made (the server rejected this token earlier in this process); nothing saved"
                 : "read-only: \(diff.calls.map { "\($0.method) \($0.path)" }.joined(separator: ", ")); nothing saved")
        return out
    }
}
