import SXKShell

/// sxk's own words in the manual page (`sxk man`, `man/sxk.1`): what the shell is, its exit statuses,
/// variables, files and security rules. Options and commands come from the specs.
enum Manual {
    static var page: String {
        ManPage.generate(specs: Builtins.merged(with: CommandCatalog.all), prose: prose, version: SXKApplication.version)
    }

    /// The output flags many commands share, left out of each row of README.md's command table.
    static let sharedOutputFlags: Set<String> = Set((Commands.Orders.listOutput + [CommandCatalog.jq, CommandCatalog.noPager]).map(\.name))

    /// README.md's command table (`sxk man readme`, written there by `make completions`).
    static var commandTable: String {
        CommandTable.markdown(specs: Builtins.merged(with: CommandCatalog.all), omitting: sharedOutputFlags)
    }

    static let prose = ManPage.Prose(
        tagline: "the Suixinkan operator shell",
        description: [
            .paragraph("`sxk` is a command shell for the backend of Suixinkan, the mobile app of photographers, scenic-area admins and store admins. It keeps an in-process session (token, account, role, scenic-area scope, store scope) and maps commands onto the same feature facades the app has: explore the API, debug one user's account context exactly as the app would store and show it, and switch account, role, scenic area or store on the fly."),
            .paragraph("With no command and standard input a terminal, sxk is an interactive shell (libedit line editing, history, Tab completion from the cached session, never the network). With standard input not a terminal it reads commands line by line, without prompt or history. `-c` runs commands separated by ';' or newlines, FILE runs a script ('#' starts a comment; `-` reads one from standard input), and COMMAND ARGS runs one command. Scripts, `-c` and piped commands stop at the first failing command unless `--keep-going` is given."),
            .paragraph("It talks to the real `test` and `release` environments, to any base URL, or to an embedded sandbox backend (a loopback HTTP server with seeded data) started with `--sandbox`. Start-up does no network: a stored session is restored from the snapshot; the REPL validates it when the first command needs the server, and a one-shot, `-c`, a script or piped commands only when the last validation is older than 5 minutes (`--revalidate` always)."),
            .paragraph("Output: tables by default (East Asian wide characters count as two columns); `--json` (before or after the command) prints the decoded data. The other formats are not global options but options of the commands that have them, given after the command's name (see COMMANDS): `--raw` the response envelope as received (`config --raw`), `--ndjson` one object per line for lists, `--csv`, `--tsv`, `--expanded`. Data goes to standard output; prompts, progress, warnings and errors (`error: ...`) go to standard error: one line each into a pipe or file, wrapped at spaces to the width on a terminal."),
        ],
        sections: [
            ManPage.Section("Exit status", [
                .tagged("0", "Success."),
                .tagged("1", "The command failed (server code, HTTP error, bad data)."),
                .tagged("2", "Usage error (unknown command or option, bad value)."),
                .tagged("3", "Not logged in, or the session expired."),
                .tagged("4", "Network error (unreachable, timeout, TLS)."),
                .tagged("130", "Interrupted (Ctrl-C)."),
                .tagged("129, 131, 143", "Ended by SIGHUP (the terminal closed), SIGQUIT (Ctrl-\\) or SIGTERM, after saving history and state (never a core file: it would hold the token)."),
            ]),
            ManPage.Section("Environment", [
                .tagged("SXK_ENV", "Environment when `--env` is not given: test or release (default test); sandbox only with `--sandbox`."),
                .tagged("SXK_BASE_URL", "Base URL when `--base-url` is not given."),
                .tagged("SXK_PROFILE", "State profile when `--profile` is not given (default: the environment's name; for a base URL its host and port, e.g. 127.0.0.1-8080)."),
                .tagged("SXK_STATE_DIR", "State root when `--state-dir` is not given."),
                .tagged("SXK_SANDBOX_SPELLING", "How the `--sandbox` backend spells its answers: camel (default) or snake (snake_case members, numbers and booleans as strings, `message` for `msg`)."),
                .tagged("XDG_STATE_HOME", "State root is $XDG_STATE_HOME/sxk (default ~/.local/state/sxk)."),
                .tagged("XDG_CONFIG_HOME", "Config lives under $XDG_CONFIG_HOME/sxk (default ~/.config/sxk)."),
                .tagged("NO_COLOR", "Set to any value but the empty one, turns colour off (as `--no-color`; colour is also off when standard output is not a terminal)."),
                .tagged("SXK_CACERT", "CA certificates file trusted for https when `--cacert` is not given (a private test CA)."),
                .tagged("SSL_CERT_FILE, SSL_CERT_DIR", "CA file and hashed CA directory for https, as OpenSSL reads them (default: the system's hashed directory); `--cacert` / `SXK_CACERT` wins."),
                .tagged("https_proxy, http_proxy, NO_PROXY", "Proxies, as libcurl reads them; never used for a loopback backend."),
                .tagged("SXK_PERSIST", "Seconds a connection holder keeps one-shots' connections open after last use (as `--persist`); 0 stops a running holder."),
                .tagged("SXK_PAGER, PAGER", "The pager for output taller than the terminal (`SXK_PAGER` first; default `less -FRX`); `--no-pager` or `set pager off` turn it off."),
                .tagged("TZ", "The time zone every printed time is shown in, with its UTC offset (default: the system's)."),
                .tagged("TMPDIR", "Where `help`, `version`, `completion` and `man` make the empty state folder they run on (default /tmp); removed at the end."),
            ]),
            ManPage.Section("Files", [
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/token", "The formal token, and nothing else."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/defaults.json", "Every other key the app keeps in UserDefaults, with the app's key names (`key_in_user_id`, `5001_store_key_in_permission`, ...): the account snapshot, the preferences (last phone, privacy choice) and the account-scoped keys."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/history", "REPL history in libedit's format, saved after each command; never written: lines starting with a space, `login` and `switch-account` lines, lines with a secret-named item or the live token, and usage errors."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/.lock", "flock(2) guard against a second shell writing the profile at the same time."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/history.lock", "flock(2) guard for merging the history file (waited for at most 3 seconds at the end)."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/accounts.json", "The accounts of the last login (ids, names, types, roles; never a token), for `switch-account` in a later process."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/backend.json", "The backend the profile's session belongs to: `--profile NAME` alone goes back to it; named with another backend, the profile's token is kept and not sent there."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/stores.json", "The last store list the server sent, for Tab completion in a new process only."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/sandbox-tokens.json", "In the profile `--sandbox` uses: the embedded sandbox's tokens, so the next run accepts the stored session, and a run beside it a session the other made (`sandbox-tokens.lock` guards their updates)."),
                .tagged("$XDG_STATE_HOME/sxk/PROFILE/connections.sock", "The socket of the connection holder `--persist` starts (same user only); gone when it exits."),
                .tagged("$XDG_CONFIG_HOME/sxk/sxkrc", "The startup file: commands run before the first prompt (and `persist SECONDS` for one-shots); sxk never writes it."),
                .tagged("$XDG_CONFIG_HOME/sxk/display", "The display settings `set --save` keeps, read at start."),
                .tagged("NAME.corrupt-TIME", "A corrupt state file, set aside byte for byte with one warning."),
                .paragraph("The profile defaults to the environment's name (for a base URL, its host and port), so a test and a release account live side by side. `--reset-state` removes the profile's `token` (and any `token.corrupt-*` copy), `defaults.json` and `accounts.json` before anything else (asking first when standard input is a terminal); the history stays."),
            ]),
            ManPage.Section("Security", [
                .bullet("The password is read with echo off, or from standard input with `--password-stdin`; it is never taken as an argument and never written anywhere."),
                .bullet("The token lives only in the `token` file; traces, errors, `--raw`, `whoami`, `keys` and `boot` show it masked."),
                .bullet("A name is secret when it is or ends in password, passwd, pwd, token, secret, apikey, authorization, cookie, session, credential, privatekey and a few more (case, `-` and `_` ignored): `newPassword`, `refresh_token`, `X-Api-Key` are, `passport` and `tokenCount` are not. Such members, parameters, fields and headers are shown as *** in every format, trace, `curl N`, HAR file, error line and history; the token is also masked upper-cased, as base64 and by any 16 of its characters."),
                .bullet("`--har FILE` and `har save FILE` write a new or regular file only (`-` is standard output, `/dev/null` discards); a FIFO, another device, a socket or a directory, or a link to one, is refused with exit 2; so is a `> FILE` redirection's."),
                .bullet("State folders are 0700 and files 0600 from creation whatever the umask; every write is atomic (temporary file, fsync, rename; the completion cache stores.json without the fsync) under the profile lock. A token file with a loose mode, a symlink, a FIFO or a foreign owner is refused; another state file others could write is refused, one they could read is made 0600 with one warning."),
                .bullet("TLS is always verified (`--cacert FILE` for a private CA); a self-signed, expired, wrong-name or unknown-CA certificate fails with exit 4. Plain http is allowed only to loopback hosts unless `--insecure-http`. A redirect to another origin is refused, so the token never leaves for another host. `--timeout` is a total limit per request."),
            ]),
            ManPage.Section("Examples", [
                .example([
                    "sxk --sandbox",
                    "sxk --sandbox -c 'login 13800000001 --password-stdin --accept-privacy; orders --all --ndjson' <<< sandbox123",
                    "sxk --env test orders --role storeAdmin --json",
                    "sxk --profile imported boot",
                    "sxk --reset-state --sandbox",
                ]),
            ]),
            ManPage.Section("See also", [
                .paragraph("`sxk-sandbox --help` for the standalone sandbox; the completion scripts for bash(1), zsh(1) and fish(1) installed beside this page; README.md in the source tree."),
            ]),
        ])
}
