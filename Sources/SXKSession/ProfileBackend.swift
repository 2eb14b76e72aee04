import FoundationEssentials
import SXKCore

/// The backend a profile was last used with, kept in `<profile>/backend.json` (0600): the
/// environment's name and, for a base URL, the URL. `sxk --profile NAME` alone reaches that backend
/// again, so a session is never sent to a server it does not belong to; `env` names it per profile.
public struct ProfileBackend: Sendable, Equatable {
    /// `test`, `release`, `sandbox` or `custom`.
    public var environment: String
    /// The base URL of a `custom` backend (the sandbox's changes with every run: not kept).
    public var baseURL: String?

    public init(environment: String, baseURL: String?) {
        self.environment = environment
        self.baseURL = baseURL
    }

    /// The same server: the environment, and for a base URL its text with the scheme and host in
    /// lower case (`HTTP://Host:8080` is `http://host:8080`).
    public func isSameBackend(as other: ProfileBackend) -> Bool {
        environment == other.environment && baseURL.map(Self.normalized) == other.baseURL.map(Self.normalized)
    }

    static func normalized(_ url: String) -> String {
        guard let scheme = url.range(ofBytes: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var tail = String(rest[authority.endIndex...])
        if tail == "/" { tail = "" }
        return url[..<scheme.lowerBound].lowercased() + "://" + authority.lowercased() + tail
    }

    public static func path(root: String, profile: String) -> String { root + "/" + profile + "/backend.json" }

    /// What the profile's file says: none, a backend, or a file that is there but cannot be read as
    /// one (refused as unsafe, too large, not JSON, no environment). Read only: no warning, nothing set
    /// aside or changed — an unreadable record means the profile's backend is not known, and its token
    /// is kept back. `through`: the profile's own file access instead, for the read at a start, which
    /// makes a mode others could read private with one warning, as for every state file.
    public enum Record: Sendable, Equatable {
        case none
        case known(ProfileBackend)
        case unreadable
    }

    public static func record(root: String, profile: String, through file: SecureFile? = nil) -> Record {
        guard (try? StatePaths.validateProfileName(profile)) != nil else { return .none }
        let outcome: SecureFile.ReadOutcome
        do {
            outcome = try (file ?? SecureFile(warn: { _ in })).read(path(root: root, profile: profile), kind: .state, tighten: file != nil)
        } catch { return .unreadable }
        switch outcome {
        case .missing: return .none
        case .refused, .oversized: return .unreadable
        case .loaded(let bytes, _):
            guard let object = (try? JSONParser.parse(bytes, maxDepth: 4))?.objectValue,
                  let environment = object.string("environment"), !environment.isEmpty else { return .unreadable }
            return .known(ProfileBackend(environment: environment, baseURL: object.string("baseURL")))
        }
    }

    /// The backend the profile's file names; nil when there is no readable one.
    public static func read(root: String, profile: String) -> ProfileBackend? {
        if case .known(let backend) = record(root: root, profile: profile) { return backend }
        return nil
    }

    /// Writes the file (atomically) unless it already says the same, for a caller that holds the
    /// profile lock (a token write: the token and its backend change together for every other sxk
    /// process). Returns what puts the record back as it was, for a write that then fails; nil when
    /// nothing was changed.
    public func rememberHoldingLock(in storage: ProfileStorage) throws(SessionError) -> (@Sendable () -> Void)? {
        let paths = storage.paths
        let path = ProfileBackend.path(root: paths.root, profile: paths.profile)
        let before = ProfileBackend.record(root: paths.root, profile: paths.profile)
        guard before != .known(self) else { return nil }
        var object: JSONObject = ["environment": .string(environment)]
        if let baseURL { object["baseURL"] = .string(baseURL) }
        let bytes = JSONWriter.bytes(.object(object), style: .pretty) + [0x0A]
        let file = storage.file
        try file.writeAtomically(path, bytes: bytes)
        return {
            switch before {
            case .none: try? file.remove(path)
            case .known(let old):
                var object: JSONObject = ["environment": .string(old.environment)]
                if let baseURL = old.baseURL { object["baseURL"] = .string(baseURL) }
                if (try? file.writeAtomically(path, bytes: JSONWriter.bytes(.object(object), style: .pretty) + [0x0A])) != nil { return }
                // Not restored (a full disk): a record no one can read keeps the old token back rather
                // than naming the backend of a token never written; failing that, no record at all.
                if (try? file.writeAtomically(path, bytes: Array("{}\n".utf8))) == nil { try? file.remove(path) }
            // What could not be read is put back as a record that cannot be read: the token stays kept back.
            case .unreadable:
                if (try? file.writeAtomically(path, bytes: Array("{}\n".utf8))) == nil { try? file.remove(path) }
            }
        }
    }
}
