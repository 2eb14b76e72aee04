/// The startup file: `$XDG_CONFIG_HOME/sxk/sxkrc`, run before the first prompt of the REPL only.
extension Shell {
    /// Runs each line of the startup file; an error names `FILE:LINE` and the next line still runs.
    /// Its lines never reach history. Ctrl-C skips the rest of the file; `exit` leaves the shell.
    func runStartupFile(io: CommandIO) async {
        guard let path = rcPath, !options.noRC else { return }
        switch StartupFile.load(path) {
        case .missing:
            return
        case .refused(let reason):
            errors.warning("not running \(path): \(reason)")
        case .lines(let lines):
            defer { errorLocation = nil }
            for line in lines {
                errorLocation = "\(path):\(line.number)"
                // `persist SECONDS` is read by one-shots (kept connections); the REPL keeps its own. A
                // value they refuse is said here too: `persist 30; alias …` would otherwise drop the alias unseen.
                if let value = StartupFile.persistValue(line) {
                    do { _ = try Invocation.persistSeconds(value, "persist") } catch { errors.warning("\(error); the line is skipped") }
                    continue
                }
                let status = await runLine(line.text, io: io, stopOnFailure: false)
                if status == ExitStatus.interrupted {
                    errors.warning("interrupted; the rest of the startup file was skipped")
                    return
                }
                if exitRequest != nil { return }
            }
        }
    }
}
