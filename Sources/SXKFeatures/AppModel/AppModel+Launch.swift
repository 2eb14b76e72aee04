import SXKCore
import SXKSession

extension AppModel.Rule {
    // The SDKs of a cold start (seed 000 §1), before the root screen. They write nothing: each rule
    // names the stored keys its condition reads.
    public static let launchUmeng = ModelRule("AppModel.launchSDKs", "launch: Umeng is initialised only when the privacy agreement is accepted",
                                              Rules.launch, keys: [StoreKey.privacyAgreementAccepted], readsOnly: true)
    public static let launchWeChat = ModelRule("AppModel.launchSDKs", "launch: WeChat registers always (Universal Link check, then WXApi.registerApp)",
                                               Rules.launch)
    public static let launchAMap = ModelRule("AppModel.launchSDKs", "launch: AMap is initialised only when the privacy agreement is accepted and a token is stored",
                                             Rules.launch, keys: [StoreKey.privacyAgreementAccepted, StoreKey.token], readsOnly: true)
}

extension AppModel {
    /// Seed 000 §1: the SDKs a cold start initialises on this stored state, in the launch's order, each
    /// with its condition and the reads it rests on. `privacy` and `token` are the reads as a view
    /// shows them (the token masked).
    public static func launchSDKs(privacyAccepted accepted: Bool, hasToken: Bool, privacy: StoredRead, token: StoredRead) -> [SDKDecision] {
        [
            SDKDecision(
                name: "Umeng", call: "UmengBootstrap.configureIfNeeded()", initialised: accepted,
                rule: "initialised only when the privacy agreement is accepted; otherwise it returns at once",
                seed: "友盟初始化受 AppStore.shared.privacyAgreementAccepted 控制。未同意隐私协议时直接返回，不初始化 SDK。",
                reason: accepted ? "privacy agreement accepted" : "privacy agreement not accepted: returns without initialising",
                reads: [privacy], model: Rule.launchUmeng),
            SDKDecision(
                name: "WeChat", call: "WeChatManager.shared.registerIfNeeded()", initialised: true,
                rule: "always: checks the Universal Link, then WXApi.registerApp registers the AppID",
                seed: "调用 WeChatManager.shared.registerIfNeeded()：校验 Universal Link；调用微信 SDK WXApi.registerApp 注册 AppID。",
                reason: "unconditional", reads: [], model: Rule.launchWeChat),
            SDKDecision(
                name: "AMap", call: "AMapBootstrap.configureIfNeeded()", initialised: accepted && hasToken,
                rule: "only when the privacy agreement is accepted and a token is stored: AMap privacy compliance, apiKey, HTTPS",
                seed: "若 privacyAgreementAccepted == true 且 token 非空，则调用 AMapBootstrap.configureIfNeeded()：写入高德隐私合规状态；设置 apiKey 和 HTTPS。",
                reason: accepted && hasToken ? "privacy accepted and a token is stored"
                    : !accepted && !hasToken ? "privacy agreement not accepted and no token"
                    : !accepted ? "privacy agreement not accepted" : "no token stored",
                reads: [privacy, token], model: Rule.launchAMap),
        ]
    }
}
