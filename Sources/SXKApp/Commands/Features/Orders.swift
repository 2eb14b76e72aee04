import SXKShell

extension Commands {
    enum Orders: AppCommand {
        static let spec = CommandSpec(
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
        )
        static let needsServer = true
        static let comparable = true

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.orders(command)
        }
    }
}
