import SXKShell

extension Commands {
    enum Compare: AppCommand {
        static let spec = CommandSpec(
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
        ).passingCommand()

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.compare(command)
        }
    }
}
