import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An ordered key → JSON value map persisted as one JSON object (`defaults.json`), the shell's
/// stand-in for the app's UserDefaults. Saving merges: under the profile lock it re-reads the file
/// and applies only the keys this process changed or removed since it last loaded.
public final class DefaultsStore: @unchecked Sendable {
    /// Deepest nesting accepted in the file; the app's values are a few levels deep.
    public static let maxDepth = 32

    public let path: String
    /// nil for an in-memory copy (a replay's scratch state): `load` and `save` never touch a file.
    private let file: SecureFile?
    private let lock: ProfileLock?
    /// Leaves out the keys a reader cannot use (a known key of the wrong type), with why.
    private let clean: @Sendable (JSONObject) -> (kept: JSONObject, dropped: [String])
    /// The reasons already said for the file as read (said once, not at every read).
    private var saidDropped = Set<String>()
    private let mutex = Lock()
    private var values = JSONObject()
    private var changed = Set<String>()
    private var looseMode = false
    /// The file as the last `load` read it (nil: not read, read as refused or absent, or written since),
    /// so `refresh` can tell that nothing changed without reading and parsing it again.
    private var loadedVersion: FileVersion?
    /// The file as the last `load` refused it (the warning said why): not read, nor said, again.
    private var refusedVersion: FileVersion?
    /// The file as the last `load` read it; nil when it was not read (absent, refused) or written since.
    public var loadedFileVersion: FileVersion? { mutex.withLock { loadedVersion } }
    /// Whose state the file held when this process last read or wrote it (user id and account type):
    /// a save of scope keys onto another account's state is refused (`save`).
    private var loadedIdentity: [JSONValue?]?
    static let identityKeys: Set<String> = [StoreKey.userId, StoreKey.accountType]
    static func identity(_ object: JSONObject) -> [JSONValue?] { [object[StoreKey.userId], object[StoreKey.accountType]] }
    /// A save found another account's state on disk (`save` refused it): the session is read again
    /// before the next command, even when the token file did not change (an import that kept it).
    public var anotherSessionSeen: Bool { mutex.withLock { anotherSession } }
    private var anotherSession = false
    /// How many times the file was read and parsed (for tests: a start reads it once).
    private(set) var diskReads = 0

    /// `clean` leaves out what a reader cannot use (a known key of the wrong type): read as absent,
    /// with one warning, the file kept as it is; the next save writes the file without it.
    public init(path: String, file: SecureFile, lock: ProfileLock,
                clean: @escaping @Sendable (JSONObject) -> (kept: JSONObject, dropped: [String]) = { ($0, []) }) {
        self.path = path
        self.file = file
        self.lock = lock
        self.clean = clean
    }

    private init(memoryOf values: JSONObject) {
        path = ""
        file = nil
        lock = nil
        clean = { ($0, []) }
        self.values = values
    }

    /// An in-memory copy of the current values (pending changes included) that no save writes to disk:
    /// what `home`/`boot` replay on, so the stored state stays as it is unless a replay is applied.
    public func memoryCopy() -> DefaultsStore {
        DefaultsStore(memoryOf: mutex.withLock { values })
    }

    /// While held, `save()` keeps every change in memory and writes nothing: a device snapshot is
    /// inspected on a copy (docs/app-behaviour.md#snapshots). `discardHeld()` drops those changes.
    public var held: Bool {
        get { mutex.withLock { isHeld } }
        set { mutex.withLock { isHeld = newValue } }
    }
    private var isHeld = false

    /// Drops every change not written to disk and reads the file again: the state as stored.
    public func discardHeld() throws(SessionError) {
        mutex.withLock { changed = [] }
        try load()
    }

    /// Reads the file under the lock. Pending local changes stay applied on top of what was read.
    public func load() throws(SessionError) {
        guard let lock else { return }
        try lock.withLock { () throws(SessionError) in try loadHoldingLock() }
    }

    /// `load` for a caller that holds the profile lock already (opening the profile: one lock for
    /// the clean-up and the read).
    public func loadHoldingLock() throws(SessionError) {
        guard lock != nil else { return }
        // Under the lock no writer can replace the file between this look and the read.
        let version = FileVersion(path)
        let disk = try readDisk(warnIfRefused: true)
        mutex.withLock {
            var merged = disk.object
            for key in changed { merged[key] = values[key] }
            values = merged
            loadedIdentity = Self.identity(disk.object)
            anotherSession = false
            looseMode = disk.loose
            loadedVersion = disk.read ? version : nil
            // A refused file (another owner, a link, loose…) is refused again the same way: said once.
            refusedVersion = disk.read ? nil : version
            diskReads += 1
        }
    }

