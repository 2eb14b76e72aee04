import FoundationEssentials

/// A formal token the sandbox issued: which account it stands for and when it was issued.
public struct SandboxTokenRecord: Sendable, Equatable {
    public let token: String
    public let userId: Int
    public let issued: Date

    public init(token: String, userId: Int, issued: Date) {
        self.token = token
        self.userId = userId
        self.issued = issued
    }
}

/// Where a sandbox keeps its formal tokens between runs, so a client's stored session stays valid
/// when the same state is served again (`sxk --sandbox` keeps them beside its profile). The sandbox
/// changes no other data: orders, stores and statistics are generated from the seed.
public protocol SandboxTokenKeeper: Sendable {
    /// The tokens kept so far (none when there is no file yet or it cannot be read).
    func load() -> [SandboxTokenRecord]
    /// Replaces what is kept with `records`.
    func save(_ records: [SandboxTokenRecord])
    /// Replaces what is kept with `change` of it, read and written as one step: two sandboxes on one
    /// state folder (two `sxk --sandbox` runs) keep each other's tokens.
    func update(_ change: ([SandboxTokenRecord]) -> [SandboxTokenRecord])
}

extension SandboxTokenKeeper {
    public func update(_ change: ([SandboxTokenRecord]) -> [SandboxTokenRecord]) { save(change(load())) }
}
