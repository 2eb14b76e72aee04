import FoundationEssentials
import SXKCore
import SXKModels
import Synchronization

/// The formal token, alone in the profile's `token` file (0600). A file that is not safe to trust
/// (loose mode, symlink, not regular, other owner) is refused with a warning: logged out.
public final class TokenStore: @unchecked Sendable {
    /// Longest token accepted; real ones are a few hundred characters.
    public static let maxLength = JSONObject.longestToken

    public let path: String
    /// nil for an in-memory copy (a replay's scratch state): the token lives in `memory` only.
    private let file: SecureFile?
    private let lock: ProfileLock?
    private let mutex = Lock()
    private var memory: String?

    public init(path: String, file: SecureFile, lock: ProfileLock) {
        self.path = path
        self.file = file
        self.lock = lock
    }

    /// A token store that never touches a file, holding `token`.
    public init(memoryToken token: String?) {
        path = ""
        file = nil
        lock = nil
        memory = token
    }

    /// While held, writes and clears change memory only (a device snapshot inspected on a copy);
    /// `discardHeld()` goes back to the file.
    public var held: Bool {
        get { mutex.withLock { isHeld } }
        set { mutex.withLock { isHeld = newValue } }
    }
    private var isHeld = false
    /// The held value: nil = none (read the file), .some(nil) = cleared in memory.
    private var heldToken: String??

    public func discardHeld() { mutex.withLock { heldToken = nil } }

    /// The file as this process last read or wrote it (nil: never looked at).
    private var seen: DefaultsStore.FileVersion??

    /// Whether another process wrote or removed the token file since this one last read or wrote
    /// it (a login, a switch of account, a logout elsewhere): a long-lived shell reads the session
    /// again before its next command instead of going on as the account it read. One `lstat`.
    public var changedOnDisk: Bool {
        guard file != nil, !held, let seen = mutex.withLock({ self.seen }) else { return false }
        return DefaultsStore.FileVersion(path) != seen
    }

    private func noteSeen() { let version = DefaultsStore.FileVersion(path); mutex.withLock { seen = .some(version) } }

    /// The file as the last read refused it (the warning said why): refused again without a word.
    private var refused: DefaultsStore.FileVersion?

    /// Whether a token file is there that the last read refused (loose mode, a link, corrupt):
    /// its token is not usable, though no one removed it.
    public var refusedOnDisk: Bool {
        guard let refused = mutex.withLock({ self.refused }) else { return false }
        return DefaultsStore.FileVersion(path) == refused
    }

    /// Whether something is at the token file's path (a token, or one refused for now: a loose mode).
    public var isOnDisk: Bool { file != nil && DefaultsStore.FileVersion(path) != nil }

    /// What output masks besides the session's own token, newest last (at most `knownLimit` of each
    /// kind), so a token the session no longer holds (rejected by the server, kept back as another
    /// backend's, logged out of) is never shown or saved in the clear where it is quoted back
    /// (`explain key`, a variable, history, a trace, `curl`, HAR): every token this store has read from
    /// or written to its file, and every token of a real one's length (`realTokenLength`) any store
    /// of this process has, or a server issued it (a login's), which stays a secret on every profile
    /// the shell moves to until a server rejects it (a dead token is no secret elsewhere). A shorter
    /// one (a placeholder in an export: `test`) is a secret on its own profile only, so it masks no
    /// word of another's output.
    public var knownTokens: [String] {
        let own = mutex.withLock { known }
        return own + Self.everywhere.withLock { $0 }.filter { !own.contains($0) }
    }
    private var known: [String] = []
    private static let everywhere = Mutex<[String]>([])
    static let knownLimit = 32
    /// The shortest token taken for a real one: a secret on every profile.
    public static let realTokenLength = 16
    private static func add(_ token: String, to list: inout [String]) {
        list.removeAll { $0 == token }
        list.append(token)
        if list.count > knownLimit { list.removeFirst(list.count - knownLimit) }
    }
    private func remember(_ token: String) {
        mutex.withLock { Self.add(token, to: &known) }
        guard token.utf8.count >= Self.realTokenLength, !Self.rejected.withLock({ $0.contains(token) }) else { return }
        Self.everywhere.withLock { Self.add(token, to: &$0) }
    }
    /// Tokens a server rejected in this process: read again (a snapshot's file keeps its token), not
    /// taken for secrets of other profiles again.
    private static let rejected = Mutex<Set<String>>([])
    /// A token a server rejected: a secret on its own profile only from now on.
    public static func forgetRejected(_ token: String) {
        rejected.withLock { _ = $0.insert(token) }
        everywhere.withLock { $0.removeAll { $0 == token } }
    }
    /// A token a server issued or accepted (a login's): a secret on every profile, whatever its length.
    public static func rememberAccepted(_ token: String) {
        rejected.withLock { _ = $0.remove(token) }
        everywhere.withLock { add(token, to: &$0) }
    }

    /// The token the file held as this process's session took it (read by `read(adopting: true)`,
    /// written, or cleared; `.some(nil)`: none, or none readable): a removal of the session's token
    /// leaves another token a process stored since. Compared by content, not by the file's times (a
    /// mode fixed, the same token written again). Other reads (a replay's, an owner check's) do not move it.
    private var adopted: String??

    /// The token the file holds as it is, for a caller holding the lock: without a warning, and read
    /// whatever its mode (a refused file's token is still the one there).
    private func storedHoldingLock() -> String? {
        guard let file, let bytes = file.peek(path), case .success(let stored) = TokenStore.decode(bytes) else { return nil }
        return stored
    }

