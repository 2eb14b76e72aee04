/// Help text generated from the specs: the command table and each command's page.
public struct HelpRenderer: Sendable {
    public var specs: [CommandSpec]
    public var programName: String
    /// The terminal's columns when help is fitted to it (stdout a terminal): every line wraps
    /// within it, a summary under its own column. Nil: lines as long as they are (pipes, files).
    public var width: Int?

    public init(specs: [CommandSpec], programName: String = "sxk", width: Int? = nil) {
        self.specs = specs
        self.programName = programName
        self.width = width
    }

    /// `help`: every visible command grouped under its heading, with its summary.
    public func overview(title: String? = nil) -> String {
        var out = ""
        if let title { out += paragraph(title) + "\n" }
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
        out += "\n" + OutputTarget.helpTitle + ":\n"
        for text in OutputTarget.helpText { out += paragraph(text, first: "  ", rest: "  ") }
        out += "\n" + paragraph("Run 'help COMMAND' or 'COMMAND --help' for details.")
        return out
    }

    /// `help CMD`, `CMD --help`: usage, summary, arguments, flags, subcommands, examples.
    public func page(for chain: [CommandSpec]) -> String {
        guard let spec = chain.last else { return overview() }
        let path = chain.map(\.name).joined(separator: " ")
        // Continued usage lines start under the first word after the command's name.
        let pathWidth = TextWidth.width(path)
        let under = pathWidth + 8 <= (width ?? 0) / 2 ? pathWidth + 8 : 8
        var out = paragraph(words: ["Usage:"] + usageParts(spec, path: path), rest: String(repeating: " ", count: under))
        if !spec.aliases.isEmpty && chain.count == 1 { out += paragraph("Aliases: " + spec.aliases.joined(separator: ", ")) }
        out += "\n" + paragraph(spec.summary)
        if let discussion = spec.discussion { out += "\n" + paragraph(discussion) }

        var rows: [(String, String)] = []
        if !spec.arguments.isEmpty {
            out += "\nArguments:\n"
            rows = spec.arguments.map { (Self.argName($0), $0.summary + kindNote($0.kind, after: $0.summary)) }
            out += table(rows)
        }
        let inherited = chain.dropLast().reversed().flatMap(\.flags).filter { f in !spec.flags.contains { $0.name == f.name } }
        let flags = spec.flags + inherited
        out += "\nOptions:\n"
        rows = flags.map { f in
            var left = f.short.map { "-\($0), " } ?? "    "
            left += "--" + f.name
            if !f.isSwitch { left += " " + f.valueName }
            return (left, f.summary + (f.value.map { kindNote($0, after: f.summary) } ?? ""))
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
            for example in spec.examples { out += paragraph(example, first: "  ", rest: "      ") }
        }
        return out
    }

    /// One-line usage: `orders [--role ROLE] [--all] [PHONE]`.
    public func usage(_ spec: CommandSpec, path: String) -> String {
        usageParts(spec, path: path).joined(separator: " ")
    }

    /// The usage's words: the path, then each bracketed flag or argument (never split when wrapped).
    func usageParts(_ spec: CommandSpec, path: String) -> [String] {
        var parts = [path]
        let subs = spec.subcommands.filter { !$0.isHidden }
        if !subs.isEmpty { parts.append(spec.subcommandChoice(subs.map(\.name))) }
        for f in spec.flags {
            let text = f.isSwitch ? "--\(f.name)" : "--\(f.name) \(f.valueName)"
            parts.append(f.isRequired ? text : "[" + text + "]")
        }
        for a in spec.arguments { parts.append(Self.argName(a)) }
        return parts
    }

    func synopsisName(_ spec: CommandSpec) -> String {
        var name = spec.name
        if !spec.aliases.isEmpty { name += " (" + spec.aliases.joined(separator: ", ") + ")" }
        return name
    }

