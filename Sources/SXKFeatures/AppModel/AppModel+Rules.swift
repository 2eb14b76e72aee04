import SXKCore
import SXKSession

/// One rule of the app model: the engine function that applies it, what it does, where it is stated
/// (its basis) and the stored keys it writes (none for a rule that only reads or calls). Key names are
/// as `StoreKey` names them; an account-scoped key by its name without the scope, the common menus as
/// `common_uris`. `explain key` lists a key's writers from these rules, and the lifecycle functions
/// (`AppModel.completeLogin`, `logout`, `sessionExpired`, `restore`, the first screens) cite them for
/// every key they write, so a rule's basis is stated once.
public struct ModelRule: Sendable, Equatable {
    /// The engine function (or the live facade) that applies the rule.
    public var function: String
    /// What the rule does, as `explain key` prints it beside the key.
    public var what: String
    public var basis: RuleBasis
    public var keys: [String]
    /// The rule governs how `keys` are read, not a write (a missing account type, the legacy role id).
    public var readsOnly: Bool

    public init(_ function: String, _ what: String, _ basis: RuleBasis, keys: [String] = [], readsOnly: Bool = false) {
        self.function = function; self.what = what; self.basis = basis; self.keys = keys; self.readsOnly = readsOnly
    }

    /// The name `explain key` and the rules table use for a stored key (scope dropped).
    public static func keyName(_ key: String) -> String {
        switch StoreKey.kind(of: key) {
        case .scoped(_, let name): return name
        case .commonMenus: return commonMenus
        default: return key
        }
    }

    /// The common menus' name in `keys` (`{scope}_role_{role}_common_uris`).
    public static let commonMenus = "common_uris"

    public var json: JSONValue {
        basis.annotate(["function": .string(function), "what": .string(what), "keys": .array(keys.map { .string($0) }),
                        "writes": .bool(!readsOnly)])
    }
}

extension AppModel {
    /// The account fields a login writes from the chosen account (seed 000 §3.4's list, token and
    /// preferences aside).
    static let accountFields = [
        StoreKey.userId, StoreKey.userName, StoreKey.realName, StoreKey.avatar, StoreKey.phone, StoreKey.accountType,
        StoreKey.accountDisplayName, StoreKey.roleCode, StoreKey.roleName, StoreKey.currentScenicId,
        StoreKey.currentScenicName, StoreKey.currentStoreId,
    ]

    /// The rules, one entry each, grouped by lifecycle step.
    public enum Rule {
        // completeLogin (seed 000 §3.4; seed 001 登录和退出)
        public static let loginToken = ModelRule("AppModel.completeLogin", "login completion (completeLogin): the formal token",
                                                 .seed("seed 000 §3.4"), keys: [StoreKey.token])
        public static let loginPreferences = ModelRule("AppModel.completeLogin", "login completion: the last phone and the privacy flag; kept at logout",
                                                       .seed("seed 000 §3.4; seed 001 登录和退出"),
                                                       keys: [StoreKey.lastLoginUsername, StoreKey.privacyAgreementAccepted])
        public static let loginAccount = ModelRule("AppModel.completeLogin", "login completion: the chosen account's fields",
                                                   .seed("seed 000 §3.4"), keys: AppModel.accountFields)
        public static let loginPhone = ModelRule("AppModel.completeLogin", "the login phone when the chosen account carries none",
                                                 Rules.loginPhone, keys: [StoreKey.phone])
        public static let loginContextLoad = ModelRule(
            "AppModel.completeLogin", "sxk's login then loads userinfo ∥ role-permission, then scenic and store (AccountContextLoader): the userinfo fields",
            .inferred("login"), keys: [StoreKey.userName, StoreKey.realName, StoreKey.avatar, StoreKey.phone])
        public static let loginCommonMenus = ModelRule(
            "AppModel.completeLogin", "sxk's login includes the home's first appearance, so it writes the default common menus",
            .inferred("login"), keys: [ModelRule.commonMenus])
        public static let missingAccountType = ModelRule(
            "StoreKey.accountCachePrefix", "no default when missing: without it the guest scope is used, never a guessed type",
            Rules.missingAccountType, keys: [StoreKey.accountType], readsOnly: true)

