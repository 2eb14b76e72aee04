import SXKShell

/// Every app command, declared once. Parsing, help, completion (REPL and the scripts in
/// `completions/`) all come from these values; `AppCommands` binds each name to its handler.
enum CommandCatalog {
    static let roles: ValueKind = .provider("role")

    /// `get` / `post`'s request flags, as HTTPie and `gh api` have them.
    static let rawRequest = [
        FlagSpec("print", value: .string, valueName: "HBhb", summary: "what to show: H request headers, B request body, h response headers (stderr), b response body (default b)"),
        FlagSpec("verbose", short: "v", summary: "show the request and the response headers too (--print HBhb)"),
        FlagSpec("paginate", summary: "walk every page of a list endpoint (page, list, total) into one list"),
    ]

    /// Output flags shared by the commands that print API data.
    static let json = FlagSpec("json", summary: "print the decoded data as JSON")
    /// `stats`: the app's first screen reads the first daily page; `--all` every page.
    static let statsAll = FlagSpec("all", summary: "read every daily page (default: the first, as the app's first screen does)")
    static let raw = FlagSpec("raw", summary: "print the whole response envelope as received")
    static let ndjson = FlagSpec("ndjson", summary: "print one JSON object per line (lists)")
    static let columns = FlagSpec("columns", value: .string, valueName: "A,B,C", summary: "table columns to show, in order")
    static let csv = FlagSpec("csv", summary: "print the rows as CSV (header of data keys)")
    static let tsv = FlagSpec("tsv", summary: "print the rows as tab-separated values")
    static let expanded = FlagSpec("expanded", short: "x", summary: "print each row as a record, one field per line")
    static let wide = FlagSpec("wide", summary: "show every column uncut, however wide")
    static let limit = FlagSpec("limit", value: .int, valueName: "N", summary: "stop after N rows (1 or more)")
    static let dataOutput = [json, raw]
    /// Commands whose main output is a table: every row format and the column choice.
    static let tableOutput = [json, ndjson, csv, tsv, expanded, wide, columns]
    static let listOutput = [json, raw, ndjson, csv, tsv, expanded, wide, columns]

    static let jq = FlagSpec("jq", value: .string, valueName: "EXPR", summary: "filter the data with a jq expression (strings print raw)")

    static let noPager = FlagSpec("no-pager", summary: "print directly, not through the pager (as sxk --no-pager)")

    /// Every command, with `--jq` and `--no-pager` beside each `--json`: whatever prints data can
    /// filter it and print it unpaged.
    static let all: [CommandSpec] = declared.map(withJQ)

    private static func withJQ(_ spec: CommandSpec) -> CommandSpec {
        var spec = spec
        if spec.flags.contains(where: { $0.name == "json" }) && !spec.flags.contains(where: { $0.name == "jq" }) {
            spec.flags.append(jq)
        }
        if spec.flags.contains(where: { $0.name == "json" }) && !spec.flags.contains(where: { $0.name == "no-pager" }) {
            spec.flags.append(noPager)
        }
        spec.subcommands = spec.subcommands.map(withJQ)
        return spec
    }

