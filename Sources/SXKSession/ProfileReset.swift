import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--reset-state`: clears one profile as the app's UI-test reset flag clears the device (its
/// UserDefaults and the keychain token): the `token` file and `defaults.json`, which holds the account
/// snapshot, the preferences (last phone, privacy choice) and every account-scoped key, and the
/// token's set-aside copies (`token.corrupt-*`, which may hold a token), and the last login's account
/// list (`accounts.json`, as a logout clears it). The REPL history, other profiles, the config folder,
/// the backend the profile remembers and other set-aside `*.corrupt-*` files are left alone.
public struct ProfileReset: Sendable {
    public let paths: StatePaths
    /// How long to wait for another shell holding the profile lock.
    public let lockTimeout: TimeInterval

    public init(paths: StatePaths, lockTimeout: TimeInterval = 10) {
        self.paths = paths
        self.lockTimeout = lockTimeout
    }

    /// The files a reset removes, in the order it removes them.
    public var targets: [String] { [paths.tokenFile] + SecureFile.setAsideCopies(of: paths.tokenFile) + [paths.defaultsFile, paths.accountsFile] }

    /// Which of `targets` exist now (a symlink or other non-regular file counts: it is removed too).
    public var storedFiles: [String] { targets.filter(Self.exists) }

    /// Removes the token and `defaults.json` while holding the profile lock; returns the paths it
    /// removed. A profile folder that does not exist is left uncreated and nothing is removed.
    @discardableResult
    public func run() throws(SessionError) -> [String] {
        var st = stat()
        guard lstat(paths.profileDir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return [] }
        let file = SecureFile(warn: { _ in })
        let targets = self.targets
        return try ProfileLock(path: paths.lockFile, timeout: lockTimeout).withLock { () throws(SessionError) -> [String] in
            var removed: [String] = []
            for path in targets where Self.exists(path) {
                try file.remove(path)
                removed.append(path)
            }
            return removed
        }
    }

    private static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }
}
