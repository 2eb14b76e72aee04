import FoundationEssentials
import SXKCore
import SXKModels

/// The app's `AppStore`: typed reads and writes of the UserDefaults-like state (`defaults.json`)
/// and the token (`token` file). Every mutating call persists at once (one merge-save), unless it
/// runs inside `batch`, which saves once at the end.
public final class AppStore: @unchecked Sendable {
    public let defaults: DefaultsStore
    public let tokens: TokenStore
    /// The accounts of the last login (no token), for switches in a later process.
    public let accountList: AccountListStore
    private let clock: any WallClock
    private let batchLock = Lock()
    private var batchDepth = 0

    public init(defaults: DefaultsStore, tokens: TokenStore, accountList: AccountListStore = AccountListStore(), clock: any WallClock = SystemClock()) {
        self.defaults = defaults
        self.tokens = tokens
        self.accountList = accountList
        self.clock = clock
    }

    /// A copy in memory of the stored values and token that no save writes to disk: the scratch
    /// state `home` and `boot` replay on (docs/app-behaviour.md#replays).
    public func memoryCopy() -> AppStore {
        AppStore(defaults: defaults.memoryCopy(), tokens: TokenStore(memoryToken: try? tokens.read()),
                 accountList: AccountListStore(memory: try? accountList.read()), clock: clock)
    }

    // MARK: Device snapshots (docs/app-behaviour.md#snapshots)

    /// True for a profile made by `import-defaults` and not since logged into or out of: a device's
    /// state that commands inspect on a copy.
    public var isDeviceSnapshot: Bool { defaults[StoreKey.importedFrom] != nil }
    public var importedFrom: String? { defaults[StoreKey.importedFrom]?.stringValue }
    public var importedAt: Date? { date(StoreKey.importedAt) }

    /// While held, no write reaches a file: the defaults, the token and the account list change in
    /// memory only, until `discardHeld()` goes back to what is stored.
    public var held: Bool {
        get { defaults.held }
        set {
            defaults.held = newValue
            tokens.held = newValue
            accountList.held = newValue
        }
    }

    /// Drops every held change: the state as stored on disk.
    public func discardHeld() throws(SessionError) {
        tokens.discardHeld()
        accountList.discardHeld()
        try defaults.discardHeld()
    }

    /// The clock this store stamps `sxk_snapshot_saved_at` with.
    public var wallClock: any WallClock { clock }

    /// Re-reads `defaults.json` (keeping unsaved local changes on top); a file unchanged since it was
    /// last read is not read again (`DefaultsStore.refresh`).
    public func reload() throws(SessionError) { try defaults.refresh() }

    /// What the token file must hold for a write that follows a change of session (a login's token,
    /// a logout's removal): asked under the profile lock at that write. Another process's login or
    /// logout in between makes the profile its session, and this one's later writes are refused.
    public enum TokenExpectation: Sendable, Equatable {
        case holds(String)
        case absent
    }

    /// Whether the token file no longer is as `expectation` says, for a caller holding the lock.
    func replaced(_ expectation: TokenExpectation) -> Bool {
        switch expectation {
        case .holds(let token): return !tokens.holdsHoldingLock(token)
        case .absent: return !tokens.isAbsentHoldingLock
        }
    }

    /// Runs several changes and saves once at the end (also when `body` throws). `expecting`: the
    /// changes belong to a session whose token file is as it says (a login's), so the save is
    /// refused when another process logged in or out by then.
    public func batch<T>(expecting expectation: TokenExpectation? = nil, _ body: () throws(SessionError) -> T) throws(SessionError) -> T {
        batchLock.withLock {
            batchDepth += 1
            if let expectation { expected = expectation }
        }
        let result: Result<T, SessionError>
        do { result = .success(try body()) } catch { result = .failure(error) }
        let (outermost, expectation) = batchLock.withLock { () -> (Bool, TokenExpectation?) in
            batchDepth -= 1
            guard batchDepth == 0 else { return (false, nil) }
            defer { expected = nil }
            return (true, expected)
        }
        if outermost {
            if let expectation {
                try defaults.save(replaced: { self.replaced(expectation) })
            } else {
                try defaults.save()
            }
        }
        return try result.get()
    }
    private var expected: TokenExpectation?

    /// The account list of a login whose token is `token`: not written once another process's login
    /// or logout has made the profile its session (the list on disk is that session's). Whether written.
    @discardableResult
    public func writeAccountList(_ list: AccountListStore.List, expectingToken token: String) throws(SessionError) -> Bool {
        try accountList.write(list, unlessReplaced: { self.replaced(.holds(token)) })
    }

    private func commit() throws(SessionError) {
        let inBatch = batchLock.withLock { batchDepth > 0 }
        if !inBatch { try defaults.save() }
    }

    // MARK: Raw typed access

