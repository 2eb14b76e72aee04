import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Renderer {
    /// Rows as they arrive: a batch is written and flushed before the next is asked for, so memory
    /// holds one batch. The progress line (stderr, terminal only) is erased before rows are written.
    ///
    /// On a terminal the rows go through the pager as any long output does, written to it as they
    /// arrive (no progress line then: it would draw over the pager's screen); quitting the pager
    /// ends the walk as a closed pipe does.
    func renderStream(_ stream: RowStream) async throws -> Int32 {
        let state = StreamState()
        // Rows for `$_` only where a later command can read it (not in a one-shot process).
        if !io.data.isRead { state.kept = nil }
        let pagerProcess = io.terminal.stdoutIsTerminal ? pager.flatMap(Pager.start) : nil
        let out: any OutputSink = pagerProcess?.input ?? io.stdout
        if pagerProcess != nil { io.stdout.flush() }
        let me = self
        let showProgress = io.terminal.stderrIsTerminal && io.terminal.cursorControl && pagerProcess == nil
        let ran: RowStream.End
        do {
            ran = try await stream.run { batch, progress in
                me.streamBatch(batch, columns: stream.columns, progress: showProgress ? progress : nil, state: state, out: out)
            }
        } catch {
            // The error line starts a line of its own, not after the progress; a JSON array begun
            // is closed, so what was written before the failure still parses (`| jq`).
            if state.progressShown { io.stderr.write("\r\u{1B}[K") }
            if format.kind == .json, state.written > 0 { out.write("\n]\n"); out.flush() }
            _ = pagerProcess?.finish()
            throw error
        }
        if state.progressShown { io.stderr.write("\r\u{1B}[K") }
        if let error = state.error {
            _ = pagerProcess?.finish()
            throw error
        }
        switch format.kind {
        case .json: out.write(state.written == 0 ? "[]\n" : "\n]\n")
        case .csv where state.written == 0, .tsv where state.written == 0:
            // No row: the header alone, as a page without rows prints it (a CSV reader wants one).
            if let selection = try? ColumnSelection.resolve(format.columns, declared: stream.columns, samples: []) {
                let separated = SeparatedValues(tabs: format.kind == .tsv)
                var line: [UInt8] = []
                for (i, key) in selection.header(sample: nil).enumerated() { separated.append(key, first: i == 0, into: &line) }
                line.append(0x0A)
                out.write(bytes: line)
            }
        default: break
        }
        out.flush()
        if let pagerProcess, !pagerProcess.finish() {
            io.warning("the pager '\(pager ?? "")' could not start; rows were not shown (--no-pager prints them directly)")
        }
        if format.kind == .table, !state.records, let layout = state.layout, let selection = state.selection {
            noteHidden(layout, columns: selection.columns, held: false)
            if state.laterCut, !layout.cuts, io.terminal.stderrIsTerminal {
                io.stderr.write("(a later row was wider than the first rows' columns and was cut: --json or --csv show it whole)\n")
            }
        }
        if let kept = state.kept { io.keep(.array(kept)) }
        // Notes are for people; JSON and NDJSON consumers get the data alone, but for what every
        // reader must know: a warning, and how far a run that was interrupted got (stderr, as all are).
        sayEnd(ran, notes: ![.json, .ndjson].contains(format.kind))
        return ran.status
    }

    /// A stream's closing lines: warnings through the one sink of warnings, then the interruption
    /// and (`notes`) the notes.
    func sayEnd(_ end: RowStream.End, notes: Bool) {
        for warning in end.warnings { io.warning(warning) }
        for line in [end.interruption].compactMap({ $0 }) + (notes ? end.notes : []) {
            io.stderr.write(stderrLine(line) + "\n")
        }
    }

    private func streamBatch(_ batch: [JSONValue], columns: [OutputColumn], progress: String?, state: StreamState, out sink: any OutputSink) -> Bool {
        state.lock.withLock {
            if state.error != nil { return false }
            var rows = batch
            if let limit = format.limit { rows = Array(rows.prefix(max(0, limit - state.written))) }
            rows = Redaction.redact(rows: rows, secrets: secrets)
            if state.selection == nil {
                do {
                    state.selection = try ColumnSelection.resolve(format.columns, declared: columns, samples: rows)
                } catch {
                    state.error = error
                    return false
                }
            }
            if state.progressShown { io.stderr.write("\r\u{1B}[K") }
            let selection = state.selection!
            if state.written == 0, format.kind == .table, format.expandedMode != .off {
                // `set expanded`: decided on the first batch, as the table's widths are.
                state.records = format.expandedMode == .on || !fitsWhole(selection.columns, rows: rows)
            }
            var out: [UInt8] = []
            out.reserveCapacity(rows.count * 256)
            let kind: OutputFormat.Kind = state.records ? .expanded : format.kind
            for row in rows {
                let value = format.columns == nil ? row : selection.record(row)
                switch kind {
                case .json, .raw:
                    out.append(contentsOf: (state.written == 0 ? "[\n" : ",\n").utf8)
                    JSONWriter.write(value, into: &out)
                case .ndjson:
                    JSONWriter.write(value, into: &out)
                    out.append(0x0A)
                case .csv, .tsv:
                    let separated = SeparatedValues(tabs: format.kind == .tsv)
                    if state.written == 0 {
                        for (i, key) in selection.header(sample: row).enumerated() { separated.append(key, first: i == 0, into: &out) }
                        out.append(0x0A)
                    }
                    for (i, column) in selection.columns.enumerated() {
                        separated.append(Self.cell(row, column, raw: true), first: i == 0, into: &out)
                    }
                    out.append(0x0A)
                case .expanded:
                    let view = RecordView(width: maxWidth, wide: format.wide)
                    let text = view.render([row], columns: selection.columns) { self.text(Self.cell($0, $1)) }
                    out.append(contentsOf: text.replacingAll("-[ RECORD 1 ]", with: "-[ RECORD \(state.written + 1) ]").utf8)
                case .table:
                    let cells = selection.columns.map { text(Self.cell(row, $0)) }
                    if state.layout == nil {
                        // Widths are fixed by the first batch so later rows line up without buffering.
                        let sample = rows.map { r in selection.columns.map { text(Self.cell(r, $0)) } }
                        let layout = fit(selection.columns, cells: sample)
                        state.layout = layout
                        state.table = TableRenderer(columns: layout.shown.map {
                            .init(selection.columns[$0].header, alignment: selection.columns[$0].alignment)
                        }, color: io.color)
                        out.append(contentsOf: state.table!.renderLine(layout.shown.map { selection.columns[$0].header }, widths: layout.widths, header: true).utf8)
                    }
                    let layout = state.layout!
                    // A later row wider than the first batch's widths is cut too, whatever the window
                    // (`--wide` included): the closing note says so, and what shows it whole.
                    if !state.laterCut, zip(layout.shown, layout.widths).contains(where: { TextWidth.width(cells[$0.0]) > $0.1 }) {
                        state.laterCut = true
                    }
                    out.append(contentsOf: state.table!.renderLine(layout.shown.map { cells[$0] }, widths: layout.widths).utf8)
                }
                state.written += 1
                if state.kept != nil {
                    if state.kept!.count < Self.streamKeepLimit { state.kept!.append(value) } else { state.kept = nil }
                }
            }
            sink.write(bytes: out)
            sink.flush()
            if let progress {
                io.stderr.write("\r\u{1B}[K" + text(progress))
                state.progressShown = true
            }
            if let limit = format.limit, state.written >= limit { return false }
            return !((sink as? StandardOutput)?.isBroken ?? false)
        }
    }

    /// One `watch` frame: on a terminal the screen is cleared and redrawn from a gathered frame;
    /// otherwise frames follow each other on stdout with the header on stderr.
    /// With `changes` (`watch -d`) and a terminal, the frame is drawn without colour and what
    /// differs from the previous frame is marked in reverse video.
    func showFrame(header: LiveOutput.Header, frame: CommandOutput?, error: (any Error)?, changes: FrameChanges? = nil) async -> Int32 {
        let redraw = io.terminal.stdoutIsTerminal && io.terminal.cursorControl
        // Drawn on the screen, the frame's messages wrap at spaces as they do outside `watch`.
        let buffer = BufferOutput(messageWidth: redraw ? Terminal.currentWidth(environment: [:]) : nil)
        var framed = io.terminal
        // On the screen each frame is fitted to the window as it is now (a resize counts), and says the
        // columns it hid to fit, as a table outside `watch` does.
        framed.stderrIsTerminal = redraw
        if redraw { framed.width = Terminal.currentWidth(environment: [:]) }
        if redraw && changes != nil { framed.colorEnabled = false }
        // Off a terminal the run's notes and errors follow its header line, as on the screen.
        let messages = BufferOutput()
        let frameIO = CommandIO(stdout: buffer, stderr: redraw ? buffer : messages, terminal: framed, options: io.options, display: io.display)
        let inner = Renderer(io: frameIO, format: frame?.format ?? format, secrets: secrets, pager: nil)
        var status: Int32 = ExitStatus.ok
        if let frame {
            do {
                for note in frame.notes { frameIO.stderr.write(ErrorPresenter.fitted(inner.text(note), to: frameIO.stderr) + "\n") }
                try inner.renderStatic(frame, into: buffer)
                for warning in frame.warnings { frameIO.warning(inner.text(warning)) }
                status = frame.status
            } catch {
                frameIO.errors.error(inner.text(ErrorPresenter.message(for: error)))
                // As outside `watch`: a usage error is 2 (it stops the watch), any other (a `--jq`
                // program failing on this answer) 1.
                status = error is UsageError ? ExitStatus.usage : ExitStatus.failure
            }
        }
        if let error { frameIO.errors.error(inner.text(ErrorPresenter.message(for: error))) }
        if redraw {
            let body = changes.map { $0.mark(buffer.text) } ?? buffer.text
            let columns = Terminal.currentWidth(environment: [:])
            let shown = LiveOutput.Header(title: text(header.title), status: text(header.status), shortStatus: header.shortStatus.map(text)).fitted(columns: columns)
            io.stdout.write("\u{1B}[H\u{1B}[2J" + Self.screen(header: shown, body: body, columns: columns, rows: Terminal.currentHeight()))
        } else {
            io.stderr.write(text(header.line) + "\n" + messages.text)
            io.stdout.write(buffer.text)
        }
        io.stdout.flush()
        return status
    }
}

