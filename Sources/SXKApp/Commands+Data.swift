import SXKAPI
import SXKCore
import SXKShell

/// For `location`, the last handler run through `AppCommands.legacy`: it prints into the gathered
/// buffer the renderer then shows as text.
extension AppCommands {
    /// Whether the command or the global option asked for JSON.
    func wantsJSON(_ command: ParsedCommand) -> Bool { command.has("json") || io.options.json }

    /// Prints `data` when JSON was asked for (true), else keeps it as the command's data (false).
    func emit(_ data: JSONValue, _ command: ParsedCommand) -> Bool {
        if wantsJSON(command) {
            io.json.print(Redaction.redact(data, secrets: host.secrets))
            return true
        }
        io.keep(data)
        return false
    }

    /// `--raw` prints the body as received, `--json` the `data` member; false when neither applies.
    func printData(_ response: APIResponse, _ command: ParsedCommand) throws -> Bool {
        if command.has("raw") {
            io.stdout.write(Redaction.redact(response.bodyText, secrets: host.secrets))
            if response.body.last != 0x0A { io.stdout.write("\n") }
            return true
        }
        return emit(Redaction.redact(response.data), command)
    }
}
