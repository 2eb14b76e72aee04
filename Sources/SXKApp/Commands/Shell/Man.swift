import SXKShell

extension Commands {
    enum Man: AppCommand {
        static let spec: CommandSpec = {
            var readme = CommandSpec("readme", summary: "print README.md's command table (Markdown) generated from the command specs")
            readme.isHidden = true
            var man = CommandSpec(
                "man", summary: "print the sxk(1) manual page (roff) generated from the command specs",
                subcommands: [readme],
                examples: ["man | man -l -"])
            man.isHidden = true
            return man
        }()

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            let text = command.subcommand == "readme" ? Manual.commandTable : Manual.page
            return CommandOutput(blocks: [.lines(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))])
        }
    }
}
