import SXKShell

extension Commands {
    enum Man: AppCommand {
        static let spec: CommandSpec = {
            var man = CommandSpec(
                "man", summary: "print the sxk(1) manual page (roff) generated from the command specs",
                examples: ["man | man -l -"])
            man.isHidden = true
            return man
        }()

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            CommandOutput(blocks: [.lines(Manual.page.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))])
        }
    }
}
