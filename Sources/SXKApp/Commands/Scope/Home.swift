import SXKFeatures
import SXKShell

extension Commands {
    // Not validated first: that would save over an imported state before the replay reads it.
    /// `home`: the app's home initialisation replayed on a copy of the stored state
    /// (docs/app-behaviour.md#replays). Every step names its basis; the key diff shows what the app
    /// would write, and `--apply` writes exactly that.
    enum Home: AppCommand {
        static let spec = CommandSpec(
            "home", summary: "replay HomeViewModel.initialize on a copy: steps with their basis, calls, key diff, the dialog",
            discussion: "Runs on a copy of the stored state, without validating the session first: the calls the app would make are made (--offline: none, the stored answers stand in) and listed in order, each step says whether the app's documents state its rule ([documented: seed …]) or sxk inferred it ([inferred: docs/app-behaviour.md#…]), and what the app would write is shown as a key diff (before → after). Nothing is saved unless --apply. Exit 4 when a call got no answer, 1 when one got an error answer, else 0 (a rejected token included: the replay follows it to the login page); 3 without a token.",
            flags: [
                FlagSpec("offline", summary: "make no call: the stored answers stand in"),
                FlagSpec("apply", summary: "write the key diff to the profile"),
                json,
            ],
            examples: ["home", "home --offline --json", "home --apply"]
        )

        static func sendsAtOnce(_ words: ArraySlice<String>) -> Bool { !words.contains("--offline") }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.home(command)
        }
    }
}

extension AppCommands {
    fileprivate func home(_ command: ParsedCommand) async throws -> CommandOutput {
        let apply = command.has("apply")
        let trace = try await host.features().home.initializeReplay(offline: command.has("offline"), apply: apply)
        if apply { host.contextOrigin = "home --apply" }
        var out = CommandOutput(data: trace.json)
        // What the app would do is shown whatever the calls got; a call that got no answer or an
        // error answer is the run's status, so a script can tell a replay that reached the server.
        out.status = trace.failureStatus
        out.warnings += trace.failureLines
        out.line(trace.offline
            ? "HomeViewModel.initialize replayed on a copy of the stored state, offline: no call made, stored answers used"
            : trace.sessionExpired && trace.calls.allSatisfy({ !$0.made })
            ? "HomeViewModel.initialize replayed on a copy of the stored state: no call made (the server rejected this token earlier in this process)"
            : apply
            ? "HomeViewModel.initialize replayed on a copy of the stored state: the app's calls made; --apply writes what it would store (below)"
            : "HomeViewModel.initialize replayed on a copy of the stored state: the app's calls made, nothing saved")
        out.line(Self.basisLegend)
        out.line("")
        for (i, step) in trace.steps.enumerated() {
            out.line("\(i + 1). \(step.name)\(step.skipped ? "  (skipped)" : "")  \(step.rule.marker)")
            for read in step.reads { out.line("   read   \(read)") }
            for call in step.calls { out.line("   call   " + Self.callText(call)) }
            for stored in step.stores { out.line("   store  \(stored)") }
            for note in step.notes { out.line("   note   \(note)") }
        }
        out.line("")
        out.line("calls in order:")
        if trace.calls.isEmpty { out.line("   (none)") }
        for call in trace.calls.sorted(by: { $0.order < $1.order }) { out.line("   " + Self.callText(call)) }
        out.line("")
        out.line("dialogs (priority order, \(Rules.dialogPriority.marker)):")
        for check in trace.checks { out.line(Self.dialogLine(check)) }
        if trace.sessionExpired { out.line("   (not evaluated: the server rejected the token, the app leaves the home)") }
        out.line("→ \(trace.verdict)  \(trace.verdictRule.marker)")
        Self.appendChanges(trace.changes, applied: trace.applied, hint: "home --apply", to: &out)
        return out
    }
}
