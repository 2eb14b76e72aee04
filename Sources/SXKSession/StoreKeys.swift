import FoundationEssentials
import SXKCore
import SXKModels

/// The app's UserDefaults key names (seed 000 §6.1), exactly as the app spells them,
/// plus the one key sxk adds for itself.
public enum StoreKey {
    // Non-scoped, in seed order.
    public static let token = "key_in_token"
    public static let lastLoginUsername = "key_last_login_username"
    public static let privacyAgreementAccepted = "key_privacy_agreement_accepted"
    public static let userId = "key_in_user_id"
    public static let userName = "key_in_user_name"
    public static let realName = "key_in_real_name"
    public static let avatar = "key_in_avatar"
    public static let phone = "key_in_phone"
    public static let accountType = "key_in_account_type"
    public static let accountDisplayName = "key_in_account_display_name"
    public static let roleCode = "key_in_role_code"
    public static let roleName = "key_in_role_name"
    public static let currentScenicId = "key_in_current_scenic_id"
    public static let currentScenicName = "key_in_current_scenic_name"
    public static let currentStoreId = "key_in_current_store_id"

    /// Every non-scoped key in seed order (the token is kept in its own file, never in defaults.json).
    public static let nonScoped = [
        token, lastLoginUsername, privacyAgreementAccepted, userId, userName, realName, avatar, phone, accountType,
        accountDisplayName, roleCode, roleName, currentScenicId, currentScenicName, currentStoreId,
    ]

    /// The account snapshot keys cleared at logout (the preferences — last phone, privacy — stay);
    /// a device snapshot's import marks go with them.
    public static let accountSnapshot = [
        userId, userName, realName, avatar, phone, accountType, accountDisplayName, roleCode, roleName,
        currentScenicId, currentScenicName, currentStoreId, snapshotSavedAt, sessionValidatedAt, importedFrom, importedAt,
    ]

    // Account-scoped, joined to `accountCachePrefix` with `_`.
    public static let roleId = "key_in_role_id"
    public static let rolePermissionList = "key_role_permission_list"
    public static let permission = "key_in_permission"
    public static let currentRoleScenicList = "key_current_role_scenic_list"
    public static let onlineStatus = "key_online_status"
    public static let lastLocationReportTime = "key_last_location_report_time"
    public static let locationReminderMinutes = "key_location_reminder_minutes"
    public static let isOpenReceiveVoice = "key_is_open_receive_voice"

    public static let scoped = [
        roleId, rolePermissionList, permission, currentRoleScenicList, onlineStatus, lastLocationReportTime,
        locationReminderMinutes, isOpenReceiveVoice,
    ]

    /// sxk's own key: when the account snapshot was last written (epoch seconds), for "snapshot age".
    public static let snapshotSavedAt = "sxk_snapshot_saved_at"
    /// sxk's own key: when the server last confirmed the token with the account context (epoch
    /// seconds); one-shot commands within a short window of it skip validation (docs/session.md).
    public static let sessionValidatedAt = "sxk_session_validated_at"
    /// sxk's own keys: the file a device snapshot was imported from, and when. A profile holding them
    /// is a device snapshot: commands inspect it on a copy (docs/app-behaviour.md#snapshots).
    public static let importedFrom = "sxk_imported_from"
    public static let importedAt = "sxk_imported_at"
    /// Every sxk key begins with it; none of them is the app's.
    public static let sxkPrefix = "sxk_"

    /// The app's `accountCachePrefix`: `userId_accountType`, or `guest` without a user id (seed 000
    /// §6.1). Without an account type sxk uses `guest` too, never a guessed type (inferred:
    /// docs/app-behaviour.md#storage).
    public static func accountCachePrefix(userId: Int?, accountType: String?) -> String {
        guard let userId, let accountType, !accountType.isEmpty else { return "guest" }
        return "\(userId)_\(accountType)"
    }

    /// `<prefix>_<key>`, e.g. `5001_store_key_in_permission`.
    public static func scoped(_ key: String, prefix: String) -> String { prefix + "_" + key }

    /// `{accountScope}_role_{roleCode}_common_uris` (seed §6.2).
    public static func commonMenuURIs(prefix: String, roleCode: String) -> String {
        "\(prefix)_role_\(roleCode)_common_uris"
    }