extension Renderer {
    /// A `watch` screen: the header, a blank line and the frame, cut to the window (as watch(1) does)
    /// so that a tall frame does not scroll its header away; a cut frame ends with how many lines it
    /// left out. Every row is counted as the window wraps it, and the cursor ends on a row of its own.
    /// A window too small for all of that keeps the header first (cut to one row when it must be).
    static func screen(header: String, body: String, columns: Int, rows: Int) -> String {
        let columns = max(1, columns)
        var head = header
        if Pager.rows(head + "\n", columns: columns, atLeast: rows) > max(1, rows - 2) {
            head = TextWidth.truncate(head, to: columns - 1)
        }
        // The blank line after the header only where there is room for it and a frame.
        let top = head + (rows >= 6 ? "\n\n" : "\n")
        let room = rows - 1 - Pager.rows(top, columns: columns, atLeast: rows)
        guard room > 0 else { return top }
        guard Pager.fitting(body, columns: columns, rows: room) != nil else { return top + body }
        func note(_ left: Int) -> String {
            let text = "… \(left) more line\(left == 1 ? "" : "s")"
            return (columns >= 44 ? text + " (a taller window shows them)" : text) + "\n"
        }
        // The note's own rows come out of the room; with no row left for it, the frame alone, cut.
        let noteRows = Pager.rows(note(99_999), columns: columns, atLeast: rows)
        guard room > noteRows else {
            return top + (Pager.fitting(body, columns: columns, rows: room)?.kept ?? Substring(body))
        }
        let cut = Pager.fitting(body, columns: columns, rows: room - noteRows) ?? (Substring(body), 0)
        return top + cut.kept + note(cut.linesLeftOut)
    }
}

