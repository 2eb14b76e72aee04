import SXKShell

extension Commands {
    enum Post: AppCommand {
        static let spec = CommandSpec(
            "post", summary: "raw POST through the session's client",
            discussion: "The body is one JSON argument, or items made into one object as in HTTPie: k=v a string, k:=JSON any JSON value (k:=1, k:=true, k:='[1,2]'); Name:value is a request header. The status line and, with --print or -v, the headers go to stderr.",
            arguments: [
                ArgumentSpec("PATH", kind: .provider("post-endpoint"), summary: "API path"),
                ArgumentSpec("JSON|ITEM", optional: true, variadic: true, summary: "a JSON body, or k=v, k:=JSON, Header:value"),
            ],
            flags: rawRequest + dataOutput + [ndjson],
            examples: [#"post /api/app/v9/set-user '{"userId":1001,"accountType":"scenic"}'"#, "post /api/app/v9/set-user userId:=1001 accountType=scenic -v"]
        )
        static let needsServer = true
        static let comparable = true

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.raw(command, method: "POST")
        }
    }
}
