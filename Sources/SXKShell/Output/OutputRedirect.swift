import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where one command line's output goes instead of stdout: `| SHELL COMMAND`, `> FILE` or `>> FILE`.
public enum OutputTarget: Sendable, Equatable {
    case pipe(command: String)
    case file(path: String, append: Bool)

    /// Splits a command's tokens into its words and its output target. Words after a `>` target
    /// or a pipe (an alias's value ending in `| CMD`, then typed arguments) are the command's, as
    /// sh reads `echo > f a b`. One target per command.
    static func split(_ tokens: [Token]) throws -> (words: [Token], target: (OutputOperator, Token?)?) {
        var words: [Token] = []
        var target: (OutputOperator, Token?)?
        var i = 0
        while i < tokens.count {
            let token = tokens[i]
            guard let op = token.output else {
                words.append(token)
                i += 1
                continue
            }
            if target != nil { throw UsageError("one output target per command: '|', '>' or '>>' once") }
            switch op {
            case .pipe:
                target = (op, token)
                i += 1
            case .file:
                guard i + 1 < tokens.count, tokens[i + 1].output == nil else {
                    throw UsageError("'\(token.text)' needs a file name after it")
                }
                target = (op, tokens[i + 1])
                i += 2
            }
        }
        return (words, target)
    }
}

extension OutputTarget {
    /// What `help`, `sxk --help` and the man page say of `|`, `>` and `>>`, from this one text
    /// (README's "Pipes and redirection" says the same at length): without it nothing the tool
    /// prints tells that `>` in `-c` text or a script is sxk's, not the calling shell's.
    public static let helpTitle = "Pipes and redirection"
    public static let helpText = [
        "In the REPL, -c text and scripts, an unquoted 'CMD | SHELL-COMMAND' sends CMD's output to /bin/sh -c SHELL-COMMAND "
            + "(to the next ';' or end of line), and 'CMD > FILE' / 'CMD >> FILE' write or append it to FILE: a regular file, "
            + "a new name or /dev/null (a FIFO, another device, a socket or a directory is refused, exit 2). They get the output "
            + "for a non-terminal: no colour or pager, tables at full width, JSON on one line. The line's status is CMD's when "
            + "it failed, else the shell command's.",
        "Quoted or escaped ('|', \\>) they are plain text; 'let' cannot be piped or redirected. In 'sxk COMMAND ARGS' "
            + "the calling shell reads them.",
    ]
}

/// An open output target: the sink a command writes to, and what `finish` waits for.
final class RedirectedOutput {
    let sink: StandardOutput
    private let fd: Int32
    private let child: pid_t?

    private init(fd: Int32, child: pid_t?) {
        self.fd = fd
        self.child = child
        sink = StandardOutput(fd: fd)
    }

    /// Opens the file or starts the shell command. Throws a `UsageError` (exit 2) naming the path.
    static func start(_ target: OutputTarget) throws -> RedirectedOutput {
        switch target {
        case .file(let path, let append):
            return RedirectedOutput(fd: try openOutputFile(path, append: append), child: nil)
        case .pipe(let command):
            let (fd, pid) = try spawnShell(command)
            return RedirectedOutput(fd: fd, child: pid)
        }
    }

    /// Flushes, closes, and for a pipe waits for the shell command; its exit status (0 for a file).
    func finish() -> Int32 {
        sink.flush()
        close(fd)
        guard let child else { return 0 }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        if (status & 0x7F) != 0 { return 128 + (status & 0x7F) }
        return (status >> 8) & 0xFF
    }

    /// The one place a redirect target is opened: an existing regular file (emptied, or appended
    /// to with `>>`), a new name or `/dev/null`; a directory, FIFO, other device or socket, also
    /// behind a symlink, is refused (exit 2), by `OutputFile`'s rule, the same as `--har`'s.
    static func openOutputFile(_ path: String, append: Bool) throws -> Int32 {
        guard !path.isEmpty else { throw UsageError("'>' needs a file name after it") }
        // The one rule for files the user names (`OutputFile`): a regular file or a new name.
        do { return try OutputFile.open(path, append: append).detach() } catch {
            throw UsageError(TerminalText.sanitize(error.description))
        }
    }

    /// `/bin/sh -c COMMAND` for `| COMMAND`: only the standard descriptors.
    static func spawnShell(_ command: String) throws -> (Int32, pid_t) {
        guard let child = ShellChild.spawn(command, environment: nil) else {
            throw UsageError("cannot start '\(command)': \(String(cString: strerror(errno)))")
        }
        return child
    }
}

/// A child `/bin/sh -c COMMAND` reading a pipe (the pager, `| COMMAND`). It gets stdin (the pipe),
/// stdout and stderr only, every signal at its default and none blocked: sxk ignores SIGPIPE and
/// blocks the others on its threads, and a pager must see SIGWINCH, `| head` end as it does in sh.
enum ShellChild {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; Glibc hides it behind
    /// _GNU_SOURCE): every descriptor from 3 up is closed in the child, whether or not it was
    /// opened close-on-exec. Without it only close-on-exec descriptors are left behind.
    private static let closeFrom: CloseFrom? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// The pipe's write end (close-on-exec) and the child; nil with errno set when it cannot start.
    /// `environment` nil passes sxk's own.
    static func spawn(_ command: String, environment: [String]?) -> (Int32, pid_t)? {
        // Whatever else sxk holds open (sockets, pipes) is close-on-exec first, as a second guard.
        Descriptors.markCloseOnExec()
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        let readEnd = fds[0], writeEnd = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        // A signal sxk kept ignored from its start (`nohup`, a script's background job) stays ignored in
        // the child too, as it would in any child of a program started so.
        for sig in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGWINCH] where !SignalRouter.keptIgnored(sig) { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv: [String] = ["/bin/sh", "-c", command]
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let cEnv = environment.map { $0.map { strdup($0) } + [nil] }
        defer { cEnv?.forEach { free($0) } }
        let spawned = cEnv.map { env in posix_spawn(&pid, "/bin/sh", &actions, &attributes, cArgs, env) }
            ?? posix_spawn(&pid, "/bin/sh", &actions, &attributes, cArgs, environ)
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            errno = spawned
            return nil
        }
        return (writeEnd, pid)
    }
}
