/// Values for the completion engine from the host's providers (`command` is answered by the engine).
struct ShellValues: CompletionValueProvider, @unchecked Sendable {
    let host: any ShellHost
    let specs: [CommandSpec]
    let variables: VariableStore
    let aliases: AliasTable
    func completions(for provider: String, prefix: String) -> [CompletionCandidate] {
        switch provider {
        case "variable":
            return variables.all.filter { $0.name.hasPrefix(prefix) }
                .map { CompletionCandidate($0.name, description: Variables.preview($0.entry.value, width: 60)) }
        case "alias":
            return aliases.all.filter { $0.name.hasPrefix(prefix) }
                .map { CompletionCandidate($0.name, description: "alias for " + $0.text) }
        default:
            return host.completions(for: provider, prefix: prefix)
        }
    }
    func aliasWords(_ name: String) -> [String]? {
        aliases.alias(name)?.commands.last?.map(\.text)
    }
}

/// Carries a line reader from the reader thread back to the loop.
struct ReaderBox: @unchecked Sendable {
    let reader: any LineReader
}
