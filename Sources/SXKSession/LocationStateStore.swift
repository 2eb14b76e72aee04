import FoundationEssentials
import SXKCore

/// The app's `HomeLocationStateStore` (seed 000 §6.3): online status, last location report time and
/// reminder minutes, persisted in the account scope, and the 2-hour report countdown.
public final class LocationStateStore: @unchecked Sendable {
    /// The report window: after 2 hours without a report the online status is dropped.
    public static let reportWindow: TimeInterval = 2 * 3600

    /// What `restore()` decided.
    public enum RestoreOutcome: Sendable, Equatable {
        /// Stored online status false (or none): countdown stopped, nothing changed.
        case stopped
        /// Online but no last report time: online status cleared.
        case clearedNoReport
        /// Last report older than 2 hours: online status and last report time cleared.
        case clearedExpired(elapsed: TimeInterval)
        /// Countdown resumed with this many seconds left.
        case resumed(remaining: TimeInterval)
    }

    /// The location state at one instant, as the app shows it once `restoreStateIfNeeded` has run on
    /// the stored values (`restore` says what that run decides; nothing is written here).
    public struct State: Sendable, Equatable {
        /// Online as the app shows it: false when the restore drops the stored status.
        public var isOnline: Bool
        /// The last report as the app keeps it: nil when the restore removes the stored one.
        public var lastReportTime: Date?
        public var reminderMinutes: Int?
        /// Seconds since `lastReportTime` (nil without one).
        public var elapsedSeconds: TimeInterval?
        /// Seconds left until the 2-hour limit while online (never below 0).
        public var countdownSeconds: TimeInterval?
        /// What `restoreStateIfNeeded` decides for the stored values.
        public var restore: RestoreOutcome
        /// The values stored now, which the restore may drop.
        public var storedOnline: Bool?
        public var storedLastReportTime: Date?
    }

    private let store: AppStore
    private let clock: any WallClock

    public init(store: AppStore, clock: any WallClock) {
        self.store = store
        self.clock = clock
    }

    /// `restoreStateIfNeeded`: online false → stopped; no last report → clear online; older than
    /// 2 hours → clear online and the last report; else the countdown resumes.
    @discardableResult
    public func restore() throws(SessionError) -> RestoreOutcome {
        let outcome = predictRestore()
        switch outcome {
        case .clearedNoReport:
            try store.setOnlineStatus(nil)
        case .clearedExpired:
            try store.batch { () throws(SessionError) in
                try store.setOnlineStatus(nil)
                try store.setLastLocationReportTime(nil)
            }
        case .stopped, .resumed:
            break
        }
        return outcome
    }

    /// What `restore()` would decide now, without writing anything (`boot` replays it).
    public func predictRestore() -> RestoreOutcome {
        guard store.onlineStatus == true else { return .stopped }
        guard let last = store.lastLocationReportTime else { return .clearedNoReport }
        let elapsed = clock.now().timeIntervalSince(last)
        if elapsed > LocationStateStore.reportWindow { return .clearedExpired(elapsed: elapsed) }
        return .resumed(remaining: LocationStateStore.reportWindow - max(0, elapsed))
    }

    /// The state the app shows: the stored values after `predictRestore`'s decision, so a status past
    /// the 2-hour limit never reads as online with a countdown at 0 while `home` drops it.
    public var state: State {
        let storedOnline = store.onlineStatus
        let storedLast = store.lastLocationReportTime
        let outcome = predictRestore()
        let online: Bool, last: Date?, countdown: TimeInterval?
        switch outcome {
        case .resumed(let remaining): (online, last, countdown) = (true, storedLast, remaining)
        case .stopped: (online, last, countdown) = (false, storedLast, nil)
        case .clearedNoReport, .clearedExpired: (online, last, countdown) = (false, nil, nil)
        }
        return State(
            isOnline: online, lastReportTime: last, reminderMinutes: store.locationReminderMinutes,
            elapsedSeconds: last.map { clock.now().timeIntervalSince($0) }, countdownSeconds: countdown,
            restore: outcome, storedOnline: storedOnline, storedLastReportTime: storedLast)
    }

    /// Goes online: the status is stored and a report made now starts the countdown.
    public func goOnline() throws(SessionError) {
        try store.batch { () throws(SessionError) in
            try store.setOnlineStatus(true)
            try store.setLastLocationReportTime(clock.now())
        }
    }

    /// Goes offline: the countdown stops; the last report time stays as the app leaves it.
    public func goOffline() throws(SessionError) {
        try store.setOnlineStatus(false)
    }

    /// Records a location report (now, or `time`), restarting the countdown. Only while online as the
    /// app shows it: a stored status the restore drops is not revived by a report.
    public func report(at time: Date? = nil) throws(SessionError) {
        switch predictRestore() {
        case .resumed: break
        case .clearedExpired: throw .rejected("not online: the last report is past the 2-hour limit, so the online status is dropped; run 'location online' first")
        case .clearedNoReport, .stopped: throw .rejected("not online: run 'location online' first")
        }
        try store.setLastLocationReportTime(time ?? clock.now())
    }

    /// The reminder minutes that can be set (a day at most); 0 turns the reminder off.
    public static let reminderMinutes = 1...1440

    /// Sets the reminder minutes (`reminderMinutes`); nil or 0 removes the reminder.
    public func remind(minutes: Int?) throws(SessionError) {
        if let minutes, minutes != 0 {
            guard Self.reminderMinutes.contains(minutes) else {
                throw .rejected("reminder minutes must be between \(Self.reminderMinutes.lowerBound) and \(Self.reminderMinutes.upperBound) (0 turns it off)")
            }
            try store.setLocationReminderMinutes(minutes)
        } else {
            try store.setLocationReminderMinutes(nil)
        }
    }
}