    private func string(_ key: String) -> String? { defaults[key]?.stringValue }
    private func int(_ key: String) -> Int? { defaults[key]?.intValue }
    private func bool(_ key: String) -> Bool? { defaults[key]?.boolValue }
    private func date(_ key: String) -> Date? { defaults[key]?.doubleValue.map { Date(timeIntervalSince1970: $0) } }
    private func setString(_ key: String, _ value: String?) { defaults.set(key, value.map { .string($0) }) }
    private func setInt(_ key: String, _ value: Int?) { defaults.set(key, value.map { .int($0) }) }
    private func setBool(_ key: String, _ value: Bool?) { defaults.set(key, value.map { .bool($0) }) }
    private func setDate(_ key: String, _ value: Date?) {
        defaults.set(key, value.map(Self.timeValue))
    }
    func scopedKey(_ name: String) -> String { StoreKey.scoped(name, prefix: accountCachePrefix) }
    private func touchSnapshot() { setDate(StoreKey.snapshotSavedAt, clock.now()) }
    /// Marks the session as confirmed by the server now (saved with the next commit).
    func touchValidated() { setDate(StoreKey.sessionValidatedAt, clock.now()) }

    // MARK: Token

    /// The formal token from the token file (nil when absent or refused; a warning says why).
    public func token() throws(SessionError) -> String? { try tokens.read() }

    // MARK: Preferences (kept at logout)

    public var lastLoginUsername: String? { string(StoreKey.lastLoginUsername) }
    public var privacyAgreementAccepted: Bool { bool(StoreKey.privacyAgreementAccepted) ?? false }

    public func setLastLoginUsername(_ phone: String?) throws(SessionError) {
        setString(StoreKey.lastLoginUsername, phone)
        try commit()
    }

    public func setPrivacyAgreementAccepted(_ accepted: Bool) throws(SessionError) {
        setBool(StoreKey.privacyAgreementAccepted, accepted)
        try commit()
    }

    // MARK: Account snapshot (non-scoped)

    public var userId: Int? { int(StoreKey.userId) }
    public var userName: String? { string(StoreKey.userName) }
    public var realName: String? { string(StoreKey.realName) }
    public var avatar: String? { string(StoreKey.avatar) }
    public var phone: String? { string(StoreKey.phone) }
    public var accountType: String? { string(StoreKey.accountType) }
    public var accountDisplayName: String? { string(StoreKey.accountDisplayName) }
    public var roleCode: String? { string(StoreKey.roleCode) }
    public var roleName: String? { string(StoreKey.roleName) }
    public var currentScenicId: Int? { int(StoreKey.currentScenicId) }
    public var currentScenicName: String? { string(StoreKey.currentScenicName) }
    public var currentStoreId: Int? { int(StoreKey.currentStoreId) }
    /// When sxk last wrote the account snapshot (for "snapshot age").
    public var snapshotSavedAt: Date? { date(StoreKey.snapshotSavedAt) }
    /// When the server last confirmed the token and sxk refreshed the account context from it
    /// (validation at start, login); nil when never or since cleared.
    public var sessionValidatedAt: Date? { date(StoreKey.sessionValidatedAt) }
    /// Whether an account snapshot exists (a user id is stored).
    public var hasAccountSnapshot: Bool { userId != nil }

    /// `userId_accountType`, or `guest` without a user id.
    public var accountCachePrefix: String {
        StoreKey.accountCachePrefix(userId: userId, accountType: accountType)
    }

