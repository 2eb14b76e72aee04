import CLibedit
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The interactive line editor: libedit with emacs bindings (or the user's ~/.editrc), history
/// recall, Tab completion through a pure completion function, and a colour-safe prompt.
public final class LibeditLineReader: LineReader, @unchecked Sendable {
    public typealias Completer = @Sendable (_ line: String, _ cursor: Int) -> CompletionResult

    private let el: OpaquePointer
    private let hist: OpaquePointer
    private var event = HistEvent()
    private let store: HistoryStore
    private let completer: Completer
    private let color: Bool
    /// False under `TERM=dumb` (`Terminal.cursorControl`): a redraw starts a new line instead of
    /// moving the cursor up and clearing.
    private let cursorControl: Bool
    private let outputFD: Int32
    private var promptBuffer: UnsafeMutablePointer<CChar>?
    /// Columns the prompt takes (its text without colour), for the redraw after a resize.
    private var promptWidth = 0
    private var lastTab: (line: String, cursor: Int)?
    private var closed = false
    private static let marker: Character = "\u{1}"

    /// `store` is loaded already; its entries become recallable. Nil when libedit cannot be loaded
    /// (`Libedit.loadError` says why) or cannot start an editor on the terminal.
    public init?(programName: String, store: HistoryStore, color: Bool, cursorControl: Bool = true, completer: @escaping Completer) {
        guard Libedit.loadError == nil, let input = fdopen(0, "r"), let output = fdopen(2, "w"),
              let el = sxk_el_init(programName, input, output, output) else { return nil }
        guard let hist = sxk_history_init() else { sxk_el_end(el); return nil }
        self.el = el
        self.hist = hist
        self.store = store
        self.completer = completer
        self.color = color
        self.cursorControl = cursorControl
        self.outputFD = 2

        _ = sxk_history_setsize(hist, &event, Int32(store.limit))
        _ = sxk_history_setunique(hist, &event, 1)
        for line in store.entries { _ = sxk_history_enter(hist, &event, line) }

        _ = sxk_el_set_clientdata(el, Unmanaged.passUnretained(self).toOpaque())
        _ = sxk_el_editor(el, "emacs")
        // libedit's own signal handling stays off (as in LLDB): during el_gets it installs process-wide
        // handlers that reach the editor through a global pointer, and the kernel runs them on any
        // thread (usually the main one). On a closed terminal (SIGHUP + SIGCONT) one ran after el_gets
        // had cleared that pointer: a segfault in about one exit in six. It also re-raised signals to
        // the whole process group. SignalRouter handles SIGINT/SIGTERM/SIGHUP and Ctrl-Z; the window
        // size is re-read at every prompt (libedit's read_prepare calls el_resize), and during editing
        // the key reader below wakes on SIGWINCH to resize and redraw the line.
        _ = sxk_el_signal(el, 0)
        _ = sxk_el_set_getcfn(el, getcCallback)
        _ = sxk_el_set_history(el, hist)
        _ = sxk_el_set_prompt_esc(el, promptCallback, CChar(1))
        _ = sxk_el_addfn(el, "sxk-complete", "Complete the word at the cursor", tabCallback)
        _ = sxk_el_bind(el, "^I", "sxk-complete")
        // Ctrl-R: incremental history search backwards (as in readline).
        _ = sxk_el_bind(el, "^R", "em-inc-search-prev")
        _ = sxk_el_source(el, nil)
    }

    deinit {
        close()
    }

    public func readLine(prompt: PromptText) -> LineReadResult {
        // libedit's own signal handling is off (see SignalRouter), so it learns a new window size here.
        sxk_el_resize(el)
        SignalRouter.takeWakeups()  // a Ctrl-C or resize from before this prompt is already dealt with
        setPrompt(prompt)
        lastTab = nil
        var count: Int32 = 0
        errno = 0
        guard let raw = sxk_el_gets(el, &count) else {
            let interrupted = count < 0 && errno == EINTR
            // From the line's last row: with the cursor on an earlier row of a wrapped line, the
            // next prompt would be drawn over the rest of it.
            moveBelowTheLine()
            if interrupted {
                sxk_el_reset(el)
                return .interrupted
            }
            return count < 0 ? .interrupted : .eof
        }
        var line = String(cString: raw)
        if line.hasSuffix("\n") { line.removeLast() }
        return .line(line)
    }

    public func addHistory(_ line: String, persist: Bool, context: HistoryContext?) {
        _ = sxk_history_enter(hist, &event, line)
        store.add(line, persist: persist, context: context)
    }

    public func keepLastOutOfFile() { store.keepLastOutOfFile() }

    public var historyEntries: [String] { store.entries }
    public var historyRecords: [HistoryEntry] { store.records }

    public func close() {
        if closed { return }
        closed = true
        try? store.save()
        sxk_el_end(el)
        sxk_history_end(hist)
        if let promptBuffer { free(promptBuffer) }
        promptBuffer = nil
    }

    private func setPrompt(_ prompt: PromptText) {
        if let promptBuffer { free(promptBuffer) }
        promptBuffer = strdup(prompt.rendered(color: color, marker: Self.marker))
        promptWidth = TextWidth.width(prompt.plain)
        promptText = prompt.plain
    }

    /// The prompt as shown, without colour: where the line's rows start (`row(after:columns:)`).
    private var promptText = ""

    /// The row, counted from the prompt's first, of the position just past the prompt and `text`, as
    /// a terminal lays them out: a wide character that does not fit in what is left of a row starts
    /// the next one (leaving a column empty), and a row filled to its end moves on at the next character.
    private func row(after text: String, columns: Int) -> Int {
        var row = 0, column = 0
        for scalar in (promptText + text).unicodeScalars {
            let width = TextWidth.width(of: scalar)
            guard width > 0 else { continue }
            if column + width > columns { row += 1; column = 0 }
            column += width
        }
        return column >= columns ? row + 1 : row
    }

    /// The text of the line being edited from its start up to `end`.
    private func lineText(upTo end: UnsafePointer<CChar>?) -> String {
        let info = sxk_el_line(el).pointee
        guard let start = info.buffer, let end else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: UnsafeRawPointer(start), count: max(0, end - start)), as: UTF8.self)
    }

    fileprivate func currentPrompt() -> UnsafeMutablePointer<CChar>? { promptBuffer }

    private func writeOut(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(outputFD, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }

    // MARK: keys and resizes

    /// libedit's key reader (EL_GETCFN), as its own `read_char` but waiting on the terminal and the
    /// signal router's wake-up pipe together: a resize redraws the line here, on the editing thread
    /// (nothing but a byte on a pipe happens in the signal handler), and Ctrl-C ends `el_gets` with
    /// EINTR as an interrupted read would.
    fileprivate func readCharacter(_ out: UnsafeMutablePointer<wchar_t>) -> Int32 {
        // libedit (3.1-2022) moves the cursor back one column, not two, after a wide character it
        // inserts before the end of the line: the line is drawn again once it has been inserted.
        if wideInsertMidLine {
            wideInsertMidLine = false
            // Up to the line's first row, cleared, and drawn whole from there.
            clearLine(up: rowsAboveCursor())
            _ = sxk_el_refresh(el)
        }
        // A Ctrl-C in a search that found nothing: libedit's ^G there only takes back the characters
        // that did not match (as emacs's C-g does), so it is given again until the search is over.
        if leavingSearch > 0 {
            leavingSearch -= 1
            if inIncrementalSearch() {
                out.pointee = 0x07
                return 1
            }
            leavingSearch = 0
        }
        var bytes: [CChar] = []
        let wakeFD = SignalRouter.editorWakeRead.load(ordering: .relaxed)
        while true {
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, wakeFD >= 0 ? 2 : 1, -1)
            if ready < 0 {
                if errno == EINTR { continue }  // the handler's byte is on the pipe; Ctrl-Z and fg land here too
                out.pointee = 0
                return -1
            }
            if wakeFD >= 0 && fds[1].revents != 0 {
                switch SignalRouter.takeWakeups() {
                case .interrupt where inIncrementalSearch():
                    // As in bash and psql: Ctrl-C leaves the search and keeps the line being edited.
                    // ^G is libedit's own abort key there; it puts the line back as it was before.
                    leavingSearch = 3
                    out.pointee = 0x07
                    return 1
                case .interrupt:
                    out.pointee = 0
                    errno = EINTR
                    return -1
                case .resize:
                    redrawAfterResize()
                    continue
                case .resumed:
                    // Back from Ctrl-Z: the shell's `fg` left the cursor on a line of its own, and
                    // the window may have changed size while stopped (its SIGWINCH went to the shell).
                    sxk_el_resize(el)
                    clearLine(up: 0)
                    _ = sxk_el_refresh(el)
                    continue
                case .none:
                    break
                }
            }
            guard fds[0].revents != 0 else { continue }
            var byte: CChar = 0
            let n = read(0, &byte, 1)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                out.pointee = 0
                return -1
            }
            if n == 0 {
                out.pointee = 0
                return 0
            }
            bytes.append(byte)
            // Decode what is read so far; a broken sequence is dropped up to the byte that broke it,
            // which is tried again as the start of the next character.
            while !bytes.isEmpty {
                var state = mbstate_t()
                var wide: wchar_t = 0
                // size_t arrives as Int: (size_t)-1 and (size_t)-2 are -1 and -2.
                switch mbrtowc(&wide, bytes, bytes.count, &state) {
                case -1:
                    bytes = bytes.count > 1 ? [bytes[bytes.count - 1]] : []
                    continue
                case -2:
                    if bytes.count >= Int(MB_LEN_MAX) { bytes.removeAll() }
                default:
                    out.pointee = wide
                    if let scalar = Unicode.Scalar(UInt32(bitPattern: wide)), TextWidth.width(of: scalar) == 2 {
                        let info = sxk_el_line(el).pointee
                        wideInsertMidLine = info.cursor != nil && info.cursor != info.lastchar
                    }
                    return 1
                }
                break
            }
        }
    }

    /// The character just handed to libedit is a wide one going in before the end of the line.
    private var wideInsertMidLine = false
    /// ^G keys still to give while a search a Ctrl-C ended has not closed (bounded: a search ends at two).
    private var leavingSearch = 0

    /// True while a Ctrl-R (or Ctrl-S) search waits for a key. libedit shows the search by writing
    /// a newline, `bck` or `fwd`, `:` (or `?` when nothing matched) and the pattern after the end
    /// of the line, and an edited line never holds a newline (Enter ends it).
    private func inIncrementalSearch() -> Bool {
        let info = sxk_el_line(el).pointee
        guard let start = info.buffer else { return false }
        // The search text sits past `lastchar`, up to the terminating NUL.
        let text = String(cString: start)
        guard let newline = text.lastIndex(of: "\n") else { return false }
        let tail = text[text.index(after: newline)...]
        return tail.hasPrefix("bck:") || tail.hasPrefix("bck?") || tail.hasPrefix("fwd:") || tail.hasPrefix("fwd?")
    }

    /// Rows between the line's first row (the prompt's) and the cursor's.
    private func rowsAboveCursor() -> Int {
        let info = sxk_el_line(el).pointee
        guard info.buffer != nil, info.cursor != nil else { return 0 }
        return row(after: lineText(upTo: info.cursor), columns: max(1, Int(sxk_el_get_columns(el))))
    }

    /// Moves the cursor down to the last row the line being edited takes, then to a new line.
    private func moveBelowTheLine() {
        let info = sxk_el_line(el).pointee
        let columns = max(1, Int(sxk_el_get_columns(el)))
        // Rows as laid out, wide characters wrapped whole, not columns divided by the width.
        let down = info.buffer == nil ? 0 : row(after: lineText(upTo: info.lastchar), columns: columns) - row(after: lineText(upTo: info.cursor), columns: columns)
        writeOut((down > 0 && cursorControl ? "\u{1B}[\(down)B" : "") + "\n")
    }

    /// The window changed size: libedit learns the new width, the cursor goes back to where the
    /// prompt starts and everything below is cleared, then libedit draws prompt and line again. The
    /// rows to go up are counted at both widths and the smaller is taken: a terminal that rewraps
    /// on resize keeps the line's start at the new-width count, one that does not at the old-width
    /// one, and going up too little only leaves an old row above, never erases earlier output.
    private func redrawAfterResize() {
        let oldColumns = Int(sxk_el_get_columns(el))
        sxk_el_resize(el)
        let newColumns = Int(sxk_el_get_columns(el))
        let info = sxk_el_line(el).pointee
        let head = UnsafeRawBufferPointer(start: UnsafeRawPointer(info.buffer), count: info.cursor - info.buffer)
        let column = promptWidth + TextWidth.width(String(decoding: head, as: UTF8.self))
        let up = min(column / max(1, oldColumns), column / max(1, newColumns))
        clearLine(up: up)
        _ = sxk_el_refresh(el)
    }

    /// Up `up` rows to the line's first one and cleared below, for libedit to draw it again there; on
    /// a terminal without cursor control, a new line instead.
    private func clearLine(up: Int) {
        writeOut(cursorControl ? (up > 0 ? "\u{1B}[\(up)A" : "") + "\r\u{1B}[J" : "\n")
    }

    /// Tab: unique match inserted, else the common prefix; a second Tab lists the choices.
    fileprivate func complete() -> UInt8 {
        let info = sxk_el_line(el).pointee
        let length = info.lastchar - info.buffer
        let cursor = info.cursor - info.buffer
        let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(info.buffer), count: length)
        let line = String(decoding: bytes, as: UTF8.self)
        let result = completer(line, cursor)
        let candidates = result.candidates
        if candidates.isEmpty { return UInt8(CC_REFRESH_BEEP) }
        // What follows the cursor, when Tab is pressed inside the line.
        let next = cursor < length ? String(decoding: UnsafeRawBufferPointer(rebasing: bytes[cursor...]), as: UTF8.self).first : nil
        if candidates.count == 1 {
            replace(result, with: result.insertion(for: candidates[0].value, final: !candidates[0].continues, next: next), cursorBytes: bytes, cursor: cursor)
            lastTab = nil
            return UInt8(CC_REFRESH)
        }
        let common = result.commonPrefix
        if common.hasPrefix(result.prefix) && common.unicodeScalars.count > result.prefix.unicodeScalars.count {
            replace(result, with: result.insertion(for: common, final: false, next: next), cursorBytes: bytes, cursor: cursor)
            lastTab = nil
            return UInt8(CC_REFRESH)
        }
        if let last = lastTab, last.line == line, last.cursor == cursor {
            let width = Terminal.currentWidth(environment: [:])
            // libedit redraws the line from its first row, moving up as many rows as the cursor is
            // below it: that many rows are left after the list, so none of its rows is drawn over.
            let cursorRow = row(after: lineText(upTo: info.cursor), columns: max(1, width))
            writeOut("\n" + CandidateList.format(candidates, width: width, color: color) + String(repeating: "\n", count: cursorRow))
            return UInt8(CC_REDISPLAY)
        }
        lastTab = (line, cursor)
        return UInt8(CC_REFRESH_BEEP)
    }

    private func replace(_ result: CompletionResult, with text: String, cursorBytes: UnsafeRawBufferPointer, cursor: Int) {
        let start = max(0, min(result.replaceStart, cursor))
        let removed = String(decoding: UnsafeRawBufferPointer(rebasing: cursorBytes[start..<cursor]), as: UTF8.self)
        let chars = removed.unicodeScalars.count
        if chars > 0 { sxk_el_deletestr(el, Int32(chars)) }
        _ = sxk_el_insertstr(el, text)
    }
}

