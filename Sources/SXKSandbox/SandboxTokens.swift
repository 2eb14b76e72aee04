import FoundationEssentials
import SXKCore

/// Temporary (login) and formal (set-user) tokens, with expiry.
final class SandboxTokens: @unchecked Sendable {
    /// A temporary token lives this long at most (the app swaps it at once).
    static let temporaryLifetime: TimeInterval = 600

    struct Formal {
        let userId: Int
        let issued: Date
    }

    private struct Temporary {
        let phone: String
        let issued: Date
    }

    private let lock = Lock()
    private var temporary: [String: Temporary] = [:]
    private var formal: [String: Formal] = [:]
    private var ttl: TimeInterval?
    /// When `expireAll` ran: a token issued before it stays expired, even if another run keeps it.
    private var expiredBefore: Date?
    private let clock: any WallClock
    private let keeper: (any SandboxTokenKeeper)?

    /// Formal tokens kept across runs at most (the oldest go first): every login adds one.
    static let keptLimit = 64

    init(ttl: TimeInterval?, clock: any WallClock, keeper: (any SandboxTokenKeeper)? = nil) {
        self.ttl = ttl
        self.clock = clock
        self.keeper = keeper
        for record in keeper?.load() ?? [] { formal[record.token] = Formal(userId: record.userId, issued: record.issued) }
    }

    var tokenTTL: TimeInterval? {
        get { lock.withLock { ttl } }
        set { lock.withLock { ttl = newValue } }
    }

    static func random(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = "0123456789abcdef"
        return prefix + String((0..<32).map { _ in hex.randomElement(using: &generator)! })
    }

    func issueTemporary(phone: String) -> String {
        let token = SandboxTokens.random(prefix: "tmp_")
        lock.withLock { temporary[token] = Temporary(phone: phone, issued: clock.now()) }
        return token
    }

    func issueFormal(userId: Int) -> String {
        let token = SandboxTokens.random(prefix: "sxk_")
        lock.withLock {
            formal[token] = Formal(userId: userId, issued: clock.now())
            // Tokens another run kept since this one started stay valid too (two shells on one state
            // folder), and the file is read and written as one step so neither run drops the other's.
            keeper?.update { kept in
                adopt(kept)
                return keptRecords()
            }
        }
        return token
    }

    /// Takes the tokens another run kept that this one does not know; called with the lock held.
    private func adopt(_ kept: [SandboxTokenRecord]) {
        for record in kept where formal[record.token] == nil && expiredBefore.map({ record.issued > $0 }) != false {
            formal[record.token] = Formal(userId: record.userId, issued: record.issued)
        }
    }

    /// The formal tokens to keep, newest `keptLimit` only; called with the lock held.
    private func keptRecords() -> [SandboxTokenRecord] {
        Array(formal.map { SandboxTokenRecord(token: $0.key, userId: $0.value.userId, issued: $0.value.issued) }
            .sorted { ($0.issued, $0.token) > ($1.issued, $1.token) }
            .prefix(SandboxTokens.keptLimit))
    }

    /// The account behind a live formal token.
    func formalUser(_ token: String) -> Int? {
        lock.withLock {
            // A token this run does not know may be another run's on the same state folder (a
            // `switch-account` in another shell): read what is kept before refusing it.
            if formal[token] == nil, let keeper { adopt(keeper.load()) }
            guard let entry = formal[token] else { return nil }
            if let ttl, clock.now().timeIntervalSince(entry.issued) >= ttl {
                formal[token] = nil
                return nil
            }
            return entry.userId
        }
    }

    /// The phone behind a live temporary token.
    func temporaryPhone(_ token: String) -> String? {
        lock.withLock {
            guard let entry = temporary[token] else { return nil }
            let lifetime = min(SandboxTokens.temporaryLifetime, ttl ?? .infinity)
            if clock.now().timeIntervalSince(entry.issued) >= lifetime {
                temporary[token] = nil
                return nil
            }
            return entry.phone
        }
    }

    /// Every token issued so far stops working.
    func expireAll() {
        lock.withLock {
            temporary.removeAll()
            formal.removeAll()
            expiredBefore = clock.now()
            keeper?.update { _ in [] }
        }
    }
}
