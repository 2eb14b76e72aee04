import SXKCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one read of a line gave.
public enum LineReadResult: Sendable, Equatable {
    case line(String)
    /// Ctrl-C at the prompt: the line was dropped.
    case interrupted
    /// Ctrl-D on an empty line, or end of input.
    case eof
}

/// A prompt: text in segments, each optionally coloured.
public struct PromptText: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        public var text: String
        public var style: TextStyle?
        public init(_ text: String, style: TextStyle? = nil) {
            self.text = text
            self.style = style
        }
    }
    public var segments: [Segment]
    public init(_ segments: [Segment]) { self.segments = segments }
    public init(_ plain: String) { segments = [Segment(plain)] }
    public var plain: String { segments.map(\.text).joined() }

    /// The prompt with colour escapes wrapped in `marker` (libedit's EL_PROMPT_ESC) when `color` is on.
    /// Segment text (scenic and store names come from the server) is sanitized (`TerminalText`).
    public func rendered(color: Bool, marker: Character? = nil) -> String {
        segments.map { seg in
            let text = TerminalText.sanitize(seg.text)
            guard color, let style = seg.style else { return text }
            let m = marker.map(String.init) ?? ""
            return m + style.escape + m + text + m + TextStyle.reset + m
        }.joined()
    }
}

/// Reads command lines (the libedit editor on a terminal, a plain reader otherwise).
public protocol LineReader: AnyObject, Sendable {
    /// Blocks until a line is read; called on the reader thread only.
    func readLine(prompt: PromptText) -> LineReadResult
    /// Records a line for recall (and, when `persist`, for the history file, with where it ran).
    func addHistory(_ line: String, persist: Bool, context: HistoryContext?)
    /// The last line recorded is kept out of the history file (still recalled): it turned out to
    /// be a usage error once it ran.
    func keepLastOutOfFile()
    /// Lines that can be recalled, oldest first.
    var historyEntries: [String] { get }
    /// The same lines with where each ran, when known.
    var historyRecords: [HistoryEntry] { get }
    /// Saves history and restores the terminal.
    func close()
}

extension LineReader {
    public func addHistory(_ line: String, persist: Bool) { addHistory(line, persist: persist, context: nil) }
    public func keepLastOutOfFile() {}
    public var historyRecords: [HistoryEntry] { historyEntries.map { HistoryEntry(line: $0) } }
}

/// Reads lines from a file descriptor without a line editor and without a history file; a prompt only
/// where `promptFD` is given (a terminal without libedit).
public final class PlainLineReader: LineReader, @unchecked Sendable {
    /// The one reader of standard input, shared by the command loop and commands that read their
    /// own input line (`login --password-stdin`), so neither loses what the other buffered.
    public static let standardInput = PlainLineReader(fd: 0)

    private let fd: Int32
    /// Where the prompt is written before each read; nil (piped input) writes none.
    private let promptFD: Int32?
    /// The command loop and a command reading its own line (`--password-stdin`) take turns.
    private let lock = Lock()
    private var buffer: [UInt8] = []
    private var atEOF = false
    private var entries: [String] = []
    private var taken = 0
    private var invalidByte: UInt8?

    /// The first byte of the last line handed out that is not UTF-8 (nil when the line was text): the
    /// line itself holds U+FFFD there, a character other than the one given.
    public var lastLineInvalidByte: UInt8? { lock.withLock { invalidByte } }

    /// Lines handed out so far, to whoever read them (the command loop or a command).
    public var linesTaken: Int { lock.withLock { taken } }

    /// `promptFD`: a terminal without the line editor (libedit missing) still shows the prompt, as plain
    /// text made inert (`TerminalText`: it holds server text, scenic and store names).
    public init(fd: Int32 = 0, promptFD: Int32? = nil) {
        self.fd = fd
        self.promptFD = promptFD
    }

    /// A whole line already read ahead, without touching the descriptor (nil when none is
    /// buffered): a piped session takes its next command here without a hop to the reader thread.
    public func bufferedLine() -> LineReadResult? {
        lock.withLock { takeBufferedLine() }
    }

    private func takeBufferedLine() -> LineReadResult? {
        guard let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var lineBytes = Array(buffer[..<nl])
        buffer.removeSubrange(...nl)
        if lineBytes.last == UInt8(ascii: "\r") { lineBytes.removeLast() }
        return handOut(lineBytes)
    }

    private func handOut(_ lineBytes: [UInt8]) -> LineReadResult {
        taken += 1
        invalidByte = UTF8Text.firstInvalid(lineBytes)?.byte
        return .line(String(decoding: lineBytes, as: UTF8.self))
    }

    public func readLine(prompt: PromptText) -> LineReadResult {
        lock.withLock {
            guard let promptFD else { return readLocked() }
            SignalRouter.takeWakeups()  // a Ctrl-C from before this prompt is dealt with already
            writeText(TerminalText.sanitize(prompt.plain), to: promptFD)
            let result = readLocked()
            // After Ctrl-C the next prompt starts on a line of its own, as after the line editor's.
            if case .interrupted = result { writeText("\n", to: promptFD) }
            return result
        }
    }

    private func writeText(_ text: String, to fd: Int32) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    private func readLocked() -> LineReadResult {
        while true {
            if let line = takeBufferedLine() { return line }
            if atEOF {
                if buffer.isEmpty { return .eof }
                defer { buffer.removeAll() }
                return handOut(buffer)
            }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            // At a prompt, a Ctrl-C typed as it appeared (before the read began) still ends the read.
            let n = chunk.withUnsafeMutableBytes { buffer in
                promptFD == nil ? read(fd, buffer.baseAddress, buffer.count)
                    : SignalRouter.readTerminal(fd, buffer.baseAddress!, count: buffer.count)
            }
            if n < 0 {
                if errno == EINTR { return .interrupted }
                atEOF = true
            } else if n == 0 {
                atEOF = true
            } else {
                buffer.append(contentsOf: chunk[0..<n])
            }
        }
    }

    public func addHistory(_ line: String, persist: Bool, context: HistoryContext?) { entries.append(line) }
    public var historyEntries: [String] { entries }
    public func close() {}
}