    /// `load`, skipped when the file is still the one the last `load` read: every write replaces it
    /// (a new inode, new times), so the same identity means the same bytes, and the values in memory
    /// are already those bytes with the pending changes on top.
    public func refresh() throws(SessionError) {
        guard lock != nil else { return }
        let (seen, refused) = mutex.withLock { (loadedVersion, refusedVersion) }
        if let seen, FileVersion(path) == seen { return }
        if let refused, FileVersion(path) == refused { return }
        try load()
    }

    public subscript(key: String) -> JSONValue? {
        mutex.withLock { values[key] }
    }

    /// Sets (or, with nil, removes) a key in memory; `save()` persists it. A value equal to the one in
    /// memory is no change, unless `evenIfUnchanged`: a step that decides the key (a login writing its
    /// account) writes it whatever another process has put in the file since this one read it.
    public func set(_ key: String, _ value: JSONValue?, evenIfUnchanged: Bool = false) {
        mutex.withLock {
            if values[key] == value, !evenIfUnchanged { return }
            values[key] = value
            changed.insert(key)
        }
    }

    /// Whether `key` holds a change that no save has written yet.
    public func isPending(_ key: String) -> Bool {
        mutex.withLock { changed.contains(key) }
    }

    /// Takes back a change no save has written: `key` holds `value` again, pending only when
    /// `pending` (as it was before the change). For a change given up after its save failed, so a
    /// later save does not write it.
    public func revert(_ key: String, to value: JSONValue?, pending: Bool) {
        mutex.withLock {
            values[key] = value
            if pending { changed.insert(key) } else { changed.remove(key) }
        }
    }

    /// Every key and value in file order (new keys last).
    public var entries: [(key: String, value: JSONValue)] {
        mutex.withLock { values.entries }
    }

    /// Replaces the whole content (import into a fresh profile): every key now present or present before
    /// counts as changed.
    public func replaceAll(with object: JSONObject) {
        mutex.withLock {
            changed.formUnion(values.keys)
            changed.formUnion(object.keys)
            values = object
        }
    }

    /// `base` with each of `keys` set to its value in `changes` (added at the end, in `changes`' order,
    /// when `base` lacks it) or removed when `changes` has none.
    static func merging(_ changes: JSONObject, into base: JSONObject, keys: Set<String>) -> JSONObject {
        var merged = base
        var index: [String: Int] = [:]
        for (i, entry) in merged.entries.enumerated() { index[entry.key] = i }
        var present = Set<String>()
        for (key, value) in changes.entries where keys.contains(key) {
            present.insert(key)
            if let i = index[key] { merged.entries[i].value = value } else { index[key] = merged.entries.count; merged.entries.append((key, value)) }
        }
        let removed = keys.subtracting(present)
        if !removed.isEmpty { merged.entries.removeAll { removed.contains($0.key) } }
        return merged
    }

