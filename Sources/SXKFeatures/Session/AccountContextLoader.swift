import FoundationEssentials
import SXKAPI
import SXKSession

/// What `refreshLocalDisplayState` found: the scenic scope kept, or cleared and why.
public struct DisplayStateCheck: Sendable, Equatable {
    public var roleCode: String?
    public var scenicId: Int?
    public var scenicName: String?
    /// Why the scenic was cleared, nil when it was kept.
    public var clearedBecause: String?
}

/// What the store step did (seed 000 §4.3).
public struct StoreMatch: Sendable, Equatable {
    /// Stores of the current scenic in the answer.
    public var storesInScenic: Int
    /// The store now current, nil when none matched.
    public var matched: Store?
    /// How it matched: `saved` (the stored id is among the scenic's stores), nil without a match.
    public var how: String?
}

/// The result of loading the account context from the server (login, validate, `home`).
public struct AccountLoadReport: Sendable {
    public var userInfo: UserInfo
    public var roles: [RolePermission]
    public var derivation: PermissionDerivation
    public var display: DisplayStateCheck
    /// nil when the store step did not apply (not storeAdmin or no scenic).
    public var store: StoreMatch?
    public var calls: [CallRecord]
}

/// Seed 001 `AccountContextLoader`: user info and role permissions in parallel, then scenic and store.
/// Writes into the contexts; the caller persists (one save) and sets the phase.
public struct AccountContextLoader: Sendable {
    public let account: AccountAPI
    public let commerce: CommerceAPI
    public let contexts: SessionContexts

    public init(account: AccountAPI, commerce: CommerceAPI, contexts: SessionContexts) {
        self.account = account; self.commerce = commerce; self.contexts = contexts
    }

    /// The whole load. Errors are the API's (session expired, network…), unwrapped, for the caller to classify.
    /// `prefetched`: the userinfo ∥ role-permission pair already sent (a login sends it while it writes
    /// the token); it is awaited instead of being sent again.
    ///
    /// The store list goes out beside the pair when the contexts already say the store step will ask
    /// (`AppModel.storeLoadExpected`: nothing the pair's answers change decides it, but for no current
    /// role at all, and then it is asked in its turn); `prefetchedStores` when the caller sent it with
    /// the pair. Its answer is applied where the step is, after the pair's; a failure of the pair is
    /// the one reported, and the store call is cancelled.
    func loadAll(timer: CallTimer = CallTimer(), sink: CallSink = CallSink(),
                 prefetched: Task<(UserInfo, [RolePermission]), any Error>? = nil,
                 prefetchedStores: Task<[Store], any Error>? = nil) async throws -> AccountLoadReport {
        let a = contexts.account.current
        let early = prefetchedStores == nil
            && AppModel.storeLoadExpected(role: contexts.permission.roleCode, scenicId: a.scenicId, scenicName: a.scenicName)
        async let earlyStores: [Store]? = early ? requestStores(timer: timer, sink: sink) : nil
        let (info, roles): (UserInfo, [RolePermission])
        do {
            if let prefetched {
                (info, roles) = try await withTaskCancellationHandler { try await prefetched.value } onCancel: { prefetched.cancel() }
            } else {
                (info, roles) = try await loadProfileAndPermissions(timer: timer, sink: sink)
            }
        } catch {
            prefetchedStores?.cancel()
            _ = try? await prefetchedStores?.value
            throw error
        }
        applyUserInfo(info)
        let derivation = AppModel.loadPermissions(roles, into: contexts.permission)
        let display = refreshLocalDisplayState()
        var store: StoreMatch?
        if storeLoadApplies {
            let stores: [Store]
            if let prefetchedStores {
                stores = try await withTaskCancellationHandler { try await prefetchedStores.value } onCancel: { prefetchedStores.cancel() }
            } else if let sent = try await earlyStores {
                stores = sent
            } else {
                stores = try await requestStores(timer: timer, sink: sink)
            }
            contexts.account.setStores(stores)
            store = matchCurrentStore(in: stores)
        } else if let prefetchedStores {
            prefetchedStores.cancel()
            _ = try? await prefetchedStores.value
        }
        return AccountLoadReport(
            userInfo: info, roles: roles, derivation: derivation, display: display, store: store, calls: sink.records)
    }

