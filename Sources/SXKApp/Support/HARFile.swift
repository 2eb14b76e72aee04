import SXKCore
import SXKShell

extension SXKHost {
    /// Writes `entries` as HAR to `path` through `OutputFile`: `-` is stdout, a new file is 0600, a
    /// regular file is written over, `/dev/null` discards; a FIFO, another device, a socket or a directory is refused (a usage error).
    func writeHAR(_ entries: [RecordedRequest], to path: String) throws {
        var bytes = JSONWriter.bytes(harDocument(entries), style: .pretty)
        bytes.append(0x0A)
        if path == "-" { StandardOutput.stdout.flush() }
        do {
            try OutputFile.write(bytes, to: path)
        } catch where OutputFile.laterWriteRefusal(path) != nil {
            throw AppError.usage(TerminalText.sanitize(error.description))
        } catch {
            throw AppError.failed(TerminalText.sanitize("cannot write HAR file: \(error)"))
        }
    }

    /// The archive of `entries`, secrets masked.
    func harDocument(_ entries: [RecordedRequest]) -> JSONValue {
        HARExport.document(entries, secrets: secrets, version: SXKApplication.version)
    }

    /// `--har FILE`: at exit, every request of the run (a failure is one `error:` line, and a run
    /// that succeeded otherwise ends with 1: `shutdownLostOutput`). The name was checked at start.
    func writeHARAtExit() {
        guard let path = shellContext.options.harFile else { return }
        do {
            try writeHAR(transport.ring.all, to: path)
        } catch {
            diagnostics.error("--har: \(error)")
            harLost.withLock { $0 = true }
        }
    }
}
