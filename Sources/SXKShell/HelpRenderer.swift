/// Help text generated from the specs: the command table and each command's page.
public struct HelpRenderer: Sendable {
    public var specs: [CommandSpec]
    public var programName: String
    public var width: Int

    public init(specs: [CommandSpec], programName: String = "sxk", width: Int = 80) {
        self.specs = specs
        self.programName = programName
        self.width = width
    }

    /// `help`: every visible command grouped under its heading, with its summary.
    public func overview(title: String? = nil) -> String {
        var out = ""
        if let title { out += title + "\n\n" }
        var groups: [String] = []
        var members: [String: [CommandSpec]] = [:]
        for spec in specs where !spec.isHidden {
            let g = spec.group ?? "Commands"
            if members[g] == nil { groups.append(g) }
            members[g, default: []].append(spec)
        }
        let rows = specs.filter { !$0.isHidden }.map { synopsisName($0) }
        let nameWidth = min(28, rows.map(TextWidth.width).max() ?? 0)
        for (index, group) in groups.enumerated() {
            if index > 0 { out += "\n" }
            out += group + ":\n"
            for spec in members[group] ?? [] {
                out += twoColumns(synopsisName(spec), spec.summary, nameWidth: nameWidth)
            }
        }
        out += "\nRun 'help COMMAND' or 'COMMAND --help' for details.\n"
        return out
    }

    /// `help CMD`, `CMD --help`: usage, summary, arguments, flags, subcommands, examples.
    public func page(for chain: [CommandSpec]) -> String {
        guard let spec = chain.last else { return overview() }
        let path = chain.map(\.name).joined(separator: " ")
        var out = "Usage: " + usage(spec, path: path) + "\n"
        if !spec.aliases.isEmpty && chain.count == 1 { out += "Aliases: " + spec.aliases.joined(separator: ", ") + "\n" }
        out += "\n" + spec.summary + "\n"
        if let discussion = spec.discussion { out += "\n" + discussion + "\n" }

        var rows: [(String, String)] = []
        if !spec.arguments.isEmpty {
            out += "\nArguments:\n"
            rows = spec.arguments.map { (argName($0), $0.summary + kindNote($0.kind)) }
            out += table(rows)
        }
        let inherited = chain.dropLast().reversed().flatMap(\.flags).filter { f in !spec.flags.contains { $0.name == f.name } }
        let flags = spec.flags + inherited
        out += "\nOptions:\n"
        rows = flags.map { f in
            var left = f.short.map { "-\($0), " } ?? "    "
            left += "--" + f.name
            if !f.isSwitch { left += " " + f.valueName }
            return (left, f.summary + (f.value.map(kindNote) ?? ""))
        }
        rows.append(("-h, --help", "Show this help"))
        out += table(rows)
        let subs = spec.subcommands.filter { !$0.isHidden }
        if !subs.isEmpty {
            out += "\nSubcommands:\n"
            out += table(subs.map { ($0.name, $0.summary) })
        }
        if !spec.examples.isEmpty {
            out += "\nExamples:\n"
            for example in spec.examples { out += "  " + example + "\n" }
        }
        return out
    }

    /// One-line usage: `orders [--role ROLE] [--all] [PHONE]`.
    public func usage(_ spec: CommandSpec, path: String) -> String {
        var parts = [path]
        let subs = spec.subcommands.filter { !$0.isHidden }
        if !subs.isEmpty {
            let list = subs.map(\.name).joined(separator: "|")
            parts.append(spec.arguments.isEmpty && !subs.isEmpty ? "[\(list)]" : "[\(list)]")
        }
        for f in spec.flags {
            parts.append(f.isSwitch ? "[--\(f.name)]" : "[--\(f.name) \(f.valueName)]")
        }
        for a in spec.arguments { parts.append(argName(a)) }
        return parts.joined(separator: " ")
    }

    func synopsisName(_ spec: CommandSpec) -> String {
        var name = spec.name
        if !spec.aliases.isEmpty { name += " (" + spec.aliases.joined(separator: ", ") + ")" }
        return name
    }

    func argName(_ a: ArgumentSpec) -> String {
        var text = a.name + (a.isVariadic ? "…" : "")
        if a.isOptional || a.isVariadic { text = "[" + text + "]" }
        return text
    }

    func kindNote(_ kind: ValueKind) -> String {
        switch kind {
        case .choice(let choices): return " (" + choices.joined(separator: ", ") + ")"
        case .date: return " (yyyy-MM-dd)"
        default: return ""
        }
    }

    func table(_ rows: [(String, String)]) -> String {
        let w = min(30, rows.map { TextWidth.width($0.0) }.max() ?? 0)
        return rows.map { twoColumns($0.0, $0.1, nameWidth: w) }.joined()
    }

    func twoColumns(_ left: String, _ right: String, nameWidth: Int) -> String {
        let lw = TextWidth.width(left)
        if lw > nameWidth { return "  " + left + "\n" + String(repeating: " ", count: nameWidth + 4) + right + "\n" }
        return "  " + TextWidth.pad(left, to: nameWidth) + "  " + right + "\n"
    }
}