    /// What a key is, judged from its name alone.
    public enum Kind: Sendable, Equatable {
        case nonScoped
        case sxk
        case scoped(prefix: String, name: String)
        /// A key in an account's scope that sxk does not model: the app's all the same (seed 000 §6.1
        /// lists the queue-calling settings among the scoped keys without naming them).
        case scopedUnmodelled(prefix: String, name: String)
        case commonMenus(prefix: String, roleCode: String)
        case unknown
    }

    public static func kind(of key: String) -> Kind {
        if nonScoped.contains(key) { return .nonScoped }
        if key.hasPrefix(sxkPrefix) { return .sxk }
        for name in scoped where key.hasSuffix("_" + name) && key.count > name.count + 1 {
            return .scoped(prefix: String(key.dropLast(name.count + 1)), name: name)
        }
        let suffix = "_common_uris"
        if key.hasSuffix(suffix), let range = key.range(ofBytes: "_role_"), range.lowerBound > key.startIndex {
            let roleStart = range.upperBound
            let roleEnd = key.index(key.endIndex, offsetBy: -suffix.count)
            if roleStart < roleEnd {
                return .commonMenus(prefix: String(key[..<range.lowerBound]), roleCode: String(key[roleStart..<roleEnd]))
            }
        }
        if let (prefix, name) = accountScope(of: key) {
            // sxk's own per-account bookkeeping (`5001_store_sxk_previous_role`) is not the app's.
            return name.hasPrefix(sxkPrefix) ? .sxk : .scopedUnmodelled(prefix: prefix, name: name)
        }
        return .unknown
    }

    /// `5001_store_…` or `guest_…`: the account scope a key begins with, and the rest.
    static func accountScope(of key: String) -> (String, String)? {
        if key.hasPrefix("guest_"), key.count > 6 { return ("guest", String(key.dropFirst(6))) }
        let parts = key.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              !parts[1].isEmpty, parts[1].utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }),
              !parts[2].isEmpty else { return nil }
        return ("\(parts[0])_\(parts[1])", String(parts[2]))
    }

    /// The shape a key's value must have.
    public enum ValueType: Sendable {
        case string, int, bool, time, scalar, stringArray, rolePermissions, permissionItems, scenicList
    }

    public static func valueType(of key: String) -> ValueType? {
        switch kind(of: key) {
        case .nonScoped:
            switch key {
            case privacyAgreementAccepted: return .bool
            case userId, currentScenicId, currentStoreId: return .int
            default: return .string
            }
        case .sxk:
            switch key {
            case snapshotSavedAt, sessionValidatedAt, importedAt: return .time
            case importedFrom: return .string
            default: return nil
            }
        case .scoped(_, let name):
            switch name {
            case roleId: return .scalar
            case rolePermissionList: return .rolePermissions
            case permission: return .permissionItems
            case currentRoleScenicList: return .scenicList
            case onlineStatus, isOpenReceiveVoice: return .bool
            case lastLocationReportTime: return .time
            case locationReminderMinutes: return .int
            default: return nil
            }
        case .commonMenus: return .stringArray
        case .unknown, .scopedUnmodelled: return nil
        }
    }

    /// Whether `value` can be read as `type` (the tolerant readers' rules); null counts as absent.
    public static func accepts(_ value: JSONValue, as type: ValueType) -> Bool {
        if value == .null { return true }
        switch type {
        case .string: return value.stringValue != nil
        case .int: return value.intValue != nil
        case .bool: return value.boolValue != nil
        case .time: return value.doubleValue != nil
        case .scalar: return value.stringValue != nil
        case .stringArray: return value.arrayValue?.allSatisfy { $0.stringValue != nil } ?? false
        case .rolePermissions:
            return value.arrayValue?.allSatisfy { (try? RolePermission(json: $0)) != nil } ?? false
        case .permissionItems:
            return value.arrayValue?.allSatisfy { (try? PermissionItem(json: $0)) != nil } ?? false
        case .scenicList:
            return value.arrayValue?.allSatisfy { (try? ScenicRef(json: $0)) != nil } ?? false
        }
    }

    /// `object` without its keys whose value has the wrong type, and a reason for each left out.
    public static func wellTyped(_ object: JSONObject) -> (kept: JSONObject, dropped: [String]) {
        var dropped: [String] = []
        let kept = object.entries.filter { entry in
            guard let type = valueType(of: entry.key), !accepts(entry.value, as: type) else { return true }
            dropped.append("'\(entry.key)' holds \(entry.value.typePhrase) of the wrong shape")
            return false
        }
        return (dropped.isEmpty ? object : JSONObject(kept), dropped)
    }
}
