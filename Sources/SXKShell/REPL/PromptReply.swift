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
