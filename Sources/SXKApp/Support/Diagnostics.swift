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

    /// Several status lines (`time:` and its requests), each ended by a newline.
    func lines(_ text: String) {
        sink.write(TerminalText.sanitizeLines(Redaction.redact(text, secrets: secrets)))
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
