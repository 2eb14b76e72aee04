import FoundationEssentials
import SXKCore
import SXKAPI

/// The home dialogs' conditions, shared by `home`, `boot` and `explain`. Seed 000 §4.4 gives only
/// the priority (permission → scenic → location timeout) and when the location detail call is made;
/// the conditions below are sxk's reading (docs/app-behaviour.md#dialogs).
enum DialogRules {
    /// The "simplified top" roles (简化顶部角色, seed 000 §4.4) never get the location-timeout check.
    /// Which roles they are is not in the seeds: sxk takes storeAdmin, whose home shows a store card
    /// instead of the location bar (inferred: docs/app-behaviour.md#dialogs).
    static let simplifiedTopRoles: Set<String> = [RoleCode.storeAdmin]

    /// `checkLocationTimeout`'s local steps, the same for home and boot: the dialog check when they
    /// settle it (an earlier dialog shows, the simplified top bar, no reminder minutes), nil when
    /// the location detail call decides (seed 000 §4.4).
    static func locationTimeoutSettledLocally(needPermission: Bool, needScenic: Bool, role: String, reminder: Int?) -> DialogCheck? {
        var location = DialogCheck(dialog: .locationTimeout, show: false, reason: "", evaluated: true, rule: Rules.locationCallCondition)
        if needPermission || needScenic {
            location.evaluated = false
            location.rule = Rules.dialogPriority
            location.reason = "\(needPermission ? "permission" : "scenic") dialog first"
        } else if simplifiedTopRoles.contains(role) {
            location.rule = Rules.simplifiedTop
            location.reason = "role \(role) uses the simplified top bar"
        } else if reminder == nil {
            location.reason = "no location reminder minutes set locally"
        } else if let minutes = reminder, AppModel.reminderSet(minutes) == nil {
            location.rule = Rules.reminderUnset
            location.reason = "location reminder minutes stored as \(minutes): read as not set"
        } else {
            return nil
        }
        return location
    }

    /// The permission and scenic checks from the stored (or freshly loaded) lists.
    static func localChecks(permissions: [PermissionItem], scenicList: [ScenicRef], scenicId: Int?) -> [DialogCheck] {
        let needPermission = permissions.isEmpty
        let permission = DialogCheck(
            dialog: .permission, show: needPermission,
            reason: needPermission ? "the role has no permissions" : permissions.count == 1 ? "1 permission" : "\(permissions.count) permissions",
            evaluated: true, rule: Rules.permissionDialog)
        let hasScenic = AppModel.validScenic(scenicId) != nil
        let needScenic = !needPermission && !scenicList.isEmpty && !hasScenic
        let scenic = DialogCheck(
            dialog: .scenic, show: needScenic,
            // Every view prefixes "not evaluated" itself; the reason says only why.
            reason: needPermission ? "permission dialog first"
                : scenicList.isEmpty ? "the role has no scenic areas to choose"
                : hasScenic ? "scenic \(scenicId ?? 0) selected"
                : "the role has \(scenicList.count == 1 ? "1 scenic area" : "\(scenicList.count) scenic areas") and none is selected",
            evaluated: !needPermission, rule: needPermission ? Rules.dialogPriority : Rules.scenicDialog)
        return [permission, scenic]
    }

    /// Timeout when the staff member is online and the last report (the server's, else the local one)
    /// is missing or older than the reminder minutes; offline staff get no reminder (inferred).
    /// An answer without a readable `online` is judged as no reminder, and says so: whether the staff
    /// member is online is not known. A `lastReportTime` not in the wire's format reads as no time (as
    /// a fixed-format parser reads it), said with the text as sent; one in the future is said to be.
    static func decideTimeout(_ detail: LocationDetail, reminderMinutes: Int, storedLast: Date?, now: Date) -> (Bool, String) {
        guard let online = detail.online else {
            let sent = (detail.raw.objectValue?.field("online")?.stringValue).map { " (online \(TerminalText.sanitize($0)))" } ?? ""
            return (false, "the answer has no readable online\(sent): whether the staff member is online is unknown, no reminder judged")
        }
        guard online else { return (false, "staff is offline on the server") }
        let serverTime = detail.lastReportTime.flatMap(WireDate.parseTimestamp)
        let unreadable = serverTime == nil ? detail.lastReportTime.flatMap { $0.isEmpty ? nil : $0 } : nil
        let unread = unreadable.map { "lastReportTime '\(TerminalText.sanitize($0))' is not yyyy-MM-dd HH:mm:ss, read as no time; " } ?? ""
        guard let last = serverTime ?? storedLast else { return (true, unread + "online with no location report on record") }
        let age = now.timeIntervalSince(last)
        let text = unread + "last report \(LocalTime.human(last)) (" + (age < 0 ? "\(LocalTime.duration(-age)) in the future" : "\(LocalTime.duration(age)) ago") + ")"
        // In seconds as a Double: minutes imported from a device may be any Int.
        if age > TimeInterval(reminderMinutes) * 60 {
            return (true, "\(text) is older than the \(reminderMinutes)-minute reminder")
        }
        return (false, "\(text) is within the \(reminderMinutes)-minute reminder")
    }
}
