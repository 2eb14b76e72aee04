import SXKCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes errors, warnings and status lines as one line each on stderr: `error: …`, `warning: …`;
/// on a terminal an error or warning wider than it wraps at spaces (`fitted`).
public struct ErrorPresenter: Sendable {
    public let sink: any OutputSink
    public let color: Bool
    /// `FILE:LINE` of the startup-file line being run, put before each message.
    public let location: String?
    /// The live secrets (the session's token): a message quoting what was typed or sent may hold one.
    public let secrets: [String]
    public init(sink: any OutputSink, color: Bool, location: String? = nil, secrets: [String] = []) {
        self.sink = sink
        self.color = color
        self.location = location
        self.secrets = secrets
    }

    private var place: String { location.map { $0 + ": " } ?? "" }

    public func error(_ message: String) {
        say("error:", TextStyle.red, message)
    }

    public func error(_ error: any Error) {
        self.error(Self.message(for: error))
    }

    /// Output the disk or a file-size limit refused (`OutputSink.takeWriteError`): the command is not done.
    public func outputLost(_ code: Int32) {
        error("the output could not be written: \(String(cString: strerror(code)))")
    }

    public func warning(_ message: String) {
        say("warning:", TextStyle.yellow, message)
    }

    /// `label message`, fitted to the sink; the label alone coloured.
    private func say(_ label: String, _ style: TextStyle, _ message: String) {
        var rows = Self.fitted(label + " " + place + Self.oneLine(masked(message)), to: sink)
        if rows.hasPrefix(label) { rows = style.apply(label, enabled: color) + rows.dropFirst(label.count) }
        sink.write(rows + "\n")
        sink.flush()
    }

    /// A message as it is written to `sink`: on a terminal wrapped at spaces to its width, each row
    /// after the first indented two, as a command's notes are (the terminal would break it
    /// mid-word); into a pipe or file one line, so a script can grep it.
    public static func fitted(_ line: String, to sink: any OutputSink) -> String {
        guard let width = sink.messageWidth, TextWidth.width(line) > width else { return line }
        return Renderer.wrapped(line, width: width).joined(separator: "\n")
    }

    /// A status line (a builtin's confirmation: `set`, `let`), on one line and inert, without a prefix.
    public func note(_ line: String) {
        sink.write(Self.oneLine(masked(line)) + "\n")
        sink.flush()
    }

    /// Puts the cursor at the start of a line whether or not the output before ended one, as zsh does
    /// before its prompt: a `%` (reverse video with colour) and a line's width of spaces, then a carriage
    /// return. At the start of a line the spaces fill it and the return comes back over the `%`, which the
    /// prompt covers; mid-line they wrap, and the `%` stays to mark the output that ended without a newline.
    public func startLine(width: Int) {
        sink.write(Self.lineEndMark(width: width, color: color))
        sink.flush()
    }

    static func lineEndMark(width: Int, color: Bool) -> String {
        (color ? "\u{1B}[7m%\u{1B}[27m" : "%") + String(repeating: " ", count: max(0, width - 1)) + "\r"
    }

    /// Ends the line a Ctrl-C's `^C`, echoed by the terminal, left the cursor on.
    public func endInterruptedLine() {
        sink.write("\n")
        sink.flush()
    }

    private func masked(_ text: String) -> String { secrets.isEmpty ? text : Redaction.redact(text, secrets: secrets) }

    /// The user-facing text of an error: its description when it has one.
    public static func message(for error: any Error) -> String {
        String(describing: error)
    }

    /// The message on one line and inert on a terminal: messages quote server and file text, so every
    /// control (newlines too) is shown as an escape (`TerminalText`). A message longer than
    /// `longestMessage` scalars (a pasted megabyte quoted by a usage error, a server's page of text)
    /// keeps its start and its end, with how much was left out between them.
    static func oneLine(_ s: String) -> String {
        let shown = TerminalText.sanitize(s)
        // Counted as shown (an escape is several characters) and cut between characters, never
        // inside one (a flag's pair, a letter and its accent).
        guard shown.utf8.count > longestMessage else { return shown }
        let count = shown.count
        let scalars = shown.unicodeScalars.count
        guard count > longestMessage || scalars > 4 * longestMessage else { return shown }
        var head = String(shown.prefix(keptHead)), tail = String(shown.suffix(keptTail))
        // A character of thousands of combining marks counts as one: past four scalars a character
        // on average, the cut is by scalars.
        if head.unicodeScalars.count > 4 * keptHead { head = String(String.UnicodeScalarView(head.unicodeScalars.prefix(keptHead))) }
        if tail.unicodeScalars.count > 4 * keptTail { tail = String(String.UnicodeScalarView(tail.unicodeScalars.suffix(keptTail))) }
        let left = max(0, count - head.count - tail.count)
        return head + " … (\(left) characters left out) … " + tail
    }

    static let longestMessage = 2_000
    static let keptHead = 1_200
    static let keptTail = 400
}

/// An error said before the one that decides the status, both by the shell's one presenter: a
/// command's output that could not be shown (a `--jq` program failing on it), then the command's own
/// failure, whose status the run ends with.
public struct FollowedError: Error, CustomStringConvertible {
    public let first: any Error
    public let then: any Error

    public init(_ first: any Error, then: any Error) { self.first = first; self.then = then }

    public var description: String { "\(ErrorPresenter.message(for: first)); \(ErrorPresenter.message(for: then))" }
}
