import SXKShell

extension Commands {
    /// `har save FILE [N]`: the requests this shell sent as an HTTP Archive (`HARExport`), written
    /// where the user points (`OutputFile`: a regular file or a new one, or `-`).
    enum Har: AppCommand {
        static let spec = CommandSpec(
            "har", summary: "write the requests this shell sent as an HTTP Archive 1.2 file (secrets masked)",
            discussion: "har save FILE writes every kept request, N the last N only. The file opens in browser devtools, Charles and Postman: method, URL, headers and bodies, status, response headers and the first 16 KiB of each body, and the phase timings where the transport measured them (-1 where unknown). Secrets are masked exactly as --trace masks them: the token header, passwords and every secret-named header, parameter and member are ***. FILE is a new file (created with mode 0600) or a regular file, written over; - writes to stdout; /dev/null discards; a FIFO, another device, a socket or a directory (or a link to one) is refused. The last 20 requests are kept; sxk --har FILE keeps the run's requests (up to 1000) and writes them at exit.",
            arguments: [
                ArgumentSpec("save", kind: .choice(["save"]), summary: "write the file"),
                ArgumentSpec("FILE", kind: .path, summary: "the .har file to write (a new or regular file, - for stdout)"),
                ArgumentSpec("N", kind: .int, optional: true, summary: "only the last N requests"),
            ],
            examples: ["har save session.har", "har save last.har 1"]
        )
        static let unwatchable: String? = "it writes the requests already sent to a file"

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try app.har(command)
        }
    }
}

extension AppCommands {
    fileprivate func har(_ command: ParsedCommand) throws -> CommandOutput {
        let args = command.positionals
        guard args.first == "save", args.count >= 2 else { throw AppError.usage("usage: har save FILE [N]") }
        var entries = host.transport.ring.all
        if args.count > 2 {
            guard let n = Int(args[2]), n > 0 else { throw AppError.usage("har save FILE N: N is a count of requests, 1 or more, got '\(args[2])'") }
            entries = Array(entries.suffix(n))
        }
        guard !entries.isEmpty else { throw AppError.failed("no request sent yet in this shell") }
        if args[1] == "-" {
            // The archive is the command's data, printed as JSON where its stdout goes (the line's own `| jq` or `> FILE`).
            var output = CommandOutput(data: host.harDocument(entries))
            output.format = OutputFormat(kind: .json)
            return output
        }
        try host.writeHAR(entries, to: args[1])
        // The file is the output: stdout stays empty (`--json` prints the record), the confirmation
        // goes to stderr whole (a path cut to the terminal's width would be no confirmation).
        diagnostics.note("wrote \(Formatting.count(entries.count, "request")) to \(args[1]) (HAR 1.2, secrets masked)")
        return CommandOutput(data: ["file": .string(args[1]), "requests": .int(entries.count), "format": "HAR 1.2",
                                    "numbers": .array(entries.map { .int($0.number) })])
    }
}