    /// The stored token, or nil when there is none or it cannot be trusted (a warning says why).
    /// `adopting`: the read a session is made from (`SessionBootstrapper.restore`).
    public func read(adopting: Bool = false) throws(SessionError) -> String? {
        if let held = mutex.withLock({ heldToken }) { return held }
        guard let lock, let file else { return mutex.withLock { memory } }
        return try lock.withLock { () throws(SessionError) -> String? in
            var token: String?
            defer {
                noteSeen()
                // The file's token as it is, the one read or (refused for its mode: still a secret to
                // mask) read again mode-blind; only then is the file read twice.
                if adopting {
                    let now = token ?? storedHoldingLock()
                    if token == nil, let now { remember(now) }
                    mutex.withLock { adopted = .some(now) }
                }
            }
            let version = DefaultsStore.FileVersion(path)
            if let version, mutex.withLock({ refused }) == version { return nil }
            token = try file.load(path, kind: .secret, decode: TokenStore.decode)?.value
            if let token { remember(token) }
            // Refused where it stays (a loose mode, a link): said once, not at every read.
            let after = DefaultsStore.FileVersion(path)
            mutex.withLock { refused = token == nil && after != nil && after == version ? version : nil }
            return token
        }
    }

    /// Runs before a token is written to the file (not while held, not in memory), under the same
    /// profile lock: records whose token it is (the profile's `backend.json`), so no other process
    /// ever reads a token beside another backend's record. Throwing, the token is not written; it
    /// returns what undoes the record when the token's write then fails.
    public typealias WriteHook = @Sendable () throws(SessionError) -> (@Sendable () -> Void)?
    public var beforeWrite: WriteHook? {
        get { mutex.withLock { hook } }
        set { mutex.withLock { hook = newValue } }
    }
    private var hook: WriteHook?

    /// `ownSessionOnly`: the token replaces this process's own session (an account switch): when another
    /// process logged in or out since this one's session took the file, nothing is written and
    /// `.replaced` is thrown, so a switch in flight does not bring back a session ended meanwhile.
    public func write(_ token: String, ownSessionOnly: Bool = false) throws(SessionError) {
        guard TokenStore.isWellFormed(token) else {
            throw .rejected("refusing to store a token that is empty, too long or contains spaces or control characters")
        }
        remember(token)
        if mutex.withLock({ isHeld }) { return mutex.withLock { heldToken = .some(token) } }
        guard let lock, let file else { return mutex.withLock { memory = token } }
        let hook = beforeWrite
        try lock.withLock { () throws(SessionError) in
            if ownSessionOnly, case .some(let taken) = mutex.withLock({ adopted }), storedHoldingLock() != taken {
                throw .replaced(SessionError.anotherSession)
            }
            defer { noteSeen() }
            let undo = try hook?()
            do throws(SessionError) { try file.writeAtomically(path, bytes: Array(token.utf8) + [0x0A]) } catch {
                undo?()
                throw error
            }
            mutex.withLock { adopted = .some(token) }
        }
    }

    /// Whether the file holds `token` now, for a caller that holds the profile lock (a save that
    /// belongs to this token's session): read as it is, whatever its mode, without a warning.
    func holdsHoldingLock(_ token: String) -> Bool {
        guard file != nil else { return mutex.withLock { memory } == token }
        return storedHoldingLock() == token
    }

    /// Whether no token file is there, for a caller that holds the profile lock.
    var isAbsentHoldingLock: Bool {
        guard file != nil else { return mutex.withLock { memory } == nil }
        return DefaultsStore.FileVersion(path) == nil
    }

    /// Removes the token file. `ownSessionOnly`: the session's end (a logout, an expiry): a file
    /// another process wrote or removed since this one's session took it is left as it is, and
    /// `.replaced` thrown.
    public func clear(ownSessionOnly: Bool = false) throws(SessionError) {
        if mutex.withLock({ isHeld }) { return mutex.withLock { heldToken = .some(nil) } }
        guard let lock, let file else { return mutex.withLock { memory = nil } }
        try lock.withLock { () throws(SessionError) in
            // Another token stored since (not a file planted or spoilt there: that still goes).
            if ownSessionOnly, case .some(let taken) = mutex.withLock({ adopted }), let stored = storedHoldingLock(), stored != taken {
                throw .replaced("another sxk process logged in on this profile meanwhile: its session is kept")
            }
            defer {
                noteSeen()
                mutex.withLock { adopted = .some(nil) }
            }
            try file.remove(path)
            // A token file once set aside as corrupt may still hold a token: it goes with the token.
            for copy in SecureFile.setAsideCopies(of: path) { try file.remove(copy) }
        }
    }

    /// One line of printable ASCII without spaces; a trailing newline is allowed.
    static func decode(_ bytes: [UInt8]) -> Result<String, SecureFile.CorruptReason> {
        var body = bytes[...]
        while let last = body.last, last == 0x0A || last == 0x0D { body.removeLast() }
        guard !body.isEmpty else { return .failure(.init("empty token file")) }
        guard body.count <= maxLength else { return .failure(.init("token longer than \(maxLength) characters")) }
        guard body.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.init("token contains spaces, control or non-ASCII characters"))
        }
        return .success(String(decoding: body, as: UTF8.self))
    }

    static func isWellFormed(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        return !bytes.isEmpty && bytes.count <= maxLength && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
