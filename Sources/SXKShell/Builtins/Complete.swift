extension Builtins {
    /// `__complete WORDS…`: what the completion scripts in `completions/` call; hidden from help.
    enum Complete: TypedWordsBuiltin {
        static let spec: CommandSpec = {
            var spec = CommandSpec("__complete", summary: "Print completions for the words given (used by the completion scripts)",
                arguments: [ArgumentSpec("WORDS", optional: true, variadic: true, summary: "Words typed so far; the last is completed")])
            spec.isHidden = true
            return spec
        }()

        static func run(typed words: [String], in shell: Shell, io: CommandIO) async -> Int32 {
            shell.completeWords(words, io: io)
            return ExitStatus.ok
        }
    }
}

extension Shell {
    /// `__complete WORDS…`: candidates for the last word, one per line, `value<TAB>description`.
    func completeWords(_ rawWords: [String], io: CommandIO) {
        var words = rawWords
        if words.first == "--" { words.removeFirst() }
        let current = words.popLast() ?? ""
        // Skip the global options before the command.
        var i = 0
        var completingGlobalValue = false
        while i < words.count, words[i].hasPrefix("-") {
            let word = words[i]
            let name = word.hasPrefix("--") ? String(word.dropFirst(2)) : ""
            let takesValue = word == "-c" || (!word.contains("=") && GlobalOptions.flags.contains { $0.name == name && !$0.isSwitch })
            if takesValue {
                if i + 1 == words.count { completingGlobalValue = true }
                i += 2
            } else {
                i += 1
            }
        }
        var candidates: [CompletionCandidate]
        if completingGlobalValue {
            candidates = []
        } else if i >= words.count && current.hasPrefix("-") {
            candidates = (GlobalOptions.flags.map { CompletionCandidate("--" + $0.name, description: $0.summary) }
                + [CompletionCandidate("-c", description: "Run commands and exit")])
                .filter { $0.value.hasPrefix(current) }
        } else {
            candidates = engine.candidates(words: Array(words[min(i, words.count)...]), current: current, provider: values)
        }
        // One candidate per line: a tab, CR or LF inside a description (server text) is escaped with
        // every other control, so the shell's script shows nothing raw.
        let secrets = host.secrets
        for c in candidates.map({ $0.shown(secrets: secrets) }) {
            io.stdout.write(c.value + (c.description.map { "\t" + $0 } ?? "") + "\n")
        }
    }
}
