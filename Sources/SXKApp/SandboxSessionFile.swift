import FoundationEssentials
import SXKCore
import SXKSandbox
import SXKSession

/// The embedded sandbox's formal tokens, kept beside the profile that uses it
/// (`<state>/<profile>/sandbox-tokens.json`, 0600 in the 0700 profile folder), so the session a
/// `sxk --sandbox` run stored is still valid for the next run on the same state folder.
struct SandboxSessionFile: SandboxTokenKeeper {
    static let fileName = "sandbox-tokens.json"
    let dir: String
    let path: String
    let file: SecureFile

    init(profileDir: String, warn: @escaping WarningSink) {
        dir = profileDir
        path = profileDir + "/" + Self.fileName
        file = SecureFile(warn: warn)
    }

    func load() -> [SandboxTokenRecord] {
        // An unsafe or corrupt file is refused or set aside with one warning, as every state file is.
        let loaded = try? file.load(path, kind: .secret) { bytes -> Result<[SandboxTokenRecord], SecureFile.CorruptReason> in
            guard let value = try? JSONParser.parse(bytes, maxDepth: 6), let items = value.objectValue?["tokens"]?.arrayValue else {
                return .failure(.init("expected {\"tokens\": [...]}"))
            }
            return .success(items.compactMap { item in
                guard let o = item.objectValue, let token = o.string("token"), let userId = o["userId"]?.intValue,
                      let issued = o["issued"]?.doubleValue else { return nil }
                return SandboxTokenRecord(token: token, userId: userId, issued: Date(timeIntervalSince1970: issued))
            })
        }
        return loaded?.value ?? []
    }

    /// Under a lock of its own (`sandbox-tokens.lock`, not the profile's: the sandbox answers while
    /// the client may hold that one); without it, as before, when the lock cannot be had.
    func update(_ change: ([SandboxTokenRecord]) -> [SandboxTokenRecord]) {
        let lock = ProfileLock(path: dir + "/sandbox-tokens.lock", timeout: 3)
        do {
            try file.ensureDirectory(dir)
            try lock.withLock { save(change(load())) }
        } catch {
            save(change(load()))
        }
    }

    func save(_ records: [SandboxTokenRecord]) {
        let value: JSONValue = ["tokens": .array(records.map {
            // To the millisecond: a token another run issued just after this one's expiry stays valid (`SandboxTokens.adopt`).
            ["token": .string($0.token), "userId": .int($0.userId), "issued": .decimal(($0.issued.timeIntervalSince1970 * 1000).rounded(.down) / 1000, digits: 3)]
        })]
        do {
            try file.ensureDirectory(dir)
            try file.writeAtomically(path, bytes: JSONWriter.bytes(value, style: .pretty) + [0x0A])
        } catch {
            // The login still works for this run; only the next run will ask for it again.
            file.warn("cannot keep the sandbox's tokens in \(path): \(error)")
        }
    }
}