    private static let declared: [CommandSpec] = [
        // Environment and raw API
        CommandSpec(
            "env", summary: "show the environment, or switch to another",
            discussion: "Environments: test, release, sandbox, or any base URL. Plain http:// is accepted for loopback hosts only unless --insecure-http was given at start. Switching keeps each environment's session apart (profile = environment name, or host-port for a URL such as 127.0.0.1-8080, unless --profile).",
            flags: [json],
            subcommands: [
                CommandSpec("use", summary: "switch to an environment or base URL",
                            arguments: [ArgumentSpec("NAME|URL", kind: .provider("env"), summary: "test, release, sandbox, a URL, or - for the previous one")]),
            ],
            examples: ["env", "env use test", "env use -", "env use http://127.0.0.1:8080"]
        ),
        CommandSpec("config", summary: "GET /api/app/config (the login page's first call)", flags: [raw] + tableOutput),
        CommandSpec(
            "get", summary: "raw GET through the session's client: status, code, timing, data",
            discussion: "Items as in HTTPie: k=v a query parameter, k:=1 one from a JSON scalar, Name:value a request header (no CR or LF). The status line and, with --print or -v, the headers go to stderr; stdout is the data.",
            arguments: [
                ArgumentSpec("PATH", kind: .provider("get-endpoint"), summary: "API path, e.g. /api/app/store/all"),
                ArgumentSpec("ITEM", optional: true, variadic: true, summary: "k=v, k:=JSON or Header:value"),
            ],
            flags: rawRequest + dataOutput + [ndjson],
            examples: ["get /api/app/store/all", "get /api/yf-handset-app/photog/order/listv2 page:=2 pageSize:=5 --json",
                       "get /api/app/store/order/list storeId=301 --paginate --ndjson", "get /api/app/config X-Trace-Id:abc -v"]
        ),
        CommandSpec(
            "post", summary: "raw POST through the session's client",
            discussion: "The body is one JSON argument, or items made into one object as in HTTPie: k=v a string, k:=JSON any JSON value (k:=1, k:=true, k:='[1,2]'); Name:value is a request header. The status line and, with --print or -v, the headers go to stderr.",
            arguments: [
                ArgumentSpec("PATH", kind: .provider("post-endpoint"), summary: "API path"),
                ArgumentSpec("JSON|ITEM", optional: true, variadic: true, summary: "a JSON body, or k=v, k:=JSON, Header:value"),
            ],
            flags: rawRequest + dataOutput + [ndjson],
            examples: [#"post /api/app/v9/set-user '{"userId":1001,"accountType":"scenic"}'"#, "post /api/app/v9/set-user userId:=1001 accountType=scenic -v"]
        ),

        // Session
        CommandSpec(
            "login", summary: "log in: local checks, v9/login, account choice, set-user",
            discussion: "The password is read at a no-echo prompt, or from standard input with --password-stdin; it is never accepted as an argument. A login line is never written to history.",
            arguments: [ArgumentSpec("PHONE", optional: true, summary: "11 digits starting with 1 (default: the last phone)")],
            flags: [
                FlagSpec("password-stdin", summary: "read the password from standard input"),
                FlagSpec("account", value: .provider("login-account"), valueName: "ID|INDEX", summary: "choose this account when the login has several"),
                FlagSpec("accept-privacy", summary: "accept the privacy agreement (remembered)"),
                json,
            ],
            examples: ["login 13800000001", "echo \"$PW\" | sxk login 13800000004 --password-stdin --account 2"],
            neverInHistory: true
        ),
        CommandSpec("accounts", summary: "list the accounts of this login (current marked)", flags: tableOutput),
        CommandSpec(
            "switch-account", summary: "switch to another account of this login via set-user",
            discussion: "Works in any process: the login's account list is kept in the profile (never a token). When no held token can do the set-user (a new process has no temporary token), the password is asked once (no echo) or read with --password-stdin.",
            arguments: [ArgumentSpec("ID[:TYPE]|INDEX|-", kind: .provider("account"), optional: true,
                                     summary: "account id (ID:scenic or ID:store when an id is both), list number, or - for the one before")],
            flags: [FlagSpec("password-stdin", summary: "read the password from standard input if a new login is needed"), json],
            examples: ["switch-account 2", "switch-account 5001:store", "switch-account -", "echo \"$PW\" | sxk switch-account 4002 --password-stdin"],
            neverInHistory: true
        ),
        CommandSpec("logout", summary: "clear token, snapshot and contexts; keep last phone and privacy flag"),
        CommandSpec(
            "whoami", summary: "the session: phase, env, account, role, scopes, token (masked)",
            flags: tableOutput
        ),
        CommandSpec("keys", summary: "the state as the iOS app's UserDefaults would hold it",
                    flags: [FlagSpec("all", summary: "also sxk's own bookkeeping keys (sxk_…), which are not the app's")] + tableOutput),
        CommandSpec(
            "import-defaults", summary: "rebuild an account context from a device's UserDefaults export",
            arguments: [ArgumentSpec("FILE", kind: .path, summary: "plist (XML or binary) or JSON")],
            flags: [FlagSpec("profile", value: .string, valueName: "NAME", summary: "profile to import into (default: imported)")]
        ),

        // Account context and scopes
        CommandSpec(
            "role", summary: "list roles (current marked) or switch role",
            discussion: "- goes back to the role before the last switch (kept per profile, so also in a later process).",
            arguments: [ArgumentSpec("CODE|-", kind: roles, optional: true, summary: "role code, or - for the one before")], flags: tableOutput,
            examples: ["role", "role photographer", "role -"]
        ),
        CommandSpec(
            "scenic", summary: "list the role's scenic areas or switch scenic scope",
            discussion: "- goes back to the scenic area before the last switch (kept per profile).",
            arguments: [ArgumentSpec("ID|NAME|-", kind: .provider("scenic"), optional: true, summary: "scenic id or unique name prefix, or - for the one before")],
            flags: tableOutput,
            examples: ["scenic", "scenic 2", "scenic 灵隐", "scenic -"]
        ),
        CommandSpec(
            "store", summary: "list stores of the current scenic or switch store scope",
            discussion: "The list is fetched afresh each time. A store account's own store is marked OWN; switching to another one is done but warns, since the server refuses it that store's orders and statistics. - goes back to the store before the last switch (kept per profile).",
            arguments: [ArgumentSpec("ID|NAME|-", kind: .provider("store"), optional: true, summary: "store id or unique name prefix, or - for the one before")],
            flags: tableOutput,
            examples: ["store", "store 302", "store 梅峰", "store -"]
        ),
        CommandSpec(
            "permissions", summary: "flat permission URIs of the current role",
            flags: [FlagSpec("all", summary: "the whole role-permission list")] + tableOutput
        ),
        CommandSpec(
            "menus", summary: "home menus visible with the current permissions",
            flags: [json],
            subcommands: [
                CommandSpec(
                    "common", summary: "common menus of this account and role (default: first 4)",
                    flags: [json],
                    subcommands: [
                        CommandSpec("add", summary: "add a visible menu to the common menus",
                                    arguments: [ArgumentSpec("URI", kind: .provider("menu"), summary: "menu URI")]),
                        CommandSpec("remove", summary: "remove a menu from the common menus",
                                    arguments: [ArgumentSpec("URI", kind: .provider("common-menu"), summary: "menu URI")]),
                    ]
                ),
            ]
        ),
        CommandSpec(
            "home", summary: "replay HomeViewModel.initialize on a copy: steps with their basis, calls, key diff, the dialog",
            discussion: "Runs on a copy of the stored state, without validating the session first: the calls the app would make are made (--offline: none, the stored answers stand in) and listed in order, each step says whether the app's documents state its rule ([documented: seed …]) or sxk inferred it ([inferred: docs/app-behaviour.md#…]), and what the app would write is shown as a key diff (before → after). Nothing is saved unless --apply.",
            flags: [
                FlagSpec("offline", summary: "make no call: the stored answers stand in"),
                FlagSpec("apply", summary: "write the key diff to the profile"),
                json,
            ],
            examples: ["home", "home --offline --json", "home --apply"]
        ),
        CommandSpec(
            "location", summary: "location state and the 2-hour report timer",
            flags: [json],
            subcommands: [
                CommandSpec("detail", summary: "GET photog/loacation/detail for this account", flags: dataOutput),
                CommandSpec("online", summary: "go online (starts the 2-hour timer)"),
                CommandSpec("offline", summary: "go offline"),
                CommandSpec("report", summary: "record a location report now"),
                CommandSpec("remind", summary: "set the reminder minutes",
                            arguments: [ArgumentSpec("MINUTES", kind: .int, summary: "minutes, 0 turns it off")]),
            ]
        ),

        // Features
        CommandSpec(
            "orders", summary: "orders of the current role (photographer, scenic admin, store deposit orders)",
            flags: [
                FlagSpec("role", value: roles, valueName: "ROLE", summary: "role whose endpoint to use (default: current)"),
                FlagSpec("status", value: .provider("order-status"), valueName: "S", summary: "order status: code, label (已完成) or name (completed)"),
                FlagSpec("keyword", value: .string, valueName: "Q", summary: "search order no., customer or photographer"),
                FlagSpec("page", value: .int, valueName: "N", summary: "page number (from 1)"),
                FlagSpec("page-size", value: .int, valueName: "N", summary: "rows per page (1-100)"),
                FlagSpec("all", summary: "walk every page, streaming rows"),
                limit,
            ] + listOutput,
            examples: ["orders", "orders --role storeAdmin --status 2", "orders --all --ndjson | jq .orderNo"]
        ),
        CommandSpec(
            "stats", summary: "statistics summary and daily rows of the current role",
            flags: statsFlags + [chart, statsAll] + dataOutput + [wide],
            subcommands: [
                CommandSpec("summary", summary: "the summary only", flags: statsFlags + dataOutput),
                CommandSpec("daily", summary: "the daily rows only", flags: statsFlags + [chart, limit, statsAll] + listOutput),
            ],
            examples: ["stats", "stats --period week --chart", "stats daily --from 2026-11-01 --to 2026-11-28 --json"]
        ),
        CommandSpec(
            "profile", summary: "userinfo written back; photographers also get real-name and bank card, concurrently",
            flags: dataOutput
        ),

        // Power features (issue 9 §2–5): compare across identities, copy as curl, watch
        CommandSpec(
            "compare", summary: "run one request under several identities of this login: the permission matrix",
            discussion: "Identities: account:ID (user id or list number; its token comes from set-user for this command only), role:CODE (the account of this login with that role, else the current account acting in that role), scenic:ID and store:ID (the session's token with the request's scenicId / storeId set), current. The first identity is the baseline the bodies are compared with; one identity alone is compared with current. The request is get PATH [k=v…], post PATH [JSON|k=v…] or orders [--status S] [--keyword Q] [--page N] [--page-size N] (each identity's role picks the endpoint and scope). The session is not changed, whatever the answers; exit 4 when an identity got no answer.",
            arguments: [
                ArgumentSpec("COMMAND", kind: .choice(["get", "post", "orders"]), summary: "the request to send"),
                ArgumentSpec("ARGS", optional: true, variadic: true, summary: "the command's path, parameters and filters"),
            ],
            flags: [
                FlagSpec("as", value: .provider("identity"), valueName: "ID,ID…", summary: "identities, comma-separated (repeatable)"),
                FlagSpec("json", summary: "the whole matrix as JSON, with each identity's data"),
                FlagSpec("password-stdin", summary: "read the password from standard input if account: needs a new login"),
            ],
            examples: [
                "compare --as role:photographer,role:storeAdmin -- get /api/app/store/all",
                "compare --as account:4001,account:4002,account:4003 orders --page-size 5",
                "compare --as scenic:1,scenic:2 -- get /api/app/scenic-admin/order/list scenicId=1 pageSize=3",
            ]
        ).passingCommand(),
        CommandSpec(
            "curl", summary: "print a request this shell sent as a runnable curl command",
            discussion: "Without N: the last request. N is a number from `curl --list`; -1 is the last, -2 the one before. The last 20 requests are kept, in memory only. The token header is written \"token: $SXK_TOKEN\" unless --reveal-token; a password in a body is always ***, and is never kept.",
            arguments: [ArgumentSpec("N", kind: .int, optional: true, summary: "request number, or -1, -2… counting back")],
            flags: [
                FlagSpec("list", summary: "list the kept requests with their numbers"),
                FlagSpec("reveal-token", summary: "write the token itself instead of $SXK_TOKEN"),
                FlagSpec("json", summary: "with --list: the list as JSON"),
            ],
            examples: ["curl", "curl --list", "curl 12", "curl -2 --reveal-token"]
        ),
        CommandSpec(
            "watch", summary: "re-run a command every few seconds, redrawing, until Ctrl-C",
            discussion: "On a terminal each run replaces the screen; otherwise runs follow each other on stdout with a header line per run on stderr. A failing run is shown and watching goes on, except for a usage error (2), a lost login (3), or any failure with --errexit, which stop it with that status. Ctrl-C stops it (exit 130); --count N stops after N runs with the last run's status. With -d, as watch(1)'s, what changed since the previous run is shown in reverse video (on a terminal; colour is off then).",
            arguments: [
                ArgumentSpec("COMMAND", kind: .provider("command"), summary: "the command to repeat"),
                ArgumentSpec("ARGS", optional: true, variadic: true, summary: "its arguments and flags"),
            ],
            flags: [
                FlagSpec("interval", short: "n", value: .double, valueName: "SECONDS", summary: "seconds between runs (default 2, at least 0.1)"),
                FlagSpec("count", value: .int, valueName: "N", summary: "stop after N runs"),
                FlagSpec("errexit", short: "e", summary: "stop at the first failing run"),
                FlagSpec("differences", short: "d", summary: "highlight what changed since the last run (on a terminal)"),
            ],
            examples: ["watch orders --page-size 5", "watch -d -n 5 whoami", "watch -n 10 stats --period today", "watch --count 3 -n 0.5 get /api/app/config"]
        ).passingCommand(),

        // Shell
        CommandSpec(
            "trace", summary: "print every request and response (secrets masked) to stderr",
            arguments: [ArgumentSpec("on|off", kind: .choice(["on", "off"]), optional: true, summary: "turn tracing on or off")]
        ),
        CommandSpec(
            "timing", summary: "print each command's time",
            arguments: [ArgumentSpec("on|off", kind: .choice(["on", "off"]), optional: true, summary: "turn timing on or off")]
        ),

        // Cold-start replay and the manual page (issue 9: boot, man)
        CommandSpec(
            "boot", summary: "replay the app's cold start on the stored state: SDKs, root screen, first screen's calls",
            discussion: "Seed 000 §1 and §7 applied to the profile's stored token and UserDefaults keys, without any request: which SDKs the app initialises at launch and why (Umeng with the privacy agreement accepted, WeChat always, AMap with privacy accepted and a token), whether it shows the login page or the main tab, and the first screen's API calls in order (login page: config; main tab: home's sequence), each with what it reads from storage. After import-defaults it answers what happens when that user opens the app.",
            flags: [
                FlagSpec("profile", value: .string, valueName: "NAME", summary: "replay this profile's stored state (default: the current profile)"),
                FlagSpec("apply", summary: "write what the home's first appearance would write (the key diff)"),
                json,
            ],
            examples: ["boot", "boot --json", "boot --profile imported", "boot --apply"]
        ),

        // Account-context debugging: the rule chain behind a verdict, the device beside the server
        CommandSpec(
            "explain", summary: "the stored values and rules behind a menu, a dialog, the scope or a key, each with its basis",
            discussion: "Read from the profile as stored; nothing is called or written. Each step names the key it read, the rule applied and whether the app's documents state it ([documented: seed …]) or sxk inferred it ([inferred: docs/app-behaviour.md#…]).",
            flags: [json],
            subcommands: [
                CommandSpec("menu", summary: "why a menu is shown or hidden",
                            arguments: [ArgumentSpec("URI", kind: .provider("explain-menu"), summary: "menu URI")], flags: [json]),
                CommandSpec("dialog", summary: "the home dialogs in priority order (or one)",
                            arguments: [ArgumentSpec("DIALOG", kind: .choice(["permission", "scenic", "location"]), optional: true, summary: "permission, scenic or location")],
                            flags: [json]),
                CommandSpec("scope", summary: "the account scope, role, scenic and store the scoped keys use", flags: [json]),
                CommandSpec("key", summary: "one UserDefaults key: its value and who writes it",
                            arguments: [ArgumentSpec("KEY", kind: .provider("stored-key"), summary: "key name")], flags: [json]),
            ],
            examples: ["explain menu /scenic/order", "explain dialog", "explain dialog scenic --json", "explain scope", "explain key currentStoreId"]
        ),
        CommandSpec(
            "context", summary: "the session (as whoami); context diff: the stored state beside the server now",
            flags: tableOutput,
            subcommands: [
                CommandSpec(
                    "diff", summary: "stored keys beside fresh userinfo, role-permission and store list; what the next start would do",
                    discussion: "Read-only: the calls are made with the session's token but nothing is saved and no context changes, so an imported device state stays as imported.",
                    flags: tableOutput
                ),
            ],
            examples: ["context diff", "context diff --json"]
        ),
        CommandSpec(
            "har", summary: "write the requests this shell sent as an HTTP Archive 1.2 file (secrets masked)",
            discussion: "har save FILE writes every kept request, N the last N only. The file opens in browser devtools, Charles and Postman: method, URL, headers and bodies, status, response headers and the first 16 KiB of each body, and the phase timings where the transport measured them (-1 where unknown). Secrets are masked exactly as --trace masks them: the token header, passwords and every secret-named header, parameter and member are ***. FILE is a new file (created with mode 0600) or a regular file, written over; - writes to stdout; a FIFO, device, socket or directory (or a link to one) is refused. The last 20 requests are kept; sxk --har FILE keeps the run's requests (up to 1000) and writes them at exit.",
            arguments: [
                ArgumentSpec("save", kind: .choice(["save"]), summary: "write the file"),
                ArgumentSpec("FILE", kind: .path, summary: "the .har file to write (a new or regular file, - for stdout)"),
                ArgumentSpec("N", kind: .int, optional: true, summary: "only the last N requests"),
            ],
            examples: ["har save session.har", "har save last.har 1"]
        ),
        CommandSpec(
            "pager", summary: "page output taller than the terminal ($SXK_PAGER, $PAGER or less -FRX); the same as set pager",
            arguments: [ArgumentSpec("on|off", kind: .choice(["on", "off"]), optional: true, summary: "turn paging on or off")]
        ),
        {
            var man = CommandSpec(
                "man", summary: "print the sxk(1) manual page (roff) generated from the command specs",
                examples: ["man | man -l -"])
            man.isHidden = true
            return man
        }(),
    ]

    static let chart = FlagSpec("chart", summary: "draw daily orders and amounts as bars")
    static let statsFlags: [FlagSpec] = [
        FlagSpec("role", value: roles, valueName: "ROLE", summary: "role whose endpoints to use (default: current)"),
        FlagSpec("from", value: .date, valueName: "DATE", summary: "first day, yyyy-MM-dd"),
        FlagSpec("to", value: .date, valueName: "DATE", summary: "last day, yyyy-MM-dd"),
        FlagSpec("period", value: .choice(["today", "week", "month"]), valueName: "P", summary: "today, week (7 days) or month (30 days)"),
    ]
}