        // logout and session expiry
        public static let logout = ModelRule(
            "AppModel.logout", "logout: removed with the token and the account snapshot (the last phone and the privacy flag stay)",
            .seed("seed 001 登录和退出"), keys: [StoreKey.token] + AppModel.accountFields)
        public static let sessionExpiry = ModelRule("AppModel.sessionExpired", "sessionDidExpire: the login state cleared and the login page shown",
                                                    Rules.sessionExpiry)
        public static let sessionExpired = ModelRule(
            "AppModel.sessionExpired", "a rejected token (sessionDidExpire): the login state cleared, read as the keys logout clears",
            .inferred("logout"), keys: [StoreKey.token] + AppModel.accountFields)

        // restore and cold start
        public static let restoreRoot = ModelRule("AppModel.restore", "a stored token goes straight to the main tab, no backend call before it; nothing written",
                                                  .seed("seed 000 §1, §7.2"))
        public static let restoreSnapshot = ModelRule("AppModel.restore", "the account snapshot fills the contexts (restoring); userinfo ∥ role-permission, then scenic and store, validate it",
                                                      .seed("seed 001 启动流程"))
        public static let restoreLazy = ModelRule("AppModel.restore", "sxk validates at the first command that needs the server, not before the prompt",
                                                  .inferred("cold-start"))

