import FoundationEssentials
import SXKCore

/// What `env` lists for one profile, read from its files only: no network, no lock, nothing
/// written or set aside (a bad file reads as "unreadable", the profile's own shell deals with it).
public struct ProfileSummary: Sendable, Equatable {
    public var profile: String
    public var sessionStored: Bool
    public var account: String?
    public var role: String?
    public var validatedAt: Date?
    /// Why the files could not be read, when they could not.
    public var problem: String?

    public static func read(root: String, profile: String) -> ProfileSummary {
        var summary = ProfileSummary(profile: profile, sessionStored: false)
        guard let paths = try? StatePaths(root: root, profile: profile, configDir: "") else {
            summary.problem = "invalid profile name"
            return summary
        }
        let file = SecureFile(warn: { _ in })
        if case .loaded(let bytes, _)? = try? file.read(paths.tokenFile, kind: .secret) {
            summary.sessionStored = bytes.contains { $0 > 0x20 }
        }
        switch try? file.read(paths.defaultsFile, kind: .state) {
        case .loaded(let bytes, _)?:
            guard case .success(let object) = DefaultsStore.decode(bytes) else {
                summary.problem = "defaults.json unreadable"
                return summary
            }
            let name = object[StoreKey.accountDisplayName]?.stringValue ?? object[StoreKey.userName]?.stringValue
            let id = object[StoreKey.userId].flatMap { $0.stringValue ?? $0.intValue.map(String.init) }
            summary.account = [id, name].compactMap { $0 }.joined(separator: " ").nilIfEmpty
            summary.role = object[StoreKey.roleCode]?.stringValue
            summary.validatedAt = object[StoreKey.sessionValidatedAt]?.doubleValue.map { Date(timeIntervalSince1970: $0) }
        case .refused(let reason)?: summary.problem = reason
        case .oversized?: summary.problem = "defaults.json too large"
        case .missing?, nil: break
        }
        return summary
    }

    /// The profiles under `root` that are folders (each one environment or base URL's state).
    public static func profiles(root: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { name in
            (try? StatePaths.validateProfileName(name)) != nil && PathText.isDirectory(root + "/" + name)
        }.sorted()
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
