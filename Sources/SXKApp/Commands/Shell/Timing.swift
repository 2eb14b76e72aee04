import SXKShell

extension Commands {
    enum Timing: AppCommand {
        static let spec = CommandSpec(
            "timing", summary: "print each command's time",
            arguments: [ArgumentSpec("on|off", kind: .choice(["on", "off"]), optional: true, summary: "turn timing on or off")]
        )

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            app.toggle(command, name: "timing") { app.host.settings.timing = $0 } current: { app.host.settings.timing }
        }
    }
}