    /// An argument as usage lines show it: `FILE`, `[N]`, `[WORDS…]`.
    static func argName(_ a: ArgumentSpec) -> String {
        var text = a.name + (a.isVariadic ? "…" : "")
        if a.isOptional || a.isVariadic { text = "[" + text + "]" }
        return text
    }

    /// The values or format a summary does not already give (as the man page leaves them out).
    func kindNote(_ kind: ValueKind, after summary: String) -> String {
        switch kind {
        case .choice(let choices) where !choices.allSatisfy(summary.contains): return " (" + choices.joined(separator: ", ") + ")"
        case .date where !summary.contains("yyyy-MM-dd"): return " (yyyy-MM-dd)"
        default: return ""
        }
    }

    func table(_ rows: [(String, String)]) -> String {
        let w = min(30, rows.map { TextWidth.width($0.0) }.max() ?? 0)
        return rows.map { twoColumns($0.0, $0.1, nameWidth: w) }.joined()
    }

    func twoColumns(_ left: String, _ right: String, nameWidth: Int) -> String {
        let indent = String(repeating: " ", count: nameWidth + 4)
        let lw = TextWidth.width(left)
        guard let width else {
            if lw > nameWidth { return "  " + left + "\n" + indent + right + "\n" }
            return "  " + TextWidth.pad(left, to: nameWidth) + "  " + right + "\n"
        }
        // Too narrow for a summary column: the summary goes under its name, indented.
        if width - indent.count < Self.narrowest {
            return paragraph(left, first: "  ", rest: "      ") + paragraph(right, first: "      ", rest: "      ")
        }
        if lw > nameWidth { return paragraph(left, first: "  ", rest: "      ") + paragraph(right, first: indent, rest: indent) }
        return paragraph(right, first: "  " + TextWidth.pad(left, to: nameWidth) + "  ", rest: indent)
    }

    /// The fewest columns a wrapped summary is given before it moves under its name.
    static let narrowest = 20

    // MARK: fitting

    /// `text` as lines ending in a newline: whole when there is no width, else wrapped at spaces
    /// within `width` (each line of `text` on its own), the first line after `first`, the others after `rest`.
    func paragraph(_ text: String, first: String = "", rest: String = "") -> String {
        guard width != nil else { return first + text + "\n" }
        var out = ""
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            out += paragraph(words: line.split(separator: " ").map(String.init), first: i == 0 ? first : rest, rest: rest)
        }
        return out
    }

    /// Words joined by spaces, wrapped within `width` when there is one.
    func paragraph(words: [String], first: String = "", rest: String = "") -> String {
        guard let width else { return first + words.joined(separator: " ") + "\n" }
        return Self.wrap(words, width: width, first: first, rest: rest).map { $0 + "\n" }.joined()
    }

    /// Greedy wrapping by display width (East Asian wide characters count two): no line is wider
    /// than `width`; a word wider than a whole line is cut between characters. An indent that
    /// leaves fewer than `narrowest` columns shrinks to two spaces.
    static func wrap(_ words: [String], width: Int, first: String, rest: String) -> [String] {
        let width = max(width, 1)
        func fitting(_ indent: String) -> String {
            width - TextWidth.width(indent) >= min(narrowest, width / 2) ? indent : String(repeating: " ", count: min(2, width - 1))
        }
        let continued = fitting(rest)
        var lines: [String] = []
        var line = fitting(first)
        var used = TextWidth.width(line)
        var empty = true
        func newLine() {
            lines.append(line)
            line = continued
            used = TextWidth.width(continued)
            empty = true
        }
        for word in words where !word.isEmpty {
            let w = TextWidth.width(word)
            if !empty && used + 1 + w > width { newLine() }
            if !empty {
                line += " "
                used += 1
            }
            if used + w <= width {
                line += word
                used += w
                empty = false
                continue
            }
            // Wider than what is left of an empty line: cut between characters.
            for character in word {
                let cw = TextWidth.width(String(character))
                if used + cw > width && !empty { newLine() }
                line += String(character)
                used += cw
                empty = false
            }
        }
        lines.append(line)
        return lines.map { line in
            var line = line
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