private let promptCallback: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>? = { el in
    guard let el, let raw = sxk_el_get_clientdata(el) else { return nil }
    return Unmanaged<LibeditLineReader>.fromOpaque(raw).takeUnretainedValue().currentPrompt()
}

private let getcCallback: @convention(c) (OpaquePointer?, UnsafeMutablePointer<wchar_t>?) -> Int32 = { el, out in
    guard let el, let out, let raw = sxk_el_get_clientdata(el) else { return -1 }
    return Unmanaged<LibeditLineReader>.fromOpaque(raw).takeUnretainedValue().readCharacter(out)
}

private let tabCallback: @convention(c) (OpaquePointer?, Int32) -> UInt8 = { el, _ in
    guard let el, let raw = sxk_el_get_clientdata(el) else { return UInt8(CC_ERROR) }
    return Unmanaged<LibeditLineReader>.fromOpaque(raw).takeUnretainedValue().complete()
}

/// Completion candidates laid out for the terminal: columns, or one per line with descriptions.
public enum CandidateList {
    /// Values and descriptions (names from the server) are sanitized (`TerminalText`) before layout.
    public static func format(_ candidates: [CompletionCandidate], width: Int, color: Bool, limit: Int = 300) -> String {
        let shown = candidates.prefix(limit).map { c in
            var c = c
            c.value = TerminalText.sanitize(c.value)
            c.description = c.description.map(TerminalText.sanitize)
            return c
        }
        var out = ""
        if shown.contains(where: { $0.description != nil }) {
            // Values padded to the widest, as long as 24 columns are left for the descriptions.
            let w = min(max(32, width - 27), shown.map { TextWidth.width($0.value) }.max() ?? 0)
            for c in shown {
                var line = TextWidth.truncate(c.value, to: max(10, width - 1))
                if let d = c.description {
                    let room = width - 1 - max(w, TextWidth.width(line)) - 2
                    if room > 3 { line = TextWidth.pad(line, to: w) + "  " + TextStyle.dim.apply(TextWidth.truncate(d, to: room), enabled: color) }
                }
                out += line + "\n"
            }
        } else {
            let cell = (shown.map { TextWidth.width($0.value) }.max() ?? 0) + 2
            let perRow = max(1, (width - 1) / max(1, cell))
            let rows = (shown.count + perRow - 1) / perRow
            for r in 0..<rows {
                var line = ""
                for c in 0..<perRow {
                    let i = c * rows + r
                    if i < shown.count { line += TextWidth.pad(shown[i].value, to: cell) }
                }
                while line.hasSuffix(" ") { line.removeLast() }
                out += line + "\n"
            }
        }
        if candidates.count > shown.count { out += "… and \(candidates.count - shown.count) more\n" }
        return out
    }
}
