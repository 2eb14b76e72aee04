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

    /// What the profile's file says; nil when there is none or it is unreadable (read only: no
    /// warning, nothing set aside — a bad file only means the backend is not known).
    public static func read(root: String, profile: String) -> ProfileBackend? {
        guard (try? StatePaths.validateProfileName(profile)) != nil,
              case .loaded(let bytes, _)? = try? SecureFile(warn: { _ in }).read(path(root: root, profile: profile), kind: .state),
              let object = (try? JSONParser.parse(bytes, maxDepth: 4))?.objectValue,
              let environment = object.string("environment"), !environment.isEmpty else { return nil }
        return ProfileBackend(environment: environment, baseURL: object.string("baseURL"))
    }

    /// Writes the file (atomically, under the profile lock) unless it already says the same.
    public func remember(in storage: ProfileStorage) throws(SessionError) {
        let paths = storage.paths
        guard ProfileBackend.read(root: paths.root, profile: paths.profile) != self else { return }
        var object: JSONObject = ["environment": .string(environment)]
        if let baseURL { object["baseURL"] = .string(baseURL) }
        let bytes = JSONWriter.bytes(.object(object), style: .pretty) + [0x0A]
        let file = storage.file
        try storage.lock.withLock { () throws(SessionError) in
            try file.writeAtomically(ProfileBackend.path(root: paths.root, profile: paths.profile), bytes: bytes)
        }
    }
}
