import SXKCore
import SXKShell

/// A command's data: what it prints with `--json`, kept for `$_` and `let` in table mode too.
extension AppCommands {
    /// Prints `data` when JSON was asked for (true), else keeps it as the command's data (false).
    func emit(_ data: JSONValue, _ command: ParsedCommand) -> Bool {
        if wantsJSON(command) {
            io.json.print(data)
            return true
        }
        io.keep(data)
        return false
    }

    /// A page's `data` with its list cut to `limit` rows, so `--limit` keeps the shape of `--json`.
    static func limitedPage(_ data: JSONValue, limit: Int?) -> JSONValue {
        guard let limit, case .object(var page) = data, case .array(let list)? = page["list"] else { return data }
        page["list"] = .array(Array(list.prefix(max(0, limit))))
        return .object(page)
    }
}
