import SXKCore
import SXKSession

/// Where the two seeds' logged-in cold starts differ, and which one sxk's live session follows.
public struct ColdStartNote: Sendable, Equatable {
    public var seed000: String
    public var seed001: String
    public var sxk: String
    public var rule: RuleBasis

    public var json: JSONValue {
        rule.annotate(["seed000": .string(seed000), "seed001": .string(seed001), "sxk": .string(sxk)])
    }

    public var lines: [String] { ["seed 000 §7.2: " + seed000, "seed 001 启动流程: " + seed001, "sxk: " + sxk] }
}

extension BootReplay {
    /// docs/app-behaviour.md#cold-start.
    public static let coldStartNote = ColdStartNote(
        seed000: "a stored token goes straight to the main tab; no backend call before it, then home calls role-permission (and store/all, location detail when their conditions hold)",
        seed001: "SessionBootstrapper restores the snapshot (restoring), validates with userinfo ∥ role-permission, then scenic and store, and only then enters loggedIn; a plain network failure enters with the snapshot",
        sxk: "this replay follows seed 000 (the behavioural spec of the iOS build); the live shell starts without network like seed 000 and validates as seed 001 does, lazily, at the first command that needs the server (the shell may skip it when the session was validated within the last few minutes — the shell's choice, not the app's)",
        rule: RuleBasis(.documented, "seed 000 §7.2; seed 001 启动流程 (the disagreement is documented; sxk's choice is inferred: docs/app-behaviour.md#cold-start)"))

    /// The cold start plus, for the main tab, what the home's first appearance would write (the
    /// offline home replay's key diff; no call is made). With `apply`, that diff is written.
    public func replay(apply: Bool) async throws(FeatureError) -> BootTrace {
        var trace = try await replay()
        guard trace.root.screen == .mainTab else { return trace }
        if apply {
            do { try KeyDiff.apply(trace.changes, to: store) } catch { throw .storage(error) }
            trace.applied = true
        }
        return trace
    }
}
