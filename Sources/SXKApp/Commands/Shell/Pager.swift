import SXKShell

extension Commands {
    // The same setting as `set pager on|off`.
    enum Pager: AppCommand {
        static let spec = CommandSpec(
            "pager", summary: "page output taller than the terminal ($SXK_PAGER, $PAGER or less -FRX); the same as set pager",
            arguments: [ArgumentSpec("on|off", kind: .choice(["on", "off"]), optional: true, summary: "turn paging on or off")]
        )

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            app.toggle(command, name: "pager") { app.io.display.pager = $0 } current: { app.io.display.pager }
        }
    }
}