    /// Each key's value, the last of duplicates (as the subscript reads it).
    static func lastValues(_ object: JSONObject) -> [String: JSONValue] {
        Dictionary(object.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    /// Merges this process's changes into the file atomically under the lock. Without changes it only
    /// refreshes from disk (and rewrites a file whose mode was loose, making it 0600 again).
    /// `replaced`, asked under the lock: the session these changes belong to is no longer the
    /// profile's (another process stored its own token since), so they are refused as well.
    public func save(replaced: (() -> Bool)? = nil) throws(SessionError) {
        if held { return }
        guard let lock, let file else {
            mutex.withLock { changed = [] }
            return
        }
        let (pending, snapshot, wasLoose, identity) = mutex.withLock { () -> (Set<String>, JSONObject, Bool, [JSONValue?]?) in
            loadedVersion = nil
            return (changed, values, looseMode, loadedIdentity)
        }
        let merged = try lock.withLock { () throws(SessionError) -> JSONObject in
            let disk = try readDisk(warnIfRefused: false)
            // Another process logged in as another account, or out, since this one read the file:
            // its scope changes (a store, a role) belong to the account it read, not to this one.
            // A change of the account itself (a login, a logout here) is this process's to make,
            // unless its token is no longer the profile's: two logins at once leave the last
            // token beside its own account's state, never beside the other's.
            let foreign = identity != nil && disk.read && pending.isDisjoint(with: Self.identityKeys) && Self.identity(disk.object) != identity
            // The same account stored again by another process's login is not another session.
            let anotherSession = replaced?() == true && Self.identity(disk.object) != Self.identity(snapshot)
            if !pending.isEmpty, foreign || anotherSession {
                mutex.withLock { self.anotherSession = true }
                throw .replaced(SessionError.anotherSession)
            }
            // In memory order, so keys new to the file are added in the order they were set: the
            // same bytes whether the changes went out in one save or in several. Keys are found by
            // name in one step (an import of 200,000 keys is one save).
            let merged = Self.merging(snapshot, into: disk.object, keys: pending)
            if !pending.isEmpty || wasLoose || disk.loose || disk.setAside {
                try file.writeAtomically(path, bytes: JSONWriter.bytes(.object(merged), style: .pretty) + [0x0A])
            }
            return merged
        }
        mutex.withLock {
            // Keys changed again while we were writing keep their newer value and stay pending.
            let now = Self.lastValues(values), then = Self.lastValues(snapshot)
            var stillPending = Set<String>()
            for key in changed where now[key] != then[key] || !pending.contains(key) { stillPending.insert(key) }
            values = stillPending.isEmpty ? merged : Self.merging(values, into: merged, keys: stillPending)
            changed = stillPending
            loadedIdentity = Self.identity(merged)
            looseMode = false
        }
    }

    private struct Disk {
        var object = JSONObject()
        var loose = false
        var setAside = false
        /// The file was there and read as it is (not refused, not set aside).
        var read = false
    }

    /// What identifies one version of the file: device, inode, size and both times to the nanosecond.
    /// A file's identity as `stat` gives it: every write replaces the file, so an equal version is the same bytes.
    public struct FileVersion: Equatable, Sendable {
        var device: UInt64, inode: UInt64, size: Int64
        var modified: Int, modifiedNanos: Int, changed: Int, changedNanos: Int

        init?(_ path: String) {
            var st = stat()
            guard lstat(path, &st) == 0 else { return nil }
            device = UInt64(st.st_dev); inode = UInt64(st.st_ino); size = Int64(st.st_size)
            modified = st.st_mtim.tv_sec; modifiedNanos = st.st_mtim.tv_nsec
            changed = st.st_ctim.tv_sec; changedNanos = st.st_ctim.tv_nsec
        }
    }

    private func readDisk(warnIfRefused: Bool) throws(SessionError) -> Disk {
        var corrupt = false
        guard let file else { return Disk() }
        let loaded = try file.load(path, kind: .state, warnIfRefused: warnIfRefused) { bytes -> Result<JSONObject, SecureFile.CorruptReason> in
            let result = DefaultsStore.decode(bytes)
            if case .failure = result { corrupt = true }
            return result
        }
        if let loaded {
            // A key of the wrong type is read as absent, not the whole file set aside: a view that
            // only shows changes nothing, and the other keys still describe the account.
            let (kept, dropped) = clean(loaded.value)
            let unsaid = mutex.withLock { () -> [String] in
                let new = dropped.filter { !saidDropped.contains($0) }
                saidDropped.formUnion(new)
                return new
            }
            for reason in unsaid { file.warn("\(path): \(reason); read as absent (the file is kept as it is)") }
            return Disk(object: kept, loose: loaded.looseMode, setAside: false, read: true)
        }
        // A refused or set-aside file reads as empty; a refused one is replaced by the next write.
        var st = stat()
        let stillThere = lstat(path, &st) == 0
        return Disk(object: JSONObject(), loose: false, setAside: corrupt || stillThere)
    }

    /// Parses `defaults.json`: strict UTF-8 JSON, an object at the top, bounded nesting.
    public static func decode(_ bytes: [UInt8]) -> Result<JSONObject, SecureFile.CorruptReason> {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return .failure(.init("empty file"))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maxDepth: maxDepth)
        } catch {
            return .failure(.init("not valid JSON: \(error.description)"))
        }
        guard let object = value.objectValue else {
            return .failure(.init("expected a JSON object, found \(value.typeName)"))
        }
        return .success(object)
    }
}
