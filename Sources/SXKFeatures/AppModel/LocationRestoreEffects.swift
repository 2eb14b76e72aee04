import SXKCore
import SXKSession

extension LocationStateStore.RestoreOutcome {
    /// What the 2-hour rule does to storage and why, in the words `home`, `boot`, `location`, `whoami`,
    /// `keys` and `explain key` all print: the scoped keys it removes, and the note.
    func effects(scope: String) -> (keys: [String], note: String) {
        switch self {
        case .stopped:
            return ([], "not online: countdown stopped, nothing changes")
        case .clearedNoReport:
            return ([StoreKey.scoped(StoreKey.onlineStatus, prefix: scope)], "online without a last report: the online status is dropped")
        case .clearedExpired(let elapsed):
            return ([StoreKey.scoped(StoreKey.onlineStatus, prefix: scope), StoreKey.scoped(StoreKey.lastLocationReportTime, prefix: scope)],
                    "last report \(LocalTime.duration(elapsed)) ago is past the 2-hour limit: online status dropped")
        case .resumed(let remaining):
            // The whole window left: the last report is not in the past (a device clock ahead), sxk's reading.
            let ahead = remaining >= LocationStateStore.reportWindow
                ? " (the last report is not in the past: the countdown counts the whole 2 hours from now \(Rules.futureReport.marker))" : ""
            return ([], "online: countdown resumes with \(LocalTime.duration(remaining)) left of the 2-hour limit\(ahead)")
        }
    }
}

/// What the next home's `restoreStateIfNeeded` would remove from the stored location state, and why:
/// the engine's one answer for every view that shows those keys without replaying the home.
public struct LocationRestoreChange: Sendable, Equatable {
    /// The scoped keys it removes.
    public var keys: [String]
    /// Why, in the words of the home's step 1.
    public var note: String
    public var rule: RuleBasis

    /// One line for a view's notes: what goes, why, and that it goes at the next home, not now.
    public var line: String {
        "\(note): the next home's restoreStateIfNeeded removes \(keys.joined(separator: " and ")) \(rule.marker); stored until then"
    }
}

extension AppModel {
    /// `restoreStateIfNeeded` (seed 000 §4.2, §6.3) on the stored state, nothing written: nil when it
    /// removes nothing (offline, or a countdown that resumes).
    public static func locationRestoreChange(store: AppStore, clock: any WallClock) -> LocationRestoreChange? {
        locationRestoreChange(LocationStateStore(store: store, clock: clock).predictRestore(), scope: store.accountCachePrefix)
    }

    /// The change of one restore decision (a `location` state's `restore`).
    public static func locationRestoreChange(_ outcome: LocationStateStore.RestoreOutcome, scope: String) -> LocationRestoreChange? {
        let effects = outcome.effects(scope: scope)
        guard !effects.keys.isEmpty else { return nil }
        return LocationRestoreChange(keys: effects.keys, note: effects.note, rule: Rules.locationRestore)
    }
}
