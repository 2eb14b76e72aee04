import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One profile's on-disk state, opened: folders made private, leftover temp files cleaned under the
/// lock, `defaults.json` loaded, and the stores built on top.
public final class ProfileStorage: @unchecked Sendable {
    public let paths: StatePaths
    public let file: SecureFile
    public let lock: ProfileLock
    public let defaults: DefaultsStore
    public let tokens: TokenStore
    public let appStore: AppStore
    /// This process made the profile's folder (it did not exist when opened).
    public let madeProfileFolder: Bool

    /// Opens (creating if needed) the profile at `paths`. Warnings about unsafe or corrupt files go to `warn`.
    public init(paths: StatePaths, warn: @escaping WarningSink, clock: any WallClock = SystemClock(), lockTimeout: TimeInterval = 10) throws(SessionError) {
        self.paths = paths
        file = SecureFile(warn: warn, clock: clock)
        try file.ensureDirectory(paths.root)
        var st = stat()
        madeProfileFolder = lstat(paths.profileDir, &st) != 0 && errno == ENOENT
        try file.ensureDirectory(paths.profileDir, refusingLink: true)
        lock = ProfileLock(path: paths.lockFile, timeout: lockTimeout)
        let file = self.file
        let defaults = DefaultsStore(path: paths.defaultsFile, file: file, lock: lock, clean: StoreKey.wellTyped)
        self.defaults = defaults
        tokens = TokenStore(path: paths.tokenFile, file: file, lock: lock)
        appStore = AppStore(
            defaults: defaults, tokens: tokens, accountList: AccountListStore(path: paths.accountsFile, file: file, lock: lock),
            clock: clock)
        // One lock for both: leftovers of an interrupted write go, then the state is read.
        try lock.withLock { () throws(SessionError) in
            _ = file.cleanTemporaryFiles(in: paths.profileDir)
            try defaults.loadHoldingLock()
        }
    }

    /// Removes the profile's folder when this process made it and it still holds nothing but its lock:
    /// a command that only showed a profile that did not exist (a mistyped `--profile`) leaves none behind.
    public func removeIfMadeAndUnused() {
        guard madeProfileFolder else { return }
        // Under the lock: a process writing its first file there holds it, and the folder is then kept.
        // The state folder above it stays: no lock guards it from a process making a profile in it.
        try? lock.withLock { () throws(SessionError) in StatePaths.removeEmptyProfile(paths.profileDir) }
    }

    /// Creates the config folder (0700) when something is about to be written there.
    public func ensureConfigDirectory() throws(SessionError) {
        try file.ensureDirectory(paths.configDir)
    }
}
