import Foundation
import SXKCore
import SXKSession
import SXKShell

/// `har save FILE [N]` and `--har FILE`: the requests this shell sent as an HTTP Archive
/// (`HARExport`), written where the user points (`OutputFile`: a regular file or a new one, or `-`).
extension AppCommands {
    func har(_ command: ParsedCommand) throws -> CommandOutput {
        let args = command.positionals
        guard args.first == "save", args.count >= 2 else { throw AppError.usage("usage: har save FILE [N]") }
        var entries = host.transport.ring.all
        if args.count > 2 {
            guard let n = Int(args[2]), n > 0 else { throw AppError.usage("har save FILE N: N is a count of requests, 1 or more, got '\(args[2])'") }
            entries = Array(entries.suffix(n))
        }
        guard !entries.isEmpty else { throw AppError.failed("no request sent yet in this shell") }
        try host.writeHAR(entries, to: args[1])
        if args[1] == "-" { return CommandOutput() }
        // The file is the output: stdout stays empty (`--json` prints the record), the confirmation
        // goes to stderr whole (a path cut to the terminal's width would be no confirmation).
        io.stderr.write(TerminalText.sanitize("wrote \(Formatting.count(entries.count, "request")) to \(args[1]) (HAR 1.2, secrets masked)") + "\n")
        return CommandOutput(data: ["file": .string(args[1]), "requests": .int(entries.count), "format": "HAR 1.2",
                                    "numbers": .array(entries.map { .int($0.number) })])
    }
}

extension SXKHost {
    /// Writes `entries` as HAR to `path` through `OutputFile`: `-` is stdout, a new file is 0600, a
    /// regular file is written over; a FIFO, device, socket or directory is refused (a usage error).
    func writeHAR(_ entries: [RecordedRequest], to path: String) throws {
        let document = HARExport.document(entries, secrets: secrets, version: SXKApplication.version)
        var bytes = JSONWriter.bytes(document, style: .pretty)
        bytes.append(0x0A)
        if path == "-" { StandardOutput.stdout.flush() }
        do {
            try OutputFile.write(bytes, to: path)
        } catch let error as OutputFileError where OutputFile.refusal(path) != nil {
            throw AppError.usage(TerminalText.sanitize(error.description))
        } catch {
            throw AppError.failed(TerminalText.sanitize("cannot write HAR file: \(error)"))
        }
    }

    /// `--har FILE`: at exit, every request of the run (a failure is one `error:` line; the run's
    /// exit status is already decided). The name was checked at start (`checkHARTarget`).
    func writeHARAtExit() {
        guard let path = shellContext.options.harFile else { return }
        do {
            try writeHAR(transport.ring.all, to: path)
        } catch {
            stderr.write("error: --har: \(error)\n")
        }
    }
}
