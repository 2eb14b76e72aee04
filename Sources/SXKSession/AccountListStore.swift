import FoundationEssentials
import SXKCore
import SXKModels

/// The accounts one `v9/login` returned, kept in the profile (`accounts.json`, 0600, atomic like the
/// other state files) so that a later process can switch account or compare accounts: ids, names,
/// types, roles and scopes, and the phone that logged in. Never a token (the temporary token stays in
/// the memory of the process that logged in).
public final class AccountListStore: @unchecked Sendable {
    /// What the file holds.
    public struct List: Sendable, Equatable {
        public var phone: String
        public var accounts: [Account]

        public init(phone: String, accounts: [Account]) {
            self.phone = phone; self.accounts = accounts
        }
    }

    public let path: String
    private let file: SecureFile?
    private let lock: ProfileLock?
    private let mutex = Lock()
    private var memory: List?

    public init(path: String, file: SecureFile, lock: ProfileLock) {
        self.path = path
        self.file = file
        self.lock = lock
    }

    /// A store that never touches a file (tests, replays).
    public init(memory list: List? = nil) {
        path = ""
        file = nil
        lock = nil
        memory = list
    }

    /// While held, writes and clears change memory only (a device snapshot inspected on a copy).
    public var held: Bool {
        get { mutex.withLock { isHeld } }
        set { mutex.withLock { isHeld = newValue } }
    }
    private var isHeld = false
    private var heldList: List??

    public func discardHeld() { mutex.withLock { heldList = nil } }

    /// The stored list, nil when there is none (or the file is unsafe or unreadable: a warning says why).
    public func read() throws(SessionError) -> List? {
        if let held = mutex.withLock({ heldList }) { return held }
        guard let file, let lock else { return mutex.withLock { memory } }
        return try lock.withLock { () throws(SessionError) -> List? in
            // Refused where it stays (a link, another owner, a loose mode): said once, not at every read.
            let version = DefaultsStore.FileVersion(path)
            let said = version != nil && mutex.withLock { refused } == version
            let list = try file.load(path, kind: .state, warnIfRefused: !said, decode: AccountListStore.decode)?.value
            let after = DefaultsStore.FileVersion(path)
            mutex.withLock { refused = list == nil && after != nil && after == version ? version : nil }
            return list
        }
    }
    private var refused: DefaultsStore.FileVersion?

    /// Writes the list; `unlessReplaced`, asked under the profile lock: the session it belongs to is
    /// no longer the profile's (another process's login or logout), so the list on disk is that
    /// session's and stays. Whether written.
    @discardableResult
    public func write(_ list: List, unlessReplaced replaced: (() -> Bool)? = nil) throws(SessionError) -> Bool {
        if mutex.withLock({ isHeld }) { mutex.withLock { heldList = .some(list) }; return true }
        guard let file, let lock else { mutex.withLock { memory = list }; return true }
        let bytes = JSONWriter.bytes(AccountListStore.encode(list), style: .pretty) + [0x0A]
        return try lock.withLock { () throws(SessionError) -> Bool in
            if replaced?() == true { return false }
            try file.writeAtomically(path, bytes: bytes)
            return true
        }
    }

    /// Removes the list; `unlessReplaced` as for `write`, but a list another session wrote is a
    /// reason to stop (`.replaced`): a logout's other writes are not made either.
    public func clear(unlessReplaced replaced: (() -> Bool)? = nil) throws(SessionError) {
        if mutex.withLock({ isHeld }) { return mutex.withLock { heldList = .some(nil) } }
        guard let file, let lock else { return mutex.withLock { memory = nil } }
        try lock.withLock { () throws(SessionError) in
            if replaced?() == true { throw .replaced(SessionError.anotherSession) }
            try file.remove(path)
        }
    }

    /// The fields kept per account: exactly the non-secret ones of `Account`.
    static func encode(_ list: List) -> JSONValue {
        ["phone": .string(list.phone), "accounts": .array(list.accounts.map(\.json))]
    }

    static func decode(_ bytes: [UInt8]) -> Result<List, SecureFile.CorruptReason> {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, maxDepth: 8) } catch {
            return .failure(.init("not valid JSON: \(error.description)"))
        }
        guard let object = value.objectValue, let phone = object.string("phone"), let items = object["accounts"]?.arrayValue else {
            return .failure(.init("expected {\"phone\", \"accounts\": [...]}"))
        }
        var accounts: [Account] = []
        for item in items {
            guard let account = try? Account(json: item) else { return .failure(.init("an account entry is unreadable")) }
            accounts.append(account)
        }
        return .success(List(phone: phone, accounts: accounts))
    }
}