    /// GET userinfo and GET role-permission at the same time (with `token`, carrying that token).
    func loadProfileAndPermissions(timer: CallTimer, sink: CallSink, token: String? = nil) async throws -> (UserInfo, [RolePermission]) {
        let api = account
        async let info = timer.record("GET", Endpoint.userInfo.path, into: sink) { try await api.userInfo(token: token).value }
        async let roles = timer.record("GET", Endpoint.rolePermissions.path, into: sink) { try await api.rolePermissions(token: token).value }
        // Await both so neither is left running. The app sends this pair together (seed 001) and its expiry
        // rule fires on either answer, so a rejected token is reported before the other call's failure.
        let infoResult: Result<UserInfo, any Error>
        let rolesResult: Result<[RolePermission], any Error>
        do { infoResult = .success(try await info) } catch { infoResult = .failure(error) }
        do { rolesResult = .success(try await roles) } catch { rolesResult = .failure(error) }
        for case .failure(let error) in [infoResult.map { _ in () }, rolesResult.map { _ in () }] {
            if (error as? APIError)?.kind == .sessionExpired { throw error }
        }
        return (try infoResult.get(), try rolesResult.get())
    }

    /// Seed §5.3 first rule: display fields into the account context; role name only when none is known.
    func applyUserInfo(_ info: UserInfo) {
        contexts.account.applyUserInfo(info)
        // A token restored without a snapshot: the user id comes from the server.
        if contexts.account.userId == nil, let id = info.userId {
            var state = contexts.account.current
            state.userId = id
            contexts.account.replace(with: state)
        }
        if let name = AppStore.userInfoRoleName(sent: info.roleName, local: contexts.permission.current.roleName) {
            contexts.permission.setCurrentRole(code: contexts.permission.roleCode, name: name)
        }
    }

    /// Seed 000 §4.2 `refreshLocalDisplayState`: with no valid scenic, id and name are cleared; a valid
    /// one stays as it is (docs/app-behaviour.md#valid-scenic).
    @discardableResult
    public func refreshLocalDisplayState() -> DisplayStateCheck {
        let a = contexts.account.current
        let p = contexts.permission.current
        let reason = AppModel.scenicClearReason(scenicId: a.scenicId, scenicName: a.scenicName)
        if reason != nil { contexts.account.setScenic(id: nil, name: nil) }
        let now = contexts.account.current
        return DisplayStateCheck(roleCode: p.roleCode, scenicId: now.scenicId, scenicName: now.scenicName, clearedBecause: reason)
    }

    /// Whether seed §4.3's conditions hold for the contexts (the app model's rule).
    public var storeLoadApplies: Bool {
        AppModel.storeLoadApplies(role: contexts.permission.roleCode, scenicId: contexts.account.current.scenicId)
    }

    /// GET store/all (with `token`, carrying that token); the caller puts it into the account
    /// context's memory (never persisted).
    func requestStores(timer: CallTimer, sink: CallSink, token: String? = nil) async throws -> [Store] {
        let api = commerce
        return try await timer.record("GET", Endpoint.storeList.path, into: sink) { try await api.storeList(token: token).value }
    }

    /// Seed 000 §4.3: the store of the current scenic whose id is the saved `currentStoreId` is the
    /// match and is written; without a match nothing is written and no store is invented.
    func matchCurrentStore(in stores: [Store]) -> StoreMatch {
        let a = contexts.account.current
        let matched = AppModel.matchStore(in: stores, scenicId: a.scenicId, savedStoreId: a.storeId)
        if let matched { contexts.account.setStoreId(matched.storeId) }
        return StoreMatch(storesInScenic: AppModel.storesOfScenic(stores, scenicId: a.scenicId).count, matched: matched, how: matched == nil ? nil : "saved")
    }
}