        // the home's first appearance (HomeReplayRun)
        public static let locationRestore = ModelRule(
            "HomeReplayRun.restoreLocationStep", "restoreStateIfNeeded: online dropped without a last report; online and the last report dropped past 2 hours",
            Rules.locationRestore, keys: [StoreKey.onlineStatus, StoreKey.lastLocationReportTime])
        public static let displayState = ModelRule(
            "AppModel.scenicClearReason", "refreshLocalDisplayState: cleared when there is no valid scenic",
            Rules.displayState, keys: [StoreKey.currentScenicId, StoreKey.currentScenicName])
        public static let validScenic = ModelRule("AppModel.scenicClearReason", "valid = > 0", Rules.validScenic, keys: [StoreKey.currentScenicId])
        public static let permissionLoad = ModelRule(
            "AppModel.loadPermissions", "loadPermissions: the whole answer (an empty one too) and the current role's entry",
            Rules.permissionLoad, keys: [StoreKey.rolePermissionList, StoreKey.permission, StoreKey.currentRoleScenicList])
        public static let roleMatch = ModelRule(
            "AppModel.loadPermissions", "no entry for the current role: empty, no other role's permissions; with no role stored, the first entry's",
            Rules.roleMatch, keys: [StoreKey.permission, StoreKey.currentRoleScenicList, StoreKey.roleCode])
        public static let roleNameWhenNeeded = ModelRule("AppModel.loadPermissions", "loadPermissions: the role name when needed (必要时)",
                                                         Rules.permissionLoad, keys: [StoreKey.roleName])
        public static let roleNameWrite = ModelRule("AppModel.loadPermissions", "\"when needed\" read as: when the current role's entry matched",
                                                    Rules.roleNameWrite, keys: [StoreKey.roleName])
        public static let commonMenus = ModelRule("CommonMenuStore.commonURIs", "home: with permissions and no record, at most 4 defaults",
                                                  Rules.commonMenus, keys: [ModelRule.commonMenus])
        public static let emptyCommonMenusRecord = ModelRule("CommonMenuStore.commonURIs", "a stored empty list is a record: no default written over it",
                                                             Rules.emptyCommonMenusRecord, keys: [ModelRule.commonMenus], readsOnly: true)
        public static let commonMenuChoice = ModelRule("CommonMenuStore.commonURIs", "which 4: the first of the permission list",
                                                       Rules.commonMenuChoice, keys: [ModelRule.commonMenus])
        public static let storeLoad = ModelRule("AppModel.matchStore", "loadStoreListIfNeeded (storeAdmin with a scenic > 0) writes only a match",
                                                Rules.storeLoad, keys: [StoreKey.currentStoreId])
        public static let dialogs = ModelRule("HomeReplayRun.evaluateDialogs", "permission → scenic → location timeout; the location detail answer is not stored",
                                              Rules.dialogPriority)
        public static let dialogConditions = ModelRule("DialogRules.localChecks", "the dialogs' own conditions and the simplified-top roles",
                                                       Rules.permissionDialog)
        public static let locationTimeout = ModelRule("DialogRules.decideTimeout", "timeout: online and the last report older than the reminder minutes",
                                                      Rules.locationTimeoutDecision)
        public static let reminderUnset = ModelRule("DialogRules.localChecks", "reminder minutes stored as 0 or less count as not set: no location check",
                                                    Rules.reminderUnset, keys: [StoreKey.locationReminderMinutes], readsOnly: true)
        public static let staffId = ModelRule("AppModel.evaluateDialogs", "the location detail's staff_id is the stored user id",
                                              Rules.staffId, keys: [StoreKey.userId], readsOnly: true)
        public static let locationNeedsUserId = ModelRule("AppModel.evaluateDialogs", "no stored user id: no location detail call, no location dialog",
                                                          Rules.locationNeedsUserId, keys: [StoreKey.userId], readsOnly: true)
        public static let unreadableOnline = ModelRule("DialogRules.decideTimeout", "a detail answer without a readable online decides nothing: no dialog, said as unknown",
                                                       Rules.locationTimeoutDecision)
        public static let futureReport = ModelRule("LocationStateStore", "a last report ahead of the clock: the countdown counts the whole 2 hours from now",
                                                   Rules.futureReport, keys: [StoreKey.lastLocationReportTime], readsOnly: true)
        public static let offlineStandIn = ModelRule("HomeReplayRun (offline)", "offline, the stored role-permission list stands in for the forced load's answer; the store list and the location detail are unknown",
                                                     Rules.offlineStandIn)
        public static let failedPermissionLoad = ModelRule("AppModel.loadPermissions", "a failed load (not a rejected token) keeps the stored permissions",
                                                           Rules.failedPermissionLoad)

        // the other tabs
        public static let profileReload = ModelRule(
            "AppModel.profileReload", "applyUserInfo on the profile tab (roleName only when empty); the reload then writes a non-empty roleName",
            Rules.profileReload, keys: [StoreKey.userName, StoreKey.realName, StoreKey.avatar, StoreKey.phone, StoreKey.roleName])
        public static let statsFirstScreen = ModelRule("AppModel.statsFirstScreen", "the summary, then the daily list of today, page 1; nothing stored",
                                                       .seed("seed 000 §5.2"))
        public static let statsTogether = ModelRule("AppModel.statsFirstScreen", "the summary and the first daily page are asked together; `--all` reads every page",
                                                    .inferred("stats"))
        public static let ordersFirstScreen = ModelRule("AppModel.ordersFirstScreen", "the role's order list, page 1; nothing stored",
                                                        .seed("seed 000 §5.1"))

