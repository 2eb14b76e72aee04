import FoundationEssentials
import SXKCore
import SXKAPI
import SXKSession

extension HomeFeature {
    /// Replays `HomeViewModel.initialize(api:)` and `evaluateDialogs(api:)` (seed 000 §4.2–4.4) on a
    /// copy in memory of the stored state: the calls the app would make are made (with `offline`, not
    /// made — the stored answers stand in), and what the app would write is returned as a key diff.
    /// Nothing is written unless `apply` is set; then exactly the diff is written and the session's
    /// contexts are re-read from it. It never validates or refreshes the session first
    /// (docs/app-behaviour.md#replays).
    public func initializeReplay(offline: Bool = false, apply: Bool = false) async throws(FeatureError) -> HomeTrace {
        let stored = contexts.store
        do { try stored.reload() } catch { throw .storage(error) }
        let scratch = AppModel.scratch(of: stored)
        let hadSnapshot = stored.hasAccountSnapshot
        let sent = contexts.session.token
        let online = !offline && sent != nil
        // The stored token decides the launch as for `boot` (a device snapshot keeps it after this
        // process's session was reset by a rejection).
        let storedToken: String?
        do { storedToken = try stored.token() } catch { throw .storage(error) }
        // A device's state without a token, whatever account it holds, is the app's login page, as `boot` says.
        let deviceWithoutToken = stored.isDeviceSnapshot && sent == nil && storedToken == nil
        guard hadSnapshot || sent != nil || deviceWithoutToken else { throw .notLoggedIn }
        guard AppModel.launchRoot(token: sent ?? storedToken) == .mainTab else { throw .loginPageFirst }
        // A token kept from another backend is not sent, nor replayed as if the server had no answer.
        if !offline, sent == nil, sessionGuard.withholds(storedToken) { throw .notLoggedIn }
        var run: HomeReplayRun
        if sessionGuard.isRejected(sent ?? storedToken) {
            // Rejected earlier in this process: answered by that rejection, as the app's call would be
            // (offline too: the answer is known, as `boot` and `explain dialog` take it).
            run = HomeReplayRun(contexts: scratch, catalog: catalog, clock: clock, network: nil)
            run.knownRejection = HomeReplayRun.knownRejectionNote
        } else if online {
            let network = HomeReplayRun.Network(account: loader.account, commerce: loader.commerce, operation: operation)
            run = await HomeReplayRun.online(contexts: scratch, catalog: catalog, clock: clock, network: network)
        } else {
            run = HomeReplayRun(contexts: scratch, catalog: catalog, clock: clock, network: nil)
        }
        var trace = try await run.replay()
        trace.changes = KeyDiff.between(stored: stored, scratch: scratch.store)
        // This process does not send a token the server rejected again (nothing stored changes).
        if trace.sessionExpired, let sent { sessionGuard.replayRejected(token: sent) }
        if apply {
            // Interrupted once the replay was done: nothing written after the Ctrl-C.
            if Task.isCancelled { throw .cancelled }
            do { try KeyDiff.apply(trace.changes, to: stored) } catch { throw .storage(error) }
            // The live contexts follow what is now stored; this login's accounts and stores stay in memory.
            if trace.sessionExpired {
                // The login state is cleared on disk as the app clears it: this process's session
                // follows (already reset above when it held the token: one reset).
                if contexts.session.token != nil { sessionGuard.resetInMemory() }
            } else if contexts.account.hasAccount {
                let accounts = contexts.account.current.accounts
                stored.restoreContexts(account: contexts.account, permission: contexts.permission)
                contexts.account.setAccounts(accounts)
                contexts.account.setStores(scratch.account.current.stores)
            }
            trace.applied = true
        }
        return trace
    }

    static func title(_ dialog: HomeDialog) -> String {
        switch dialog {
        case .permission: return "permission"
        case .scenic: return "scenic"
        case .locationTimeout: return "location-timeout"
        }
    }
}

