import SXKCore

extension Renderer {
    /// `--jq`: the program runs on the command's data (limited and with secrets masked, as `--json`
    /// would print it); each result is a line, a string as it is (its controls escaped), anything else
    /// compact JSON (coloured on a terminal). `$_` keeps the one result, or an array of several.
    func writeJQ(_ program: JQProgram, _ output: CommandOutput, into sink: any OutputSink) throws {
        let input: JSONValue
        if let data = output.data {
            input = shape(data)
        } else if let table = output.mainTable {
            input = .array(table.rows.prefix(format.limit ?? Int.max).map { Redaction.redact($0, secrets: secrets) })
        } else {
            throw UsageError("--jq: this command prints no data to filter")
        }
        let results = try program.run(on: input)
        io.keep(results.count == 1 ? results[0].json : .array(results.map(\.json)))
        for result in results {
            switch result {
            case .string(let s):
                let masked = Redaction.redact(s, secrets: secrets)
                // Inert everywhere, like CSV: only --raw is byte-exact.
                sink.write(TerminalText.sanitizeLines(masked) + "\n")
            case .value(let v):
                writeJSON(Redaction.redact(v, secrets: secrets), pretty: false, into: sink)
            }
        }
    }

    /// A stream's rows gathered into one array (the same limit and masking as a streamed print).
    func gather(_ stream: RowStream, status: inout Int32) async throws -> CommandOutput {
        let rows = GatheredRows()
        let limit = format.limit ?? Int.max
        let secrets = self.secrets
        let result = try await stream.run { batch, _ in
            rows.lock.withLock {
                let room = max(0, limit - rows.items.count)
                rows.items += batch.prefix(room).map { Redaction.redact($0, secrets: secrets) }
                return rows.items.count < limit
            }
        }
        status = result.status
        sayEnd(result, notes: false)
        return CommandOutput(data: .array(rows.lock.withLock { rows.items }))
    }
}

final class GatheredRows: @unchecked Sendable {
    let lock = Lock()
    var items: [JSONValue] = []
}
