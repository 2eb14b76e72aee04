import SXKCore
import SXKShell

extension Commands {
    /// `curl [N] [--list] [--reveal-token]`: a request this shell sent, as a runnable curl command.
    enum Curl: AppCommand {
        static let spec = CommandSpec(
            "curl", summary: "print a request this shell sent as a runnable curl command",
            discussion: "Without N: the last request. N is a number from `curl --list`; -1 is the last, -2 the one before. The last 20 requests are kept, in memory only. The token header is written \"token: $SXK_TOKEN\" unless --reveal-token; a password in a body is always ***, and is never kept.",
            arguments: [ArgumentSpec("N", kind: .int, optional: true, summary: "request number, or -1, -2… counting back")],
            flags: [
                FlagSpec("list", summary: "list the kept requests with their numbers"),
                FlagSpec("reveal-token", summary: "write the token itself instead of $SXK_TOKEN"),
                FlagSpec("json", summary: "with --list: the list as JSON"),
            ],
            examples: ["curl", "curl --list", "curl 12", "curl -2 --reveal-token"]
        )

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.curl(command)
        }
    }
}

extension AppCommands {
    fileprivate func curl(_ command: ParsedCommand) throws -> CommandOutput {
        let ring = host.transport.ring
        let entries = ring.all
        if command.has("list") {
            return curlList(entries)
        }
        let asked = command.positionals.first.flatMap { Int($0) }
        if asked == 0 { throw AppError.usage("curl N: N is a request number from `curl --list`, or -1 for the last, -2 for the one before…") }
        guard let last = entries.last else {
            // A request named that is not kept is the same mistake whether or not any was sent (2).
            if let asked { throw AppError.usage("\(asked > 0 ? "request #\(asked) is not kept" : "no request is kept"): none sent yet in this shell") }
            throw AppError.failed("no request sent yet in this shell")
        }
        var chosen = last
        if let n = asked {
            let range = entries.count == 1 ? "#\(last.number)" : "#\(entries.first!.number)–#\(last.number)"
            if n < 0 {
                guard n >= -entries.count else {  // not `-n`: the lowest Int has no negation
                    throw AppError.usage("only \(entries.count) request\(entries.count == 1 ? " is" : "s are") kept (\(range))")
                }
                chosen = entries[entries.count + n]
            } else {
                guard let hit = entries.first(where: { $0.number == n }) else {
                    throw AppError.usage("request #\(n) is not kept; \(entries.count == 1 ? "the one kept is \(range)" : "the last \(entries.count) are \(range)") (`curl --list`)")
                }
                chosen = hit
            }
        }
        let reveal = command.has("reveal-token")
        let text = CurlCommand(request: chosen, revealToken: reveal).render()
        let warnings = warnings(for: chosen, reveal: reveal)
        var output = CommandOutput(data: ["number": .int(chosen.number), "method": .string(chosen.method),
                                          "url": .string(chosen.url), "command": .string(text)])
        // A command to copy: a wrapped line would run as two.
        output.blocks = [.verbatim(text.split(separator: "\n").map(String.init))]
        output.revealsSecrets = reveal
        output.warnings = warnings
        return output
    }

    /// What the printed command needs to run as the request did: warnings for the output, and the
    /// notes said at once and whole (each names what to do; a terminal-width cut would lose it).
    private func warnings(for request: RecordedRequest, reveal: Bool) -> [String] {
        var warnings: [String] = []
        if request.bodyOmitted { warnings.append("the body was not JSON and is not kept; the command has no body") }
        if let body = request.body, body.contains("\"***\"") {
            diagnostics.note("note: secret fields (password) are shown as *** and never kept — fill them in before running")
        }
        guard let token = request.token else { return warnings }
        if reveal {
            return warnings + ["the command holds the live token: keep it out of shell history, tickets and chats"]
        }
        let session = services.contexts.session.token
        if token != session {
            diagnostics.note("note: this request carried another token than the session's (a login's temporary token, another account, or an earlier session); $SXK_TOKEN must hold that one — --reveal-token prints it")
        } else if io.isInteractive {
            diagnostics.note("note: export SXK_TOKEN=\"$(cat \(CurlCommand.quote(services.paths.tokenFile)))\" first")
        }
        return warnings
    }

    private func curlList(_ entries: [RecordedRequest]) -> CommandOutput {
        let records: [JSONValue] = entries.map { e in
            var o: JSONObject = ["number": .int(e.number), "method": .string(e.method), "url": .string(e.url)]
            o["status"] = e.status.map { .int($0) } ?? .null
            o["failure"] = e.failure.map { .string($0) } ?? .null
            o["elapsedMs"] = e.elapsedMs.map { .double(($0 * 10).rounded() / 10) } ?? .null
            return .object(o)
        }
        var output = CommandOutput(data: .array(records))
        if entries.isEmpty {
            output.notes.append("(no request sent yet in this shell)")
            return output
        }
        // The table's rows add what it shows beside the record: the time sent, path, outcome.
        let rows: [JSONValue] = zip(entries, records).reversed().map { e, record in
            var o = record.objectValue ?? JSONObject()
            o["sent"] = .string(LocalTime.clock(e.time))  // README "Times"
            o["request"] = .string(e.pathAndQuery)
            o["outcome"] = .string(e.outcome)
            o["elapsed"] = .string(e.elapsedMs.map(NumberText.milliseconds) ?? "")
            return .object(o)
        }
        output.table([
            OutputColumn("number", "#", alignment: .right, priority: 90, cuttable: false),
            OutputColumn("sent", "SENT", priority: 40, cuttable: false),
            OutputColumn("method", "METHOD", priority: 70, cuttable: false),
            OutputColumn("request", "REQUEST", priority: 80),
            OutputColumn("outcome", "STATUS", priority: 60),
            OutputColumn("elapsed", "ELAPSED", alignment: .right, priority: 50, cuttable: false),
        ], rows)
        return output
    }
}
