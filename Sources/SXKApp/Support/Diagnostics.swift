import SXKCore
import SXKShell

/// The app's one path to stderr for what is not a command's returned output: lines that must show
/// before the command finishes (a prompt's lead-in, a progress line, a validation's warning), whole
/// however wide the terminal (a file name in a confirmation), or said outside any command (start,
/// exit). Every line is masked (the live secrets) and made inert (`TerminalText`) here, once; what
/// a command returns in `CommandOutput.notes`/`warnings` goes through the renderer instead.
struct Diagnostics: Sendable {
    let sink: any OutputSink
    /// The live secret values to mask (the session's tokens), when there is a session.
    var secrets: [String] = []
    var color = false

    /// A status line as given (`note: …`, `wrote …`, `watch: stopped …`), on one line.
    func note(_ line: String) {
        sink.write(TerminalText.sanitize(Redaction.redact(line, secrets: secrets)) + "\n")
        sink.flush()
    }

    /// Part of a question (why an answer was not taken, and what to type), wrapped at spaces on a
    /// terminal as the question is; `note` stays one line, since some notes are commands to copy.
    func question(_ line: String) {
        sink.write(ErrorPresenter.fitted(TerminalText.sanitize(Redaction.redact(line, secrets: secrets)), to: sink) + "\n")
        sink.flush()
    }

    /// Several lines, each ended by a newline, in one write (a trace's lines from calls in flight
    /// together never interleave). The first `statusLines` of them (`time:` and its requests, a
    /// trace's answer line) are wrapped at spaces on a terminal, as notes are, rather than mid-word
    /// by the terminal; the rest (a trace's headers and body excerpt: text to copy) stay as given.
    func lines(_ text: String, statusLines: Int = 0) {
        let safe = TerminalText.sanitizeLines(Redaction.redact(text, secrets: secrets))
        guard statusLines > 0 else {
            sink.write(safe)
            sink.flush()
            return
        }
        var out = ""
        for (n, line) in safe.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            out += (n < statusLines ? ErrorPresenter.fitted(String(line), to: sink) : String(line)) + "\n"
        }
        sink.write(out)
        sink.flush()
    }

    /// `warning: …`
    func warning(_ message: String) { presenter.warning(Redaction.redact(message, secrets: secrets)) }

    /// `error: …`
    func error(_ message: String) { presenter.error(Redaction.redact(message, secrets: secrets)) }

    private var presenter: ErrorPresenter { ErrorPresenter(sink: sink, color: color) }
}

extension AppCommands {
    /// The one sink, for this command's terminal and session.
    var diagnostics: Diagnostics { Diagnostics(sink: io.stderr, secrets: host.secrets, color: io.errors.color) }
}

extension SXKHost {
    /// The one sink outside a command (start, exit).
    var diagnostics: Diagnostics { Diagnostics(sink: stderr, secrets: secrets) }
}
