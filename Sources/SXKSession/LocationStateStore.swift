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

    /// The location state at one instant.
    public struct State: Sendable, Equatable {
        public var isOnline: Bool
        public var lastReportTime: Date?
        public var reminderMinutes: Int?
        /// Seconds since the last report (nil without one).
        public var elapsedSeconds: TimeInterval?
        /// Seconds left until the 2-hour limit while online (never below 0).
        public var countdownSeconds: TimeInterval?
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

    public var state: State {
        let online = store.onlineStatus ?? false
        let last = store.lastLocationReportTime
        let elapsed = last.map { clock.now().timeIntervalSince($0) }
        let countdown = online ? elapsed.map { max(0, LocationStateStore.reportWindow - $0) } : nil
        return State(
            isOnline: online, lastReportTime: last, reminderMinutes: store.locationReminderMinutes,
            elapsedSeconds: elapsed, countdownSeconds: countdown)
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

    /// Records a location report (now, or `time`), restarting the countdown. Only while online.
    public func report(at time: Date? = nil) throws(SessionError) {
        guard store.onlineStatus == true else { throw .rejected("not online: run 'location online' first") }
        try store.setLastLocationReportTime(time ?? clock.now())
    }

    /// Sets the reminder minutes (1…1440); nil or 0 removes the reminder.
    public func remind(minutes: Int?) throws(SessionError) {
        if let minutes, minutes != 0 {
            guard (1...1440).contains(minutes) else { throw .rejected("reminder minutes must be between 1 and 1440 (0 turns it off)") }
            try store.setLocationReminderMinutes(minutes)
        } else {
            try store.setLocationReminderMinutes(nil)
        }
    }
}
