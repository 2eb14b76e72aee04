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
    /// Why no home runs on this state now (`AppModel.homeNotShown`: no token, or one the server
    /// rejected in this process): the restore waits for the home after a login.
    public var homeAbsent: String?

    /// When the restore runs: the next home, or the first after a login when none runs now.
    public var when: String { homeAbsent.map { "at the first home after a login (\($0))" } ?? "at the next home" }

    /// One line for a view's notes: what goes, why, and that it goes at the next home, not now.
    public var line: String {
        "\(note): restoreStateIfNeeded removes \(keys.joined(separator: " and ")) \(when) \(rule.marker); stored until then"
    }
}

extension AppModel {
    /// `restoreStateIfNeeded` (seed 000 §4.2, §6.3) on the stored state, nothing written: nil when it
    /// removes nothing (offline, or a countdown that resumes). `rejectedToken`: the token the server
    /// rejected in this process, if any.
    public static func locationRestoreChange(store: AppStore, clock: any WallClock, rejectedToken: String?) -> LocationRestoreChange? {
        locationRestoreChange(LocationStateStore(store: store, clock: clock).predictRestore(), store: store, rejectedToken: rejectedToken)
    }

    /// The change of one restore decision (a `location` state's `restore`) on `store`'s scope; when
    /// no home runs on that state (`homeNotShown`), said with it, as `boot` and `menus` say it.
    public static func locationRestoreChange(_ outcome: LocationStateStore.RestoreOutcome, store: AppStore, rejectedToken: String?) -> LocationRestoreChange? {
        let effects = outcome.effects(scope: store.accountCachePrefix)
        guard !effects.keys.isEmpty else { return nil }
        // A token file that cannot be read is not a missing one: the home is taken to run.
        let token: String?
        do { token = try store.token() } catch { token = "unreadable" }
        let absent = homeNotShown(token: token, rejectedToken: rejectedToken)
        return LocationRestoreChange(keys: effects.keys, note: effects.note, rule: Rules.locationRestore,
                                     homeAbsent: absent.map { "\($0.reason) \($0.rule.marker)" })
    }
}