        // sxk's switches and the stored settings
        public static let roleSwitch = ModelRule("ScopeFeature", "sxk's role switch (`role CODE`)", Rules.roleSwitch,
                                                 keys: [StoreKey.roleCode, StoreKey.roleName])
        public static let scenicSwitch = ModelRule("ScopeFeature", "sxk's scenic switch (`scenic ID`)", Rules.roleSwitch,
                                                   keys: [StoreKey.currentScenicId, StoreKey.currentScenicName])
        public static let storeSwitch = ModelRule("ScopeFeature", "sxk's store switch (`store ID`): among the current scenic's stores (any store when no scenic is set)",
                                                  Rules.roleSwitch, keys: [StoreKey.currentStoreId])
        public static let locationSettings = ModelRule("LocationStateStore", "location state (online, last report) and the reminder setting",
                                                       .seed("seed 000 §6.3"),
                                                       keys: [StoreKey.onlineStatus, StoreKey.lastLocationReportTime, StoreKey.locationReminderMinutes])
        public static let voice = ModelRule("DefaultsImporter", "payment voice setting (kept as imported)", Rules.storage, keys: [StoreKey.isOpenReceiveVoice])
        public static let importedTextTime = ModelRule("DefaultsImporter", "a time an export gives as text is read as Asia/Shanghai time",
                                                       Rules.importedTextTime, keys: [StoreKey.lastLocationReportTime])
        public static let legacyRoleId = ModelRule("DefaultsImporter", "legacy key, not written by the flows in the seeds", Rules.storage, keys: [StoreKey.roleId], readsOnly: true)

        // sxk's own bookkeeping (not the app's)
        public static let snapshotStamp = ModelRule("AppStore (every account write)", "sxk's own stamp of the last snapshot write, not the app's",
                                                    .inferred("storage"), keys: [StoreKey.snapshotSavedAt])
        public static let validatedStamp = ModelRule("SessionBootstrapper.validate", "sxk's own stamp of the last validation, not the app's; a login removes it until its context loads",
                                                     .inferred("cold-start"), keys: [StoreKey.sessionValidatedAt])
        public static let importedFrom = ModelRule("DefaultsImporter", "sxk's own mark of a device snapshot (the file it came from), not the app's; a login or logout removes it",
                                                   Rules.snapshot, keys: [StoreKey.importedFrom])
        public static let importedAt = ModelRule("DefaultsImporter", "sxk's own mark of a device snapshot (when it was imported), not the app's; a login or logout removes it",
                                                 Rules.snapshot, keys: [StoreKey.importedAt])
    }

    /// Every rule, in the order of the launch document.
    public static let rules: [ModelRule] = [
        Rule.launchUmeng, Rule.launchWeChat, Rule.launchAMap, Rule.restoreRoot, Rule.restoreSnapshot, Rule.restoreLazy,
        Rule.loginToken, Rule.loginPreferences, Rule.loginAccount, Rule.loginPhone, Rule.loginContextLoad, Rule.loginCommonMenus,
        Rule.missingAccountType,
        Rule.locationRestore, Rule.displayState, Rule.validScenic, Rule.permissionLoad, Rule.roleMatch, Rule.roleNameWhenNeeded,
        Rule.roleNameWrite, Rule.failedPermissionLoad, Rule.offlineStandIn, Rule.commonMenus, Rule.emptyCommonMenusRecord, Rule.commonMenuChoice, Rule.storeLoad, Rule.dialogs,
        Rule.dialogConditions, Rule.locationTimeout, Rule.reminderUnset, Rule.staffId, Rule.locationNeedsUserId, Rule.unreadableOnline, Rule.futureReport,
        Rule.ordersFirstScreen, Rule.statsFirstScreen, Rule.statsTogether, Rule.profileReload,
        Rule.logout, Rule.sessionExpiry, Rule.sessionExpired,
        Rule.roleSwitch, Rule.scenicSwitch, Rule.storeSwitch, Rule.locationSettings, Rule.importedTextTime, Rule.voice, Rule.legacyRoleId,
        Rule.snapshotStamp, Rule.validatedStamp, Rule.importedFrom, Rule.importedAt,
    ]

    /// Who writes each key (by `ModelRule.keyName`), in the order of `rules`: what `explain key` lists.
    public static let writers: [String: [ModelRule]] = {
        var out: [String: [ModelRule]] = [:]
        for rule in rules { for key in rule.keys { out[key, default: []].append(rule) } }
        return out
    }()
}
