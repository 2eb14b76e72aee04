import SXKShell

extension Commands {
    enum Trace: AppCommand {
        static let spec = CommandSpec(
            "trace", summary: "print every request and response (secrets masked) to stderr",
            arguments: [ArgumentSpec("on|off", kind: .choice(["on", "off"]), optional: true, summary: "turn tracing on or off")]
        )

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            app.toggle(command, name: "trace") { app.host.settings.trace = $0 } current: { app.host.settings.trace }
        }
    }
}
