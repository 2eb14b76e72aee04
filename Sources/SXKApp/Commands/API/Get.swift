import SXKShell

extension Commands {
    enum Get: AppCommand {
        static let spec = CommandSpec(
            "get", summary: "raw GET through the session's client: status, code, timing, data",
            discussion: "Items as in HTTPie: k=v a query parameter, k:=1 one from a JSON scalar, Name:value a request header (no CR or LF). The status line and, with --print or -v, the headers go to stderr; stdout is the data.",
            arguments: [
                ArgumentSpec("PATH", kind: .provider("get-endpoint"), summary: "API path, e.g. /api/app/store/all"),
                ArgumentSpec("ITEM", optional: true, variadic: true, summary: "k=v, k:=JSON or Header:value"),
            ],
            flags: rawRequest + dataOutput + [ndjson],
            examples: ["get /api/app/store/all", "get /api/yf-handset-app/photog/order/listv2 page:=2 pageSize:=5 --json",
                       "get /api/app/store/order/list storeId=301 --paginate --ndjson", "get /api/app/config X-Trace-Id:abc -v"]
        )
        static let needsServer = true
        static let comparable = true

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.raw(command, method: "GET")
        }
    }
}
