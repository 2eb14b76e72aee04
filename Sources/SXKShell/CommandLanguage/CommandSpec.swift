import SXKCore

/// What a flag's value or a positional argument is, for parsing, help and completion.
public enum ValueKind: Sendable, Equatable {
    case string
    case int
    case double
    /// `yyyy-MM-dd`.
    case date
    /// A local file path (completed from the file system by the generated shell scripts only).
    case path
    /// One of a fixed list (parsing refuses anything else and suggests the nearest).
    case choice([String])
    /// Values named by a provider (`"scenic"`, `"store"`, `"role"`, `"account"`, `"permission"`,
    /// `"endpoint"`, `"command"`…) that the app fills from cached session data; never the network.
    case provider(String)
}

/// A `--name VALUE` option or a `--name` switch (`value == nil`).
public struct FlagSpec: Sendable, Equatable {
    public var name: String
    public var short: Character?
    public var value: ValueKind?
    public var valueName: String
    public var summary: String
    /// The command cannot run without it (`compare --as`): usage lines show it unbracketed.
    public var isRequired: Bool

    public init(_ name: String, short: Character? = nil, value: ValueKind? = nil, valueName: String? = nil, required: Bool = false, summary: String) {
        self.name = name
        self.short = short
        self.value = value
        self.valueName = valueName ?? name.uppercased().replacingAll("-", with: "_")
        self.isRequired = required
        self.summary = summary
    }

    public var isSwitch: Bool { value == nil }
}

/// A positional argument.
public struct ArgumentSpec: Sendable, Equatable {
    public var name: String
    public var kind: ValueKind
    public var isOptional: Bool
    /// Takes every remaining word (`get PATH [k=v…]`).
    public var isVariadic: Bool
    public var summary: String
    /// Where a password may be typed by mistake (a phone, an account of a command that reads one): a
    /// word that cannot be this argument is never shown back (errors, `history`, `alias`).
    public var typedInPlace: Redaction.TypedInPlace?

    public init(_ name: String, kind: ValueKind = .string, optional: Bool = false, variadic: Bool = false, summary: String,
                typedInPlace: Redaction.TypedInPlace? = nil) {
        self.name = name
        self.kind = kind
        self.isOptional = optional
        self.isVariadic = variadic
        self.summary = summary
        self.typedInPlace = typedInPlace
    }
}

/// The one description of a command. Parsing, `help`, `CMD --help`, REPL completion, the
/// bash/zsh/fish scripts and the man page are all derived from it.
public struct CommandSpec: Sendable, Equatable {
    public var name: String
    public var aliases: [String]
    public var summary: String
    /// Longer help shown by `help CMD`, optional.
    public var discussion: String?
    public var arguments: [ArgumentSpec]
    public var flags: [FlagSpec]
    /// `stats summary`, `menus common add`: a subcommand is a full spec of its own.
    public var subcommands: [CommandSpec]
    public var examples: [String]
    /// Reads a secret or changes the session in a way that must never be written to history.
    public var neverInHistory: Bool
    /// Left out of `help` and completion (`__complete`).
    public var isHidden: Bool = false
    /// Heading under which `help` lists the command ("Session", "Shell"…); nil → "Commands".
    public var group: String? = nil
    /// The first positional starts a command line of its own (`watch -n 5 orders --all`): every word
    /// after it is passed on as a positional, not parsed as this command's flags, and completion
    /// continues with that inner command's spec.
    public var passesCommand: Bool = false
    /// It runs until it is stopped unless given this flag (`watch --count`): `let`, which waits for a
    /// command's data, refuses it without.
    public var endlessUnless: String?
    /// The flags of the command it passes on that it takes (`compare`: one page's), nil for all: Tab
    /// offers only these, and the command refuses the others.
    public var passedFlags: Swift.Set<String>?
    /// One of the subcommands must be given (`explain menu …`): usages write them `{a|b}`, not `[a|b]`.
    public var requiresSubcommand: Bool = false

    public init(
        _ name: String, aliases: [String] = [], summary: String, discussion: String? = nil,
        arguments: [ArgumentSpec] = [], flags: [FlagSpec] = [], subcommands: [CommandSpec] = [],
        examples: [String] = [], neverInHistory: Bool = false
    ) {
        self.name = name
        self.aliases = aliases
        self.summary = summary
        self.discussion = discussion
        self.arguments = arguments
        self.flags = flags
        self.subcommands = subcommands
        self.examples = examples
        self.neverInHistory = neverInHistory
    }

    /// This spec with `passesCommand` set, taking `flags` of the command passed on (nil: all).
    public func passingCommand(flags: Swift.Set<String>? = nil) -> CommandSpec {
        var copy = self
        copy.passesCommand = true
        copy.passedFlags = flags
        return copy
    }

    /// This spec with `endlessUnless` set.
    public func endless(unless flag: String) -> CommandSpec {
        var copy = self
        copy.endlessUnless = flag
        return copy
    }

    /// This spec with `requiresSubcommand` set.
    public func requiringSubcommand() -> CommandSpec {
        var copy = self
        copy.requiresSubcommand = true
        return copy
    }

    /// `[a|b]`, or `{a|b}` when one is required: the subcommands as every usage writes them.
    public func subcommandChoice(_ names: [String]) -> String {
        let list = names.joined(separator: "|")
        return requiresSubcommand ? "{" + list + "}" : "[" + list + "]"
    }

    public func matches(_ word: String) -> Bool { name == word || aliases.contains(word) }
    public func flag(named name: String) -> FlagSpec? { flags.first { $0.name == name } }
    public func subcommand(_ word: String) -> CommandSpec? { subcommands.first { $0.matches(word) } }
}

/// A command line after parsing against its spec.
public struct ParsedCommand: Sendable, Equatable {
    /// The top-level spec and the chain of subcommands chosen (`["stats", "daily"]`).
    public var spec: CommandSpec
    public var path: [String]
    public var positionals: [String]
    /// Values of value flags in the order given (a repeated flag keeps every value).
    public var options: [String: [String]]
    public var switches: Set<String>

    public init(spec: CommandSpec, path: [String], positionals: [String] = [], options: [String: [String]] = [:], switches: Set<String> = []) {
        self.spec = spec
        self.path = path
        self.positionals = positionals
        self.options = options
        self.switches = switches
    }

    /// The last value given for a value flag.
    public func option(_ name: String) -> String? { options[name]?.last }
    public func has(_ name: String) -> Bool { switches.contains(name) || options[name] != nil }
    /// The subcommand name chosen below the top level, if any (`stats daily` → `daily`).
    public var subcommand: String? { path.count > 1 ? path[1] : nil }

    /// Whether the command as chosen (its subcommands' specs included) takes the flag `name`.
    public func accepts(_ name: String) -> Bool {
        var current = spec
        if current.flag(named: name) != nil { return true }
        for word in path.dropFirst() {
            guard let next = current.subcommand(word) else { break }
            current = next
            if current.flag(named: name) != nil { return true }
        }
        return false
    }
}
