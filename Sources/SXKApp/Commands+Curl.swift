import Foundation
import SXKCore
import SXKShell

/// `curl [N] [--list] [--reveal-token]`: a request this shell sent, as a runnable curl command.
extension AppCommands {
    func curl(_ command: ParsedCommand) throws -> Int32 {
        let ring = host.transport.ring
        let entries = ring.all
        if command.has("list") {
            return curlList(entries, command)
        }
        guard let last = entries.last else {
            throw AppError.failed("no request sent yet in this shell")
        }
        var chosen = last
        if let text = command.positionals.first, let n = Int(text) {
            guard n != 0 else { throw AppError.usage("curl N: N is a request number from `curl --list`, or -1 for the last, -2 for the one before…") }
            let range = "#\(entries.first!.number)–#\(last.number)"
            if n < 0 {
                guard -n <= entries.count else {
                    throw AppError.usage("only \(entries.count) request\(entries.count == 1 ? " is" : "s are") kept (\(range))")
                }
                chosen = entries[entries.count + n]
            } else {
                guard let hit = entries.first(where: { $0.number == n }) else {
                    throw AppError.usage("request #\(n) is not kept; the last \(entries.count) are \(range) (`curl --list`)")
                }
                chosen = hit
            }
        }
        let reveal = command.has("reveal-token")
        io.stdout.write(CurlCommand(request: chosen, revealToken: reveal).render())
        notes(for: chosen, reveal: reveal)
        return ExitStatus.ok
    }

    /// What the printed command needs to run as the request did, on stderr.
    private func notes(for request: RecordedRequest, reveal: Bool) {
        if request.bodyOmitted { io.warning("the body was not JSON and is not kept; the command has no body") }
        if let body = request.body, body.contains("\"***\"") {
            io.stderr.write("note: secret fields (password) are shown as *** and never kept — fill them in before running\n")
        }
        guard let token = request.token else { return }
        if reveal {
            io.warning("the command holds the live token: keep it out of shell history, tickets and chats")
            return
        }
        let session = services.contexts.session.token
        if token != session {
            io.stderr.write("note: this request carried another token than the session's (a login's temporary token, another account, or an earlier session); $SXK_TOKEN must hold that one — --reveal-token prints it\n")
        } else if io.isInteractive {
            io.stderr.write("note: export SXK_TOKEN=\"$(cat \(CurlCommand.quote(services.paths.tokenFile)))\" first\n")
        }
    }

    private func curlList(_ entries: [RecordedRequest], _ command: ParsedCommand) -> Int32 {
        if wantsJSON(command) {
            io.json.print(.array(entries.map { e in
                var o: JSONObject = ["number": .int(e.number), "method": .string(e.method), "url": .string(e.url)]
                o["status"] = e.status.map { .int($0) } ?? .null
                o["failure"] = e.failure.map { .string($0) } ?? .null
                o["elapsedMs"] = e.elapsedMs.map { .double(($0 * 10).rounded() / 10) } ?? .null
                return .object(o)
            }))
            return ExitStatus.ok
        }
        if entries.isEmpty {
            io.stdout.line("(no request sent yet in this shell)")
            return ExitStatus.ok
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        let rows = entries.reversed().map { e in
            [String(e.number), formatter.string(from: e.time), e.method, e.pathAndQuery, e.outcome,
             e.elapsedMs.map { String(format: "%.1f ms", $0) } ?? ""]
        }
        io.stdout.write(io.table([
            .init("#", alignment: .right), .init("SENT"), .init("METHOD"), .init("REQUEST"), .init("STATUS"),
            .init("ELAPSED", alignment: .right),
        ]).render(rows))
        return ExitStatus.ok
    }
}
