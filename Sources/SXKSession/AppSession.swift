import FoundationEssentials
import SXKCore

/// The authentication phase shown in the prompt (seed 001).
public enum SessionPhase: String, Sendable, Equatable {
    case loggedOut, restoring, loggedIn
}

/// The app's `AppSession`: phase and formal token, plus whether the server was unreachable at the
/// last check. Nothing else — account data lives in the contexts.
public final class AppSession: @unchecked Sendable {
    /// A consistent copy of the session at one moment.
    public struct State: Sendable, Equatable {
        public var phase: SessionPhase
        public var token: String?
        public var offline: Bool
    }

    private let lock = Lock()
    private var state = State(phase: .loggedOut, token: nil, offline: false)

    public init() {}

    public var current: State { lock.withLock { state } }
    public var phase: SessionPhase { lock.withLock { state.phase } }
    public var token: String? { lock.withLock { state.token } }
    public var isOffline: Bool { lock.withLock { state.offline } }

    /// A token was read at start: show the snapshot while it is validated.
    public func beginRestoring(token: String) {
        lock.withLock { state = State(phase: .restoring, token: token, offline: false) }
    }

    /// Login completed or restore validated.
    public func logIn(token: String) {
        lock.withLock { state = State(phase: .loggedIn, token: token, offline: false) }
    }

    public func setOffline(_ offline: Bool) {
        lock.withLock { state.offline = offline }
    }

    /// Logged out: no token, no phase but `.loggedOut`.
    public func reset() {
        lock.withLock { state = State(phase: .loggedOut, token: nil, offline: false) }
    }
}
