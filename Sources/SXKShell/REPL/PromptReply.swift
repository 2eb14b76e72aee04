/// What a prompt on the terminal gave: an answer, no terminal to ask on, or Ctrl-D.
public enum PromptReply: Sendable, Equatable {
    case answer(String)
    case noTerminal
    /// Ctrl-D on an empty answer (or the terminal closed).
    case endOfInput
}

extension CommandIO {
    /// Asks for a line on the terminal (echo off when `secret`), telling Ctrl-D apart from having no
    /// terminal at all. Throws `CancellationError` on Ctrl-C.
    /// Runs `body` with the terminal's echo off (line input kept), for a command that may ask for a
    /// password once a request has answered (`switch-account`, `compare --as account:`): keys typed
    /// ahead of that prompt are not shown meanwhile. Without a terminal in the foreground, or when
    /// `prompting` is false (the password comes from stdin), just `body`.
    public func withEchoOff<T>(prompting: Bool, _ body: () async throws -> T) async rethrows -> T {
        let restore = prompting ? TerminalPrompt.echoOff() : nil
        defer { restore?() }
        return try await body()
    }

    /// Throws away keys typed on the terminal and not read yet: a password typed ahead of a prompt
    /// that will not come (a login refused by its local checks) must not become the next command
    /// line, shown and run, or reach the shell a one-shot returns to.
    public func discardTypedAhead() { TerminalPrompt.discardTypedAhead() }

    public func readReply(prompt: String, secret: Bool = false) async throws -> PromptReply {
        stdout.flush()
        let work: @Sendable () -> TerminalPrompt.Outcome = { TerminalPrompt.ask(prompt: prompt, secret: secret) }
        let outcome: TerminalPrompt.Outcome = await status.holding { [reader] in
            if let reader { return await reader.run(work) } else { return work() }
        }
        switch outcome {
        case .answer(let text): return .answer(text)
        case .noTerminal: return .noTerminal
        case .eof: return .endOfInput
        case .interrupted: throw CancellationError()
        }
    }
}
