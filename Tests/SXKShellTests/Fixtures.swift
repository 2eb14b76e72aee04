import SXKShell

/// Fixture specs for the shell tests (not the app's commands).
enum Fixtures {
    static let orders = CommandSpec(
        "orders", aliases: ["o"], summary: "List orders",
        flags: [
            FlagSpec("role", short: "r", value: .choice(["photographer", "scenicAdmin", "storeAdmin"]), summary: "Role to list for"),
            FlagSpec("status", value: .string, summary: "Order status"),
            FlagSpec("page", value: .int, summary: "Page number"),
            FlagSpec("ratio", value: .double, summary: "A ratio"),
            FlagSpec("from", value: .date, valueName: "DATE", summary: "First day"),
            FlagSpec("scenic", value: .provider("scenic"), valueName: "ID", summary: "Scenic area"),
            FlagSpec("all", short: "a", summary: "Every page"),
        ],
        examples: ["orders --role storeAdmin --all"]
    )
    static let stats = CommandSpec(
        "stats", summary: "Statistics",
        flags: [FlagSpec("period", value: .choice(["today", "week", "month"]), summary: "Period")],
        subcommands: [
            CommandSpec("summary", summary: "Totals"),
            CommandSpec("daily", summary: "Per day", flags: [FlagSpec("chart", summary: "Draw a chart")]),
        ]
    )
    static let scenic = CommandSpec(
        "scenic", summary: "Show or switch the scenic area", group: "Session",
        arguments: [ArgumentSpec("ID", kind: .provider("scenic"), optional: true, summary: "Scenic id or name")]
    )
    static let login = CommandSpec(
        "login", summary: "Log in", group: "Session",
        arguments: [ArgumentSpec("PHONE", optional: true, summary: "Phone number")],
        flags: [FlagSpec("password-stdin", summary: "Read the password from stdin")],
        neverInHistory: true
    )
    static let get = CommandSpec(
        "get", summary: "Raw GET",
        arguments: [ArgumentSpec("PATH", summary: "Endpoint path"), ArgumentSpec("PARAMS", optional: true, variadic: true, summary: "k=v pairs")]
    )
    static let specs = [orders, stats, scenic, login, get]

    struct Scenics: CompletionValueProvider {
        func completions(for provider: String, prefix: String) -> [CompletionCandidate] {
            guard provider == "scenic" else { return [] }
            let all = [("1", "西湖景区"), ("2", "灵隐寺"), ("3", "千岛湖"), ("西湖 北线", "name with a space"), ("9", "断桥\r\n残雪\t店\n"), ("西湖\u{1B}]52;c;eA==\u{07}", "a hostile value"), ("西湖\u{0}x", "a NUL")]
            return all.filter { $0.0.hasPrefix(prefix) || $0.1.hasPrefix(prefix) }.map { CompletionCandidate($0.0, description: $0.1) }
        }
    }
}

extension CommandSpec {
    init(_ name: String, summary: String, group: String?, arguments: [ArgumentSpec] = [], flags: [FlagSpec] = [], neverInHistory: Bool = false) {
        self.init(name, summary: summary, arguments: arguments, flags: flags, neverInHistory: neverInHistory)
        self.group = group
    }
}
