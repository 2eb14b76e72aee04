import FoundationEssentials
import SXKAPI
import SXKSession

/// The profile tab's answer (seed 000 §5.3): user info and what was written back; for photographers the
/// real-name and bank-card info (fetched concurrently, kept in memory only), each as a value or the error.
public struct ProfileReport: Sendable {
    public var userInfo: APIResult<UserInfo>
    /// Account fields written back, e.g. `userName`, `roleName (rule 2)`.
    public var writtenBack: [String]
    public var isPhotographer: Bool
    public var realName: Result<APIResult<RealNameInfo>, FeatureError>?
    public var bankCard: Result<APIResult<BankCardInfo>, FeatureError>?
    /// Every call with start/end offsets from the start of the reload.
    public var calls: [CallRecord]

    /// True when the real-name and bank-card calls were in flight at the same time.
    public var sideCallsOverlapped: Bool {
        let side = calls.filter { $0.path == Endpoint.realNameInfo.path || $0.path == Endpoint.bankCardInfo.path }
        guard side.count == 2 else { return false }
        return side[0].overlaps(side[1])
    }
}

/// Seed 001 `profileFeatureServices` reload: userinfo written back into the account context and the
/// AppStore; for photographers real-name and bank-card info, fetched at the same time as userinfo.
public struct ProfileFeature: Sendable {
    public let account: AccountAPI
    public let sessionGuard: SessionGuard
    private var contexts: SessionContexts { sessionGuard.contexts }

    public init(account: AccountAPI, guard sessionGuard: SessionGuard) {
        self.account = account
        self.sessionGuard = sessionGuard
    }

    /// userinfo, and for a photographer real-name and bank-card beside it, read as if asked one after
    /// another (`SessionGuard.run`): a userinfo failure is the one reported and the side calls are
    /// cancelled with whatever they answered; after it, a side call's rejected token ends the session
    /// (the first in request order), any other failure of one is shown in its place. A cancel (Ctrl-C)
    /// reaches all three: none outlives the reload.
    public func reload() async throws(FeatureError) -> ProfileReport {
        try sessionGuard.requireSession()
        let timer = CallTimer()
        let sink = CallSink()
        let api = account
        // The role is the session's before userinfo answers (its write-back never changes the code), so
        // a photographer's real-name and bank-card calls go out beside userinfo instead of after it.
        let photographer = contexts.permission.roleCode == RoleCode.photographer
        return try await sessionGuard.run("profile") {
            async let realName = photographer ? ProfileFeature.capture { () async throws(FeatureError) -> APIResult<RealNameInfo> in
                try await FeatureError.catching("real-name info") {
                    try await timer.record("GET", Endpoint.realNameInfo.path, into: sink) { try await api.realNameInfo() }
                }
            } : nil
            async let bankCard = photographer ? ProfileFeature.capture { () async throws(FeatureError) -> APIResult<BankCardInfo> in
                try await FeatureError.catching("bank-card info") {
                    try await timer.record("GET", Endpoint.bankCardInfo.path, into: sink) { try await api.bankCardInfo() }
                }
            } : nil
            // Thrown, userinfo's failure leaves the scope: the side calls are cancelled and waited for.
            let info = try await FeatureError.catching("userinfo") {
                try await timer.record("GET", Endpoint.userInfo.path, into: sink) { try await api.userInfo() }
            }
            let written = try writeBack(info.value)
            var report = ProfileReport(userInfo: info, writtenBack: written, isPhotographer: photographer, realName: nil, bankCard: nil, calls: [])
            (report.realName, report.bankCard) = await (realName, bankCard)
            for case .failure(let error) in [report.realName?.map { _ in () }, report.bankCard?.map { _ in () }].compactMap({ $0 }) {
                if error.isSessionExpired { throw error }
                if error.isCancelled { throw error }
            }
            try Task.checkCancellation()
            report.calls = sink.records(inOrderOf: [Endpoint.userInfo.path, Endpoint.realNameInfo.path, Endpoint.bankCardInfo.path])
            return report
        }
    }

    /// The profile reload's writes (`AppModel.profileReload`), then the contexts follow them.
    func writeBack(_ info: UserInfo) throws(FeatureError) -> [String] {
        let written: [String]
        do { written = try AppModel.profileReload(info, into: contexts.store) } catch { throw .storage(error) }
        contexts.account.applyUserInfo(info)
        if let name = contexts.store.roleName {
            contexts.permission.setCurrentRole(code: contexts.permission.roleCode, name: name)
        }
        return written
    }

    static func capture<T: Sendable>(_ body: () async throws(FeatureError) -> T) async -> Result<T, FeatureError> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}
