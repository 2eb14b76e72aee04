import FoundationEssentials
import SXKModels
import SXKCore

/// The app's `AccountContext`: the current account's profile fields, its scenic-area scope and
/// store scope; plus, in memory only, the store list and the accounts of this login.
public final class AccountContext: @unchecked Sendable {
    /// A consistent copy of the account context.
    public struct State: Sendable, Equatable {
        public var userId: Int?
        public var accountType: String?
        public var displayName: String?
        public var userName: String?
        public var realName: String?
        public var avatar: String?
        public var phone: String?
        public var scenicId: Int?
        public var scenicName: String?
        public var storeId: Int?
        /// `GET app/store/all`, never persisted (seed §4.3).
        public var stores: [Store] = []
        /// The accounts `v9/login` returned for this login, never persisted.
        public var accounts: [Account] = []

        public init() {}

        /// `userId_accountType`, or `guest` without a user id.
        public var accountCachePrefix: String { StoreKey.accountCachePrefix(userId: userId, accountType: accountType) }
    }

    private let lock = Lock()
    private var state = State()

    public init() {}

    public var current: State { lock.withLock { state } }
    public var userId: Int? { lock.withLock { state.userId } }
    public var accountCachePrefix: String { lock.withLock { state.accountCachePrefix } }
    public var hasAccount: Bool { lock.withLock { state.userId != nil } }

    /// Fills the context from the chosen account (login, account switch); stores and the accounts list stay.
    public func apply(_ account: Account) {
        lock.withLock {
            state.userId = account.userId
            state.accountType = account.accountType
            state.displayName = account.accountDisplayName
            state.userName = account.userName
            state.realName = account.realName
            state.avatar = account.avatar
            state.phone = account.phone
            state.scenicId = account.scenicId
            state.scenicName = account.scenicName
            state.storeId = account.storeId
        }
    }

    /// Replaces the whole state (restore from the snapshot).
    public func replace(with newState: State) {
        lock.withLock { state = newState }
    }

    /// Seed §5.3: display fields the server sent replace the local ones.
    public func applyUserInfo(_ info: UserInfo) {
        lock.withLock {
            if let v = info.userName { state.userName = v }
            if let v = info.realName { state.realName = v }
            if let v = info.avatar { state.avatar = v }
            if let v = info.phone { state.phone = v }
        }
    }

    public func setScenic(id: Int?, name: String?) {
        lock.withLock {
            state.scenicId = id
            state.scenicName = name
        }
    }

    public func setStoreId(_ id: Int?) {
        lock.withLock { state.storeId = id }
    }

    public func setStores(_ stores: [Store]) {
        lock.withLock { state.stores = stores }
    }

    public func setAccounts(_ accounts: [Account]) {
        lock.withLock { state.accounts = accounts }
    }

    /// Logout: everything cleared.
    public func reset() {
        lock.withLock { state = State() }
    }
}