    /// A stored time as the app stores it: epoch seconds, to the millisecond.
    public static func timeValue(_ date: Date) -> JSONValue {
        .double((date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// What a lifecycle step changes besides the stored keys: the token file.
    public enum TokenChange: Sendable, Equatable {
        case set(String)
        case remove
    }

    /// Writes what one step of the app model decided (`AppModel.apply`): the token file first, then the
    /// account list, then `values` (nil removes a key) in one save, each written even when this process
    /// read the same value (another may have written the file since). The storage layer holds no rule
    /// of which keys a login or a logout writes; the app model does.
    /// Another process's login or logout between these writes makes the profile its session: after a
    /// new token, the rest is refused once the file holds another; a removal leaves a token file
    /// another process wrote since this one's session took it (`TokenStore.clear(ownSessionOnly:)`),
    /// and refuses the rest once one is stored again. A removal clears everything it can: a token
    /// file that cannot be removed (a folder planted there) does not keep the account snapshot and
    /// list; its failure is thrown last.
    /// `replacingOwnSession`: a new token replaces this process's session (`TokenStore.write(ownSessionOnly:)`).
    /// The whole write is one change for an interrupt or a SIGTERM (`StateWrites`): it finishes first,
    /// so a token never stands on disk without the account keys written with it.
    public func write(_ values: [(key: String, value: JSONValue?)], token: TokenChange? = nil, clearAccountList: Bool = false,
                      replacingOwnSession: Bool = false) throws(SessionError) {
        try StateWrites.together { () throws(SessionError) in
            try writeTogether(values, token: token, clearAccountList: clearAccountList, replacingOwnSession: replacingOwnSession)
        }
    }

    private func writeTogether(_ values: [(key: String, value: JSONValue?)], token: TokenChange?, clearAccountList: Bool,
                               replacingOwnSession: Bool) throws(SessionError) {
        var deferred: SessionError?
        var expectation: TokenExpectation?
        // A new token whose account keys cannot be written goes back to the token before it: the token
        // on disk never stands beside another account's keys (a disk full between the two writes).
        var restore: String??
        switch token {
        case .set(let value):
            let before = try? tokens.read()
            try tokens.write(value, ownSessionOnly: replacingOwnSession)
            restore = .some(before ?? nil)
            expectation = .holds(value)
        case .remove:
            do {
                try tokens.clear(ownSessionOnly: true)
                expectation = .absent
            } catch .replaced(let reason) {
                throw .replaced(reason)
            } catch {
                deferred = error
            }
        case nil: break
        }
        func putBack() {
            guard case .some(let before) = restore else { return }
            if let before { try? tokens.write(before) } else { try? tokens.clear() }
        }
        if clearAccountList {
            do {
                if let expectation {
                    try accountList.clear(unlessReplaced: { self.replaced(expectation) })
                } else {
                    try accountList.clear()
                }
            } catch .replaced(let reason) {
                throw .replaced(reason)
            } catch {
                if deferred == nil { putBack(); throw error }
            }
        }
        if !values.isEmpty {
            do {
                try batch(expecting: expectation) { () throws(SessionError) in
                    for (key, value) in values { defaults.set(key, value, evenIfUnchanged: true) }
                }
            } catch .replaced(let reason) {
                throw .replaced(reason)
            } catch {
                putBack()
                throw error
            }
        }
        if let deferred { throw deferred }
    }

    /// The role name `applyUserInfo` writes (seed 000 §5.3): the one sent, only when it is not empty
    /// and the local one is; nil when it writes none. The account context's load follows it too.
    public static func userInfoRoleName(sent: String?, local: String?) -> String? {
        guard let sent, !sent.isEmpty, (local ?? "").isEmpty else { return nil }
        return sent
    }

    /// `AppStore.applyUserInfo` (seed 000 §5.3): userName, realName, avatar, phone when sent; roleName
    /// only when the local one is empty. (The profile feature's second rule is `setRoleName`.)
    public func applyUserInfo(_ info: UserInfo) throws(SessionError) {
        if let v = info.userName { setString(StoreKey.userName, v) }
        if let v = info.realName { setString(StoreKey.realName, v) }
        if let v = info.avatar { setString(StoreKey.avatar, v) }
        if let v = info.phone { setString(StoreKey.phone, v) }
        if let v = Self.userInfoRoleName(sent: info.roleName, local: roleName) { setString(StoreKey.roleName, v) }
        touchSnapshot()
        try commit()
    }

    public func setRoleName(_ name: String?) throws(SessionError) {
        setString(StoreKey.roleName, name)
        touchSnapshot()
        try commit()
    }

    /// The current role (switching roles writes code and name together).
    public func setRole(code: String?, name: String?) throws(SessionError) {
        setString(StoreKey.roleCode, code)
        setString(StoreKey.roleName, name)
        touchSnapshot()
        try commit()
    }

    public func setCurrentScenic(id: Int?, name: String?) throws(SessionError) {
        setInt(StoreKey.currentScenicId, id)
        setString(StoreKey.currentScenicName, name)
        touchSnapshot()
        try commit()
    }

    public func setCurrentStoreId(_ id: Int?) throws(SessionError) {
        setInt(StoreKey.currentStoreId, id)
        touchSnapshot()
        try commit()
    }

    // MARK: Account-scoped lists (stored by the app as JSON Data)

    public var roleId: String? { string(scopedKey(StoreKey.roleId)) }

    public func rolePermissionList() -> [RolePermission] {
        (defaults[scopedKey(StoreKey.rolePermissionList)]?.arrayValue ?? []).compactMap { try? RolePermission(json: $0) }
    }

    public func permissionItems() -> [PermissionItem] {
        (defaults[scopedKey(StoreKey.permission)]?.arrayValue ?? []).compactMap { try? PermissionItem(json: $0) }
    }

    public func roleScenicList() -> [ScenicRef] {
        (defaults[scopedKey(StoreKey.currentRoleScenicList)]?.arrayValue ?? []).compactMap { try? ScenicRef(json: $0) }
    }

    /// Whether a role-permission list was ever stored for this account (an empty one counts).
    public var hasRolePermissionList: Bool { defaults[scopedKey(StoreKey.rolePermissionList)] != nil }

    public func saveRolePermissionList(_ list: [RolePermission]) throws(SessionError) {
        defaults.set(scopedKey(StoreKey.rolePermissionList), .array(list.map(\.json)))
        touchSnapshot()
        try commit()
    }

    public func savePermissionItems(_ items: [PermissionItem]) throws(SessionError) {
        defaults.set(scopedKey(StoreKey.permission), .array(items.map(\.json)))
        touchSnapshot()
        try commit()
    }

    public func saveRoleScenicList(_ list: [ScenicRef]) throws(SessionError) {
        defaults.set(scopedKey(StoreKey.currentRoleScenicList), .array(list.map(\.json)))
        touchSnapshot()
        try commit()
    }

    // MARK: Location state (account-scoped, seed §6.3)

    public var onlineStatus: Bool? { bool(scopedKey(StoreKey.onlineStatus)) }
    public var lastLocationReportTime: Date? { date(scopedKey(StoreKey.lastLocationReportTime)) }
    public var locationReminderMinutes: Int? { int(scopedKey(StoreKey.locationReminderMinutes)) }
    public var isOpenReceiveVoice: Bool? { bool(scopedKey(StoreKey.isOpenReceiveVoice)) }

    public func setOnlineStatus(_ online: Bool?) throws(SessionError) {
        setBool(scopedKey(StoreKey.onlineStatus), online)
        try commit()
    }

    public func setLastLocationReportTime(_ time: Date?) throws(SessionError) {
        setDate(scopedKey(StoreKey.lastLocationReportTime), time)
        try commit()
    }

    public func setLocationReminderMinutes(_ minutes: Int?) throws(SessionError) {
        setInt(scopedKey(StoreKey.locationReminderMinutes), minutes)
        try commit()
    }

    // MARK: Common menus (seed §6.2)

    /// The stored common-menu URIs of `roleCode` in this account's scope, nil when there is no record.
    public func commonMenuURIs(roleCode: String) -> [String]? {
        defaults[StoreKey.commonMenuURIs(prefix: accountCachePrefix, roleCode: roleCode)]?.arrayValue?.compactMap(\.stringValue)
    }

    public func setCommonMenuURIs(_ uris: [String]?, roleCode: String) throws(SessionError) {
        let key = StoreKey.commonMenuURIs(prefix: accountCachePrefix, roleCode: roleCode)
        defaults.set(key, uris.map { .array($0.map { .string($0) }) })
        try commit()
    }

    // MARK: keys

    /// One stored key as `keys` shows it.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
        public var kind: StoreKey.Kind
        /// True when `value` is a masked stand-in (the token).
        public var masked: Bool
    }

    /// Everything stored, as UserDefaults would hold it: non-scoped keys in seed order (the token
    /// masked), then each account scope's keys in seed order with its common menus and the scoped
    /// keys sxk does not model, then keys sxk does not know.
    /// sxk's own bookkeeping keys (`sxk_…`) only with `includeSxk`: they are not the app's.
    public func allKeys(includeToken: Bool = true, includeSxk: Bool = false) -> [Entry] {
        let stored = defaults.entries
        var out: [Entry] = []
        for key in StoreKey.nonScoped {
            if key == StoreKey.token {
                if includeToken, let token = try? tokens.read() {
                    out.append(Entry(key: key, value: .string(Redaction.maskToken(token)), kind: .nonScoped, masked: true))
                }
                continue
            }
            if let value = stored.last(where: { $0.key == key })?.value {
                out.append(Entry(key: key, value: value, kind: .nonScoped, masked: false))
            }
        }
        if includeSxk {
            for (key, value) in stored where StoreKey.kind(of: key) == .sxk {
                out.append(Entry(key: key, value: value, kind: .sxk, masked: false))
            }
        }
        var prefixes: [String] = []
        var scoped: [String: [Entry]] = [:]
        var unknown: [Entry] = []
        for (key, value) in stored {
            let kind = StoreKey.kind(of: key)
            switch kind {
            case .scoped(let prefix, _), .commonMenus(let prefix, _), .scopedUnmodelled(let prefix, _):
                if scoped[prefix] == nil { prefixes.append(prefix) }
                scoped[prefix, default: []].append(Entry(key: key, value: value, kind: kind, masked: false))
            case .unknown:
                unknown.append(Entry(key: key, value: value, kind: kind, masked: false))
            case .nonScoped, .sxk:
                continue
            }
        }
        for prefix in prefixes {
            let entries = scoped[prefix] ?? []
            func rank(_ entry: Entry) -> Int {
                if case .scoped(_, let name) = entry.kind { return StoreKey.scoped.firstIndex(of: name) ?? 99 }
                return 100
            }
            out += entries.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
        }
        return out + unknown
    }
}