/// The previous `watch -d` frame, and the marking of what changed since it (as watch(1) does):
/// characters that differ from the one at the same place on the same line of the previous frame,
/// or that are new, in reverse video. The first frame has nothing marked.
final class FrameChanges: @unchecked Sendable {
    private let lock = Lock()
    private var previous: [[Character]]?

    static let on = "\u{1B}[7m", off = "\u{1B}[27m"

    func mark(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        let before = lock.withLock { () -> [[Character]]? in
            defer { previous = lines }
            return previous
        }
        guard let before else { return text }
        var out = ""
        for (n, line) in lines.enumerated() {
            if n > 0 { out += "\n" }
            let old = n < before.count ? before[n] : []
            var marking = false
            for (i, character) in line.enumerated() {
                let changed = i >= old.count || old[i] != character
                if changed != marking {
                    out += changed ? Self.on : Self.off
                    marking = changed
                }
                out.append(character)
            }
            if marking { out += Self.off }
        }
        return out
    }
}

/// What a stream has written so far (guarded: the producer may call from any task).
final class StreamState: @unchecked Sendable {
    let lock = Lock()
    var written = 0
    var selection: ColumnSelection?
    var layout: TableLayout?
    /// A row after the first batch was cut to that batch's widths.
    var laterCut = false
    var table: TableRenderer?
    var progressShown = false
    /// `set expanded` turned the table view into records for this stream.
    var records = false
    var error: (any Error)?
    /// Rows kept for `$_`; nil once past `Renderer.streamKeepLimit`.
    var kept: [JSONValue]? = []
}
