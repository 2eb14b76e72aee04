import SXKAPI
import SXKCore
import SXKSession
import SXKShell

extension Commands {
    enum Env: AppCommand {
        static let spec = CommandSpec(
            "env", summary: "show the environment, or switch to another",
            discussion: "Environments: test, release, sandbox, or any base URL. Plain http:// is accepted for loopback hosts only unless --insecure-http was given at start. Switching keeps each environment's session apart (profile = environment name, or host-port for a URL such as 127.0.0.1-8080, unless --profile).",
            flags: [json],
            subcommands: [
                CommandSpec("use", summary: "switch to an environment or base URL",
                            arguments: [ArgumentSpec("NAME|URL", kind: .provider("env"), summary: "test, release, sandbox, a URL, or - for the previous one")]),
            ],
            examples: ["env", "env use test", "env use -", "env use http://127.0.0.1:8080"]
        )
        static let unwatchable: String? = "it shows or changes the backend, not an answer that changes"

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { true }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.env(command)
        }
    }
}

extension AppCommands {
    fileprivate func env(_ command: ParsedCommand) async throws -> CommandOutput {
        if command.subcommand == "use", let target = command.positionals.first {
            let environment: APIEnvironment
            if target == "-" {
                // Like `role -`: back to the environment before the last `env use` in this shell
                // (the environment choice itself lives in this process, so does what it left).
                guard let previous = host.previousEnvironment else {
                    throw AppError.failed("no previous environment to go back to in this shell")
                }
                environment = previous
            } else if target.lowercased() == "sandbox" {
                guard let url = host.sandbox?.baseURL else {
                    throw AppError.usage("no sandbox in this shell — start sxk with --sandbox")
                }
                environment = .sandbox(url)
            } else {
                environment = try APIEnvironment.parse(target)
            }
            var options = services.options
            // An explicit --profile pins the state folder; otherwise each environment keeps its own.
            if host.shellContext.options.profile == nil { options.profile = nil }
            let next = try AppServices(
                environment: environment, options: options, processEnvironment: host.shellContext.environment,
                settings: host.settings, transport: host.transport, stderr: io.stderr)
            do { try next.network().configuration.validate() } catch {
                // A backend refused before anything was stored leaves no profile behind it.
                StatePaths.removeEmptyProfile(next.paths.profileDir)
                throw error
            }
            let left = services.environment
            host.replaceServices(next)
            if let withheld = next.adoptBackend(explicit: true, told: true) { diagnostics.warning(withheld) }
            host.previousEnvironment = left
            _ = try host.features().bootstrapper.restore()
        }
        let s = services
        let rows = environmentRows()
        let data: JSONValue = [
            "environment": .string(s.environment.name), "baseURL": .string(s.environment.baseURL.absoluteString),
            "profile": .string(s.paths.profile), "stateDir": .string(s.paths.profileDir),
            "environments": .array(rows),
        ]
        var output = CommandOutput(data: data)
        if command.subcommand == "use" {
            // The switch's confirmation, on stderr like every other; the table stays the data.
            output.notes.append("now on \(s.environment.name) \(s.environment.baseURL.absoluteString) (profile \(s.paths.profile))")
        }
        output.table([
            OutputColumn("current", "", priority: 95, cuttable: false) { $0.objectValue?["current"]?.boolValue == true ? "*" : "" },
            OutputColumn("name", priority: 90, cuttable: false),
            // The base URL is what tells profiles apart: kept whole, the PROFILE column (mostly the name) goes first.
            OutputColumn("baseURL", "BASE URL", priority: 80, cuttable: false),
            OutputColumn("profile", priority: 40),
            OutputColumn("session", priority: 85, cuttable: false) { $0.objectValue?["session"]?.boolValue == true ? "stored" : "–" },
            OutputColumn("account", priority: 70), OutputColumn("role", priority: 75),
            OutputColumn("validated", priority: 65) { row in
                guard let age = row.objectValue?["validatedAgeSeconds"]?.doubleValue else { return "–" }
                return LocalTime.duration(age) + " ago"
            },
        ], rows)
        return output
    }

    /// test, release, sandbox, the current profile and every other profile on disk (imported ones
    /// too), each with its backend (`backend.json`, else what its name says) and its stored session
    /// as its own files say (read only: no network, no lock, nothing written).
    private func environmentRows() -> [JSONValue] {
        let s = services
        let now = s.clock.now()
        let sandboxURL = host.sandbox?.baseURL?.absoluteString ?? "(start sxk with --sandbox)"
        var entries: [(name: String, baseURL: String, profile: String)] = [
            ("test", APIEnvironment.testURL.absoluteString, "test"),
            ("release", APIEnvironment.releaseURL.absoluteString, "release"),
            ("sandbox", sandboxURL, "sandbox"),
        ]
        if !entries.contains(where: { $0.profile == s.paths.profile && $0.name == s.environment.name }) {
            entries.append((s.environment.name, s.environment.baseURL.absoluteString, s.paths.profile))
        }
        for profile in ProfileSummary.profiles(root: s.paths.root) where !entries.contains(where: { $0.profile == profile }) {
            if let backend = ProfileBackend.read(root: s.paths.root, profile: profile) {
                let url: String
                switch backend.environment {
                case "test": url = APIEnvironment.testURL.absoluteString
                case "release": url = APIEnvironment.releaseURL.absoluteString
                case "sandbox": url = sandboxURL
                default: url = backend.baseURL ?? "(unknown)"
                }
                entries.append((backend.environment, url, profile))
            } else if let dash = profile.lastIndex(of: "-"), dash != profile.startIndex,
                      let port = Int(profile[profile.index(after: dash)...]) {
                // A base-URL profile from before profiles kept their backend: named host-port (the scheme is not kept).
                entries.append(("custom", "\(profile[..<dash]):\(port)", profile))
            } else {
                entries.append(("?", "(unknown: use it once with --env or --base-url)", profile))
            }
        }
        return entries.map { entry in
            let summary = ProfileSummary.read(root: s.paths.root, profile: entry.profile)
            var o: JSONObject = [
                "name": .string(entry.name), "baseURL": .string(entry.baseURL), "profile": .string(entry.profile),
                "current": .bool(entry.name == s.environment.name && entry.profile == s.paths.profile),
                "session": .bool(summary.sessionStored),
            ]
            o["account"] = summary.account.map { .string($0) } ?? .null
            o["role"] = summary.role.map { .string($0) } ?? .null
            o["validatedAt"] = summary.validatedAt.map { .string(LocalTime.iso($0)) } ?? .null
            o["validatedAgeSeconds"] = summary.validatedAt.flatMap { LocalTime.wholeSeconds(now.timeIntervalSince($0)) }.map { .int(max(0, $0)) } ?? .null
            if let problem = summary.problem { o["problem"] = .string(problem) }
            return .object(o)
        }
    }
}
